// Package cargotool sets up the dependencies of a cargo port: where its crates come from
// (the distribution's packaged crates with cargo offline, or cargo's registry), the
// plan commands that put them in place, the Rust the package asks for, and the build
// line of a library crate.
//
// The distribution way reads the package's Cargo.toml files (bounded, beneath the
// source tree), resolves every dependency to the distribution package that installs
// its sources under /usr/share/cargo/registry (package knowledge/crates, over the
// suite's signed Packages index), and makes the commands of the "crates" plan phase:
// install those packages, write a cargo configuration into the package that replaces
// crates.io with that directory and turns the network off, and set a Cargo.lock aside
// (its versions and checksums are the registry's, which the packaged crates cannot
// meet; cargo then resolves against the packaged versions). The commands are plan
// commands, so a recipe replays them. A dependency the distribution does not package
// ends the port with a [*DependencyError] (failure class dependency) that names the
// crate, the requirement and the versions the distribution has: nothing is patched.
//
// Cargo resolves its lock file over every dependency a manifest declares, for every
// platform and feature, dev dependencies included, so one that the distribution lacks
// stops even a plain cargo build offline; such a dependency is a [*DependencyError]
// too, which says so.
package cargotool

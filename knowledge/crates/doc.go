// Package crates resolves a cargo package's dependencies to the distribution's
// packaged crates, so a Rust package builds offline: Debian's librust-*-dev packages
// install crate sources under [RegistryDir], and a cargo configuration
// ([CargoConfig]) makes that directory replace the crates.io registry.
//
// The steps are: [ReadManifest] (or [ReadManifestFS], which can also list member
// globs) reads Cargo.toml and the workspace's members with a TOML parser, resolving
// [workspace.dependencies] inheritance, renamed dependencies, target tables, path
// dependencies inside the tree, and the features that turn optional dependencies on;
// [LoadIndex] reads the suite's Packages index through the verified archive client
// of internal/debarchive (signed InRelease, hash-checked, cached), and [ParseIndex]
// the librust entries and their Provides in it; [Index.Resolve] picks, per
// dependency, the highest packaged version that meets cargo's requirement
// ([ParseRequirement]) and the packages of the features asked for, for a [Target]
// whose cfg(...) tables it evaluates ([ParseCfg]). A dependency the distribution
// does not package, or only at another version, is a [MissingError] that names the
// crate, the requirement and the versions the distribution has. Transitive
// dependencies are apt's: each librust package depends on the packages of its own
// dependencies.
//
// Cargo resolves its lock file for every platform, with every feature of the
// workspace members turned on and with their dev dependencies, even for a plain
// cargo build, and a directory source must hold every crate that resolution asks for.
// Resolve therefore also installs the packages of dependencies the build does not
// compile, and lists those the distribution lacks as Missing with LockOnly set:
// offline, cargo stops on them as well unless the manifest stops declaring them.
//
// [patch.crates-io] path and git entries take the place of registry dependencies, and
// a vendor directory that the package's own .cargo/config.toml puts in place of
// crates.io is read, so [Manifest.ResolveVendored] can check the dependencies against
// the vendored crates when that configuration stays in place.
// [Index.Rustc] and [RustVersionMet] compare a manifest's rust-version with the
// distribution's compiler.
package crates

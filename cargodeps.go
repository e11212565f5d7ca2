package atesor

import (
	"fmt"
	"strings"
)

// CratesMode says where a cargo port's dependencies come from.
type CratesMode string

// The ways a cargo port gets its crates.
const (
	// CratesDistribution: the distribution's packaged crates (Debian's librust-*-dev
	// packages under /usr/share/cargo/registry), with cargo offline; a dependency the
	// distribution does not package ends the port with [FailureDependency].
	CratesDistribution CratesMode = "distribution"
	// CratesRegistry: cargo fetches from its registry as usual, with the sandbox's
	// network.
	CratesRegistry CratesMode = "registry"
	// CratesAuto: one bounded cargo fetch from the registry first; when it fails, the
	// distribution's crates.
	CratesAuto CratesMode = "auto"
)

// ParseCratesMode reads a crates setting: distribution, registry or auto ("" is
// distribution).
func ParseCratesMode(s string) (CratesMode, error) {
	switch m := CratesMode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return CratesDistribution, nil
	case CratesDistribution, CratesRegistry, CratesAuto:
		return m, nil
	}
	return "", fmt.Errorf("unknown crates setting %q: want distribution, registry or auto", s)
}

// CargoDeps says how a cargo port got its dependencies.
type CargoDeps struct {
	// Mode is the setting the run had (distribution, registry or auto).
	Mode CratesMode `json:"mode"`
	// Source is the way the dependencies came: "distribution" (packaged crates,
	// cargo offline) or "registry" (cargo fetched them).
	Source CratesMode `json:"source"`
	// Packages are the distribution packages installed for the crates
	// (librust-itoa-1-dev, ...), sorted.
	Packages []string `json:"packages,omitempty"`
	// Crates are the dependencies as resolved to distribution packages.
	Crates []ResolvedCrate `json:"crates,omitempty"`
	// Config is the cargo configuration file the run wrote, relative to the
	// repository (.cargo/config.toml), when the crates come from the distribution.
	Config string `json:"config,omitempty"`
	// LockfileSetAside is where the package's Cargo.lock was moved, relative to the
	// repository: the lock names the registry's versions and checksums, which the
	// distribution's crates cannot meet, so cargo resolves against the packaged
	// versions instead. Empty when there was no Cargo.lock or it was kept.
	LockfileSetAside string `json:"lockfile_set_aside,omitempty"`
	// ConfigSetAside is where the package's own cargo configuration was moved (it
	// would have conflicted with the run's), relative to the repository.
	ConfigSetAside string `json:"config_set_aside,omitempty"`
	// RustVersion is the rust-version the manifest asks for; Rustc is the sandbox's
	// rustc (rustc --version).
	RustVersion string `json:"rust_version,omitempty"`
	Rustc       string `json:"rustc,omitempty"`
	// RegistryError is why the registry was not used in auto mode (the first line of
	// the failed cargo fetch).
	RegistryError string `json:"registry_error,omitempty"`
	// Commands are the plan commands that set the crates up (phase "crates").
	Commands []string `json:"commands,omitempty"`
}

// ResolvedCrate is one dependency of a cargo package and the distribution package that
// provides it.
type ResolvedCrate struct {
	Name    string `json:"name"`
	Req     string `json:"req,omitempty"`
	Package string `json:"package"`
	Version string `json:"version"`
	// Manifest is the Cargo.toml that declares it, relative to the package root.
	Manifest string `json:"manifest,omitempty"`
}

// String returns a one-line summary: "distribution crates (3 packages, Cargo.lock set
// aside)".
func (c CargoDeps) String() string {
	if c.Source == CratesRegistry {
		return "registry crates (fetched by cargo)"
	}
	s := fmt.Sprintf("distribution crates (%d packages", len(c.Packages))
	if c.LockfileSetAside != "" {
		s += ", Cargo.lock set aside as " + c.LockfileSetAside
	}
	return s + ")"
}

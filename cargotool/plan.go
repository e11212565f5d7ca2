package cargotool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/beneath"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
	"github.com/eclipse-atesor/atesor-go/knowledge/crates"
)

// Phase is the name of the plan phase that sets a cargo port's crates up; the build
// runs it after the setup phase, before the first cargo command.
const Phase = "crates"

// Files the crates phase writes or moves, relative to the package directory.
const (
	// ConfigFile is the cargo configuration the distribution way writes: cargo reads
	// it for every command run in the package, and the package's own directory is the
	// one place of cargo's configuration search that a plan command may write.
	ConfigFile = ".cargo/config.toml"
	// LockSetAside is where a Cargo.lock is moved.
	LockSetAside = "Cargo.lock.upstream"
	// configSetAsideSuffix is appended to the package's own cargo configuration file
	// when it is moved.
	configSetAsideSuffix = ".upstream"
)

// FetchLine is auto mode's try of the registry, run with network within FetchTimeout:
// a registry that answers "no" fails at once, one that does not answer runs out the
// bound.
const (
	FetchLine    = "cargo fetch"
	FetchTimeout = 60 * time.Second
)

// shippedConfigs are the package's own cargo configuration files that would stand in
// the way of the run's: cargo reads .cargo/config as well as .cargo/config.toml, and
// both in one directory is an error.
var shippedConfigs = []string{".cargo/config.toml", ".cargo/config"}

// Package is a cargo package in the source tree on the host.
type Package struct {
	// Manifest is what its Cargo.toml files say.
	Manifest *crates.Manifest
	// Dir is the package directory relative to the repository ("" for the top).
	Dir string
	// ShippedConfigs are the cargo configuration files the package ships, relative to
	// Dir.
	ShippedConfigs []string
}

// Read reads the cargo package at dir (relative to root, the host copy of the source
// tree): its Cargo.toml and the workspace members' (through [crates.ReadManifestFS],
// each file resolved beneath root and read up to [crates.MaxManifestSize] bytes) and
// which cargo configuration files it ships.
func Read(ctx context.Context, root, dir string) (*Package, error) {
	dir = strings.Trim(path.Clean("/"+dir), "/")
	fsys := beneath.FS(ctx, root, beneath.Bound{Kind: "cargo manifest", Max: crates.MaxManifestSize})
	sub := fsys
	if dir != "" {
		var err error
		if sub, err = fs.Sub(fsys, dir); err != nil {
			return nil, fmt.Errorf("cargo package %s: %w", dir, err)
		}
	}
	m, err := crates.ReadManifestFS(sub)
	if err != nil {
		return nil, fmt.Errorf("read the cargo manifest: %w", err)
	}
	p := &Package{Manifest: m, Dir: dir}
	for _, c := range shippedConfigs {
		if st, err := fs.Stat(sub, c); err == nil && !st.IsDir() {
			p.ShippedConfigs = append(p.ShippedConfigs, c)
		}
	}
	return p, nil
}

// BuildLine is the default plan's cargo build in the package directory: cargo build
// --release, and for a package without programs (a library crate) also its test
// binaries (cargo test --no-run), which are its riscv64 evidence as a Go library's
// test binaries are; the package's tests still run after verification.
func BuildLine(p *Package) string {
	line := "cargo build --release"
	if p != nil && p.Manifest != nil && len(p.Manifest.Binaries) == 0 {
		line += " && cargo test --release --no-run"
	}
	return inDir(p.dirOrTop(), line)
}

func (p *Package) dirOrTop() string {
	if p == nil {
		return ""
	}
	return p.Dir
}

// DependencyError says the distribution does not package a crate the port needs; the
// pipeline classes it [atesor.FailureDependency].
type DependencyError struct {
	// Missing are the crates (or features of them) the distribution lacks.
	Missing []crates.Missing
	// Msg is the whole message: each crate, the requirement, the versions the
	// distribution has, and what the porter can do.
	Msg string
}

func (e *DependencyError) Error() string { return e.Msg }

// Distribution resolves the package's dependencies (dev dependencies included: the
// package's tests are its evidence) to distribution packages through ix, and returns
// the record of the run's crates with the crates phase's commands for platform pl. A
// dependency the distribution lacks is a *DependencyError, returned with no record.
func Distribution(ix *crates.Index, p *Package, pl atesor.Platform, mode atesor.CratesMode) (*atesor.CargoDeps, error) {
	if ix == nil || p == nil || p.Manifest == nil {
		return nil, errors.New("cargotool: the distribution way needs the crate index and the package's manifest")
	}
	if pl.InstallCommand == "" || pl.UpdateCommand == "" {
		return nil, fmt.Errorf("cargotool: platform %q has no install command", pl.Name)
	}
	res, err := ix.Resolve(p.Manifest, crates.RISCV64, true)
	var me *crates.MissingError
	if errors.As(err, &me) {
		return nil, &DependencyError{Missing: me.Missing, Msg: me.Error() + " (atesor: --crates registry or auto)"}
	}
	if err != nil {
		return nil, fmt.Errorf("resolve the crates: %w", err)
	}
	if len(res.Missing) > 0 {
		return nil, unusedMissing(res.Missing)
	}
	deps := &atesor.CargoDeps{Mode: mode, Source: atesor.CratesDistribution, Packages: res.Packages,
		Config: join(p.Dir, ConfigFile), RustVersion: p.Manifest.RustVersion}
	for _, c := range res.Crates {
		deps.Crates = append(deps.Crates, atesor.ResolvedCrate{Name: c.Name, Req: c.Req, Package: c.Package, Version: c.Version, Manifest: c.Manifest})
	}
	if len(res.Packages) > 0 {
		words := make([]string, len(res.Packages))
		for i, n := range res.Packages {
			words[i] = shellwords.Quote(n)
		}
		deps.Commands = append(deps.Commands, pl.UpdateCommand+" && "+pl.InstallCommand+" "+strings.Join(words, " "))
	}
	for _, c := range p.ShippedConfigs {
		deps.ConfigSetAside = join(p.Dir, c+configSetAsideSuffix)
		deps.Commands = append(deps.Commands, inDir(p.Dir, "mv "+shellwords.Quote(c)+" "+shellwords.Quote(c+configSetAsideSuffix)))
	}
	deps.Commands = append(deps.Commands, inDir(p.Dir, "mkdir -p .cargo && printf '%s' "+shellwords.Quote(crates.CargoConfig(crates.RegistryDir))+" > "+ConfigFile))
	if p.Manifest.Lockfile {
		deps.LockfileSetAside = join(p.Dir, LockSetAside)
		// The test keeps a phase that is run again after a failure from failing on a
		// lock it already moved.
		deps.Commands = append(deps.Commands, inDir(p.Dir, "test ! -e Cargo.lock || mv Cargo.lock "+LockSetAside))
	}
	return deps, nil
}

// unusedMissing is the error for crates the build does not compile but cargo's lock
// resolution still asks for (dev dependencies, other targets, features that are off).
func unusedMissing(ms []crates.Missing) *DependencyError {
	var b strings.Builder
	if len(ms) == 1 {
		b.WriteString("cargo: the distribution does not package a crate the manifest declares: ")
		b.WriteString(ms[0].String())
	} else {
		fmt.Fprintf(&b, "cargo: the distribution does not package %d crates the manifests declare:", len(ms))
		for _, m := range ms {
			b.WriteString("\n  ")
			b.WriteString(m.String())
		}
	}
	b.WriteString("\ncargo resolves its lock file over every declared dependency (dev dependencies, other targets and features included), so offline it stops before building anything; " +
		"remove or relax those declarations in the source, vendor the crates (cargo vendor), or port with a crates registry reachable (--crates registry)")
	return &DependencyError{Missing: ms, Msg: b.String()}
}

// Registry is the record of a port whose crates cargo fetches from its registry: no
// commands (cargo build fetches with the sandbox's network), the Cargo.lock kept.
func Registry(p *Package, mode atesor.CratesMode) *atesor.CargoDeps {
	d := &atesor.CargoDeps{Mode: mode, Source: atesor.CratesRegistry}
	if p != nil && p.Manifest != nil {
		d.RustVersion = p.Manifest.RustVersion
	}
	return d
}

// RecipePrerequisite is the recipe's line on the crates: where they came from and what
// the run changed for them ("" for no record).
func RecipePrerequisite(d *atesor.CargoDeps) string {
	if d == nil {
		return ""
	}
	if d.Source == atesor.CratesRegistry {
		s := "- Rust crates: fetched by cargo from its registry (network on).\n"
		if d.RustVersion != "" {
			s = strings.TrimSuffix(s, "\n") + " The package asks for Rust " + d.RustVersion + ".\n"
		}
		return s
	}
	var b strings.Builder
	fmt.Fprintf(&b, "- Rust crates: the distribution's packaged crates (%s), cargo offline with %s replacing crates.io by %s.\n",
		orNone(d.Packages), d.Config, crates.RegistryDir)
	if d.LockfileSetAside != "" {
		fmt.Fprintf(&b, "- The package's Cargo.lock was set aside as %s: cargo resolved against the packaged versions.\n", d.LockfileSetAside)
	}
	if d.ConfigSetAside != "" {
		fmt.Fprintf(&b, "- The package's own cargo configuration was set aside as %s.\n", d.ConfigSetAside)
	}
	if d.RegistryError != "" {
		fmt.Fprintf(&b, "- The registry was tried first and failed: %s\n", d.RegistryError)
	}
	return b.String()
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "no packages needed"
	}
	return strings.Join(s, ", ")
}

func join(dir, rel string) string {
	if dir == "" {
		return rel
	}
	return dir + "/" + rel
}

func inDir(dir, line string) string {
	if dir == "" {
		return line
	}
	return "cd " + shellwords.Quote(dir) + " && " + line
}

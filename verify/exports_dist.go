package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debpkg"
	"github.com/eclipse-atesor/atesor-go/internal/textlist"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// The distribution half of export completeness: for a source from Debian's archive, the
// functions Debian's own build of the same upstream version exports — from the riscv64
// binary packages, else (no riscv64 build of that version) the amd64 ones — must be
// defined by the port's libraries. A package's symbols file says what it exports, with
// the architecture-specific symbols tagged (those are excused); a package without one
// is compared by its shared library's defined dynamic functions, matched by SONAME.
//
// The packages come from the archive's Packages index and pool on the host, each
// checked against the index's SHA-256 (the mirror of the host's apt configuration, the
// one source tarballs come from, else the sandbox's), and are read in Go. That needs no foreign
// architecture in the sandbox (no dpkg --add-architecture, no second apt-get update
// under emulation), changes nothing in the run's sandbox, and works the same with every
// sandbox backend, Alpine included.
//
// A source that is no Debian package but an upstream release named NAME-VERSION is
// compared with Debian's source package NAME when the archive has that upstream
// version: the same evidence, found by name.
//
// When the distribution's build exports functions this one lacks, its packaging's
// debian/rules is read from the same verified archive for the configure switches it
// passes, so the explanation can name the switch that enables them (evidence for the
// report and the recipe; a switch never fails or passes a port).

// distArchs are the architectures whose build is compared with, in order of preference.
var distArchs = []string{"riscv64", "amd64"}

// distArchive is where the distribution's binary packages come from (*debsrc.Binaries).
type distArchive interface {
	OfSource(ctx context.Context, src string) ([]knowledge.BinaryPackage, error)
	Fetch(ctx context.Context, p knowledge.BinaryPackage) (string, error)
}

var _ distArchive = (*debsrc.Binaries)(nil)

// distDeb is one fetched binary package of the distribution.
type distDeb struct {
	Package, Version string
	Contents         *debpkg.Contents
}

// x86Function names a function that exists only on x86 (an ISA extension's variant):
// a build for another architecture is right not to define it. Applied only to the
// dynamic symbols of a non-riscv64 build, where no symbols file tags them.
var x86Function = regexp.MustCompile(`(?i)(^|_)(sse[0-9]*|ssse3|sse4_?[12a]?|avx[0-9a-z]*|x86(_64)?|x64|amd64|i[3-6]86|mmx|pclmul(qdq)?|vpclmul(qdq)?|aes_?ni|sha_?ni|bmi2?|f16c|fma)(_|$)`)

// toolchainFunctions are defined by every shared library the toolchain links.
var toolchainFunctions = map[string]bool{"_init": true, "_fini": true}

// checkDistribution compares with the distribution's own build (see above) and returns
// what that build exports for the libraries built here (nil when nothing was compared).
func checkDistribution(ctx context.Context, sb atesor.Sandbox, in Input, sonames map[string]bool, ec *atesor.ExportCheck, defined func(string) bool) *distExports {
	cp, ok := debsrc.CounterpartOf(in.Source, in.Origin)
	if !ok {
		return nil
	}
	src, version, suite, byName := cp.Package, cp.Version, cp.Suite, cp.ByName
	if suite == "" {
		suite = knowledge.DefaultDebianSuite
		if in.Platform.Name == "debian" {
			suite = knowledge.DebianSuite(in.Platform)
		}
	}
	open := distArchiveFor(sb, in.Mirror, in.DistCache, suite)
	debs, arch, notes, err := fetchDistribution(ctx, open, src, version)
	if byName {
		if err != nil {
			ec.Notes = append(ec.Notes, fmt.Sprintf("no Debian build of a source package %s %s to compare with (looked up by the source's name and version)", src, version))
			return nil
		}
		ec.Notes = append(ec.Notes, fmt.Sprintf("compared with Debian's source package %s, whose name and upstream version the source's match", src))
	}
	ec.Notes = append(ec.Notes, notes...)
	if err != nil {
		ec.Notes = append(ec.Notes, "distribution symbols not compared: "+err.Error())
		return nil
	}
	d := compareDistribution(debs, arch, version, sonames, defined, ec)
	if d != nil && len(ec.MissingDistribution) > 0 {
		rulesOf := func(ctx context.Context) (string, error) {
			mirror, err := distMirror(sb, in.Mirror)
			if err != nil {
				return "", err
			}
			r := &debsrc.Resolver{Mirror: mirror, Suite: suite, CacheDir: in.DistCache}
			return r.Rules(ctx, src, version)
		}
		distributionSwitches(ctx, rulesOf, ec)
	}
	return d
}

// distributionSwitches records the configure switches of the distribution's packaging
// (its debian/rules, from rulesOf) in ec, so that the functions its build exports and
// this one does not can be explained by them; a packaging that cannot be read is a note.
func distributionSwitches(ctx context.Context, rulesOf func(context.Context) (string, error), ec *atesor.ExportCheck) {
	rules, err := rulesOf(ctx)
	if err != nil {
		ec.Notes = append(ec.Notes, "the distribution's configure switches not read: "+err.Error())
		return
	}
	ec.DistributionSwitches = debsrc.ConfigureSwitches(rules)
}

// distExports is what the distribution's build exports for the libraries built here:
// the names it lists that are not excused as architecture-specific, and whether that
// list is exact (no symbols file pattern that a name could match without being listed).
type distExports struct {
	names map[string]bool
	exact bool
}

// excuseUndistributed drops from the missing declared functions those the
// distribution's own build of the same version does not export either (or exports only
// on other architectures): the upstream library never defines them (libmad 0.15.1b's bit.h declares mad_bit_write, which no
// file defines), so a port cannot be asked to. They are named in a note and no longer
// counted as declared.
func excuseUndistributed(ec *atesor.ExportCheck, d *distExports) {
	if d == nil || !d.exact || len(d.names) == 0 || len(ec.MissingDeclared) == 0 {
		return
	}
	var kept, excused []string
	for _, n := range ec.MissingDeclared {
		if d.names[n] {
			kept = append(kept, n)
		} else {
			excused = append(excused, n)
		}
	}
	if len(excused) == 0 {
		return
	}
	ec.MissingDeclared = kept
	ec.Declared -= len(excused)
	ec.Notes = append(ec.Notes, fmt.Sprintf("not counted: %d functions the public headers declare that %s does not export either: %s",
		len(excused), ec.Distribution, strings.Join(textlist.Limit(excused, 20), ", ")))
}

// distArchiveFor opens the archive of one architecture: the Debian mirror override,
// else the mirror of the host's apt configuration, else the sandbox's own, cached under
// the state home.
func distArchiveFor(sb atesor.Sandbox, override, cacheDir, suite string) func(arch string) (distArchive, error) {
	return func(arch string) (distArchive, error) {
		mirror, err := distMirror(sb, override)
		if err != nil {
			return nil, err
		}
		if cacheDir == "" {
			return nil, errors.New("verify: no cache directory for the distribution's packages (Input.DistCache)")
		}
		return &debsrc.Binaries{Mirror: mirror, Suite: suite, Arch: arch, CacheDir: cacheDir}, nil
	}
}

// distMirror is the Debian mirror to read: the override, else the host's apt
// configuration's, else the sandbox's.
func distMirror(sb atesor.Sandbox, override string) (string, error) {
	mirror, err := knowledge.DebianMirror(override)
	if err != nil {
		var hp sandbox.HostPather
		if sandbox.As(sb, &hp) {
			if dir, herr := hp.HostPath("/etc/apt"); herr == nil {
				mirror, err = knowledge.DebianMirrorIn(dir)
			}
		}
	}
	return mirror, err
}

// fetchDistribution fetches the library packages built from src at the upstream
// version from the first architecture of distArchs that has them, and says in notes
// why an earlier architecture was passed over.
func fetchDistribution(ctx context.Context, open func(arch string) (distArchive, error), src, version string) (debs []distDeb, arch string, notes []string, err error) {
	var why []string
	for _, arch := range distArchs {
		a, err := open(arch)
		if err != nil {
			return nil, "", notes, err
		}
		bins, err := a.OfSource(ctx, src)
		if err != nil {
			why = append(why, fmt.Sprintf("%s: %v", arch, err))
			continue
		}
		pkgs, other := libraryPackages(bins, version)
		if len(pkgs) == 0 {
			if len(other) > 0 {
				why = append(why, fmt.Sprintf("the archive's %s packages of %s are another version (%s), the source is %s", arch, src, strings.Join(textlist.Limit(other, 3), ", "), version))
			} else {
				why = append(why, fmt.Sprintf("the archive has no %s library package built from %s", arch, src))
			}
			continue
		}
		if len(why) > 0 {
			notes = append(notes, "compared with Debian's "+arch+" build: "+strings.Join(why, "; "))
		}
		for _, p := range pkgs {
			d, err := readDistDeb(ctx, a, p)
			if err != nil {
				return nil, "", notes, err
			}
			debs = append(debs, d)
		}
		return debs, arch, notes, nil
	}
	return nil, "", notes, errors.New(strings.Join(why, "; "))
}

// multilibPackage names a multilib copy of a library (lib32z1, libx32z1 of amd64's
// zlib): another ABI's build, not the architecture's own.
var multilibPackage = regexp.MustCompile(`^lib(32|64|x32|n32)[a-z]`)

// libraryPackages picks the binary packages that can hold the libraries: built from the
// upstream version, not architecture-independent, not multilib copies, not -dev, -doc
// or debug packages.
// other lists the packages of another version.
func libraryPackages(bins []knowledge.BinaryPackage, version string) (pkgs []knowledge.BinaryPackage, other []string) {
	seen := map[string]bool{}
	for _, b := range bins {
		if b.Architecture == "all" || multilibPackage.MatchString(b.Package) || strings.HasSuffix(b.Package, "-doc") || strings.HasSuffix(b.Package, "-dev") ||
			strings.HasSuffix(b.Package, "-dbg") || strings.HasSuffix(b.Package, "-dbgsym") {
			continue
		}
		if knowledge.UpstreamVersion(b.SourceVersion) != version {
			other = append(other, b.Package+" "+b.Version)
			continue
		}
		if len(pkgs) < maxDistPackages && !seen[b.Package] {
			seen[b.Package] = true
			pkgs = append(pkgs, b)
		}
	}
	return pkgs, other
}

func readDistDeb(ctx context.Context, a distArchive, p knowledge.BinaryPackage) (distDeb, error) {
	file, err := a.Fetch(ctx, p)
	if err != nil {
		return distDeb{}, err
	}
	f, err := os.Open(file)
	if err != nil {
		return distDeb{}, err
	}
	defer f.Close()
	c, err := debpkg.Read(f, []string{"symbols"}, debpkg.Limits{})
	if err != nil {
		return distDeb{}, fmt.Errorf("%s %s: %w", p.Package, p.Version, err)
	}
	return distDeb{Package: p.Package, Version: p.Version, Contents: c}, nil
}

// compareDistribution records in ec what the distribution's packages export for the
// libraries built here (sonames) and which of those functions no library defines.
func compareDistribution(debs []distDeb, arch, version string, sonames map[string]bool, defined func(string) bool, ec *atesor.ExportCheck) *distExports {
	var names []string
	how := map[string]bool{}
	missing := map[string]bool{}
	compared := false
	seen := map[string]bool{}
	exported := map[string]bool{} // the names not excused
	exact := true
	count := func(name string, excused bool) {
		if seen[name] {
			return // two packages of one library (a t64 transition, a multilib copy)
		}
		seen[name] = true
		if excused {
			ec.Excused++
			return
		}
		exported[name] = true
		ec.DistributionSymbols++
		if !defined(name) {
			missing[name] = true
		}
	}
	for _, d := range debs {
		if text, ok := d.Contents.Control["symbols"]; ok {
			for _, lib := range knowledge.ParseDebianSymbols(string(text)) {
				if !sonames[lib.Soname] {
					ec.Notes = append(ec.Notes, fmt.Sprintf("%s (from %s) is not among the libraries built here", lib.Soname, d.Package))
					continue
				}
				compared, how["symbols file"] = true, true
				names = append(names, d.Package)
				for _, sym := range lib.Symbols {
					if sym.Pattern {
						exact = false
						continue
					}
					count(sym.Name, sym.Excused)
				}
			}
			continue
		}
		for _, lib := range d.Contents.Libraries {
			syms, err := definedSymbols(bytes.NewReader(lib.Data))
			if err != nil {
				ec.Notes = append(ec.Notes, fmt.Sprintf("%s (from %s): %v", lib.Path, d.Package, err))
				continue
			}
			soname := syms.Soname
			if soname == "" {
				soname = path.Base(lib.Path)
			}
			if !sonames[soname] {
				ec.Notes = append(ec.Notes, fmt.Sprintf("%s (from %s) is not among the libraries built here", soname, d.Package))
				continue
			}
			compared, how["dynamic symbols"] = true, true
			names = append(names, d.Package)
			for _, fn := range syms.Functions {
				if !toolchainFunctions[fn] {
					count(fn, arch != "riscv64" && x86Function.MatchString(fn))
				}
			}
			for _, n := range syms.Data {
				exported[n] = true // only functions are compared, but data is exported too
			}
		}
		for _, p := range d.Contents.Skipped {
			ec.Notes = append(ec.Notes, fmt.Sprintf("%s (from %s) is too large to compare", p, d.Package))
		}
	}
	if !compared {
		var pkgs []string
		for _, d := range debs {
			pkgs = append(pkgs, d.Package)
		}
		ec.Notes = append(ec.Notes, fmt.Sprintf("distribution symbols not compared: Debian's %s packages %s carry no symbols file and no shared library built here", arch, strings.Join(pkgs, ", ")))
		return nil
	}
	var hows []string
	for h := range how {
		hows = append(hows, h)
	}
	sort.Strings(hows)
	ec.Distribution = fmt.Sprintf("%s %s (Debian %s, %s)", strings.Join(knowledge.SortedNames(names), ", "), version, arch, strings.Join(hows, " and "))
	for n := range missing {
		ec.MissingDistribution = append(ec.MissingDistribution, n)
	}
	sort.Strings(ec.MissingDistribution)
	return &distExports{names: exported, exact: exact}
}

package knowledge

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/mod/module"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/textlist"
)

// Build directories of the default plans.
const (
	cmakeBuildDir = "build"
	mesonBuildDir = "builddir"
)

// goToolchainEnv lets the go command fetch the toolchain a go.mod asks for when the
// distro's Go is older (see [DefaultPlan]).
const goToolchainEnv = "GOTOOLCHAIN=auto"

// ErrNoDetection is returned by [DefaultPlan] when it is given no detection.
var ErrNoDetection = errors.New("no scripted detection: run knowledge.Detect on the source tree first")

// toolDeps are the canonical tools each build system needs in the sandbox.
var toolDeps = map[atesor.BuildSystem][]string{
	atesor.BuildCMake:     {"build-essential", "cmake", "pkg-config"},
	atesor.BuildMeson:     {"build-essential", "meson", "ninja", "pkg-config"},
	atesor.BuildAutotools: {"build-essential", "autoconf", "automake", "libtool", "pkg-config", "make"},
	atesor.BuildMake:      {"build-essential", "pkg-config"},
	atesor.BuildGo:        {"go"},
	atesor.BuildCargo:     {"build-essential", "cargo", "pkg-config"},
	// perl-xs are the headers and libperl an XS module compiles and links against.
	atesor.BuildPerl: {"build-essential", "make", "perl", "perl-xs"},
	// r is R with the headers and libR a package's compiled code builds against.
	atesor.BuildR: {"build-essential", "r"},
}

// RLibrary is the library directory the default R plan installs the package into
// inside the tree: R CMD INSTALL needs one, and the system's site library is not the
// port's to change.
const RLibrary = ".atesor-rlib"

// RInstallLine is how the default R plan builds: R CMD INSTALL compiles src/ in place
// and installs the package, then loads it, which proves the riscv64 shared object loads
// into R. Help pages are left out; they are no port's concern.
const RInstallLine = "mkdir -p " + RLibrary + " && R CMD INSTALL --no-docs --no-html --library=" + RLibrary + " ."

// PerlConfigureLine is how the default Perl plan writes the Makefile, as Debian's
// dh_auto_configure does: -I. because Perl no longer searches the current directory
// and Module::Install's Makefile.PL loads its bundled inc/ from there, and
// PERL_MM_USE_DEFAULT=1 so that a Makefile.PL that prompts takes its defaults instead
// of waiting on a terminal.
const PerlConfigureLine = "PERL_MM_USE_DEFAULT=1 perl -I. Makefile.PL"

// DefaultPlan is the build plan for a standard build system made from the detection
// alone, used when no model is available: a setup phase that installs the build tools and
// the detected dependencies under the profile's package names, and a build phase with the
// build system's usual commands (out-of-tree cmake and meson builds, make -j$(nproc),
// go build -buildvcs=false, cargo build --release, perl Makefile.PL then make for a Perl
// distribution, whose tests are make test, R CMD INSTALL for an R package, with the r-cran
// packages its DESCRIPTION needs on Debian). It also returns the build system's
// default test commands, which the finish step runs after verification.
//
// For an unknown build system it returns [DiscoveryPlan] and no test commands. The plans
// never hide a failure (no "|| true") and never cross-compile.
//
// Go commands run with GOTOOLCHAIN=auto. Debian trixie's golang-go is Go 1.24. A go.mod
// whose go or toolchain line asks for a newer Go gets that release from the pipeline
// before the first go command (package graph fetches golang.org/toolchain through the
// Go module proxy: linux-riscv64, or linux-amd64 with the accelerated toolchain, and
// pins it with GOTOOLCHAIN=local). The plan never lowers the module's go directive:
// that would build with an older language and standard library than the module
// declares.
func DefaultPlan(det *atesor.Detection, p atesor.Platform) (atesor.BuildPlan, []string, error) {
	if det == nil {
		return atesor.BuildPlan{}, nil, ErrNoDetection
	}
	if p.InstallCommand == "" || p.UpdateCommand == "" {
		return atesor.BuildPlan{}, nil, fmt.Errorf("platform %q has no install command: get it from knowledge.Profile", p.Name)
	}
	if strings.Contains(det.BuildDir, "..") || strings.HasPrefix(det.BuildDir, "/") ||
		strings.Contains(det.ModuleDir, "..") || strings.HasPrefix(det.ModuleDir, "/") {
		return atesor.BuildPlan{}, nil, fmt.Errorf("build directory %q is outside the repository", det.BuildDir)
	}
	bs := det.BuildSystem
	if det.ShippedConfigure && bs != atesor.BuildGo && bs != atesor.BuildCargo {
		bs = "configure"
	}
	dir := shellDir(det.BuildDir)
	var build string
	var tests []string
	var preBuild []atesor.Phase
	var named []string // distribution package names, past the canonical map
	tools := toolDeps[det.BuildSystem]
	switch bs {
	case "configure":
		tools = []string{"build-essential", "pkg-config"}
		if len(det.OutdatedConfigScripts) > 0 {
			tools = append(tools, "automake") // its current config.guess and config.sub
		}
		build = inDir(dir, "./configure && make -j$(nproc)")
		tests = []string{inDir(dir, "make check")}
	case atesor.BuildAutotools:
		build = inDir(dir, "autoreconf -fi && ./configure && make -j$(nproc)")
		tests = []string{inDir(dir, "make check")}
	case atesor.BuildCMake:
		src, out := ".", cmakeBuildDir
		if dir != "" {
			src = dir
			if strings.HasPrefix(dir+"/", cmakeBuildDir+"/") {
				out = "build-riscv64" // the repository's own build/ holds the sources
			}
		}
		build = fmt.Sprintf("cmake -S %s -B %s -DCMAKE_BUILD_TYPE=Release && cmake --build %s -j$(nproc)", src, out, out)
		tests = []string{"ctest --test-dir " + out}
	case atesor.BuildMeson:
		out := mesonBuildDir
		if dir != "" {
			build = fmt.Sprintf("meson setup %s %s && ninja -C %s", out, dir, out)
		} else {
			build = fmt.Sprintf("meson setup %s && ninja -C %s", out, out)
		}
		tests = []string{"meson test -C " + out}
	case atesor.BuildMake:
		mf := MakefileArgs(det)
		build = makeCmd(dir, mf+"-j$(nproc)")
		// Run check when the Makefile has it, else test; a Makefile with neither has no
		// tests to run.
		if len(det.TestTargets) > 0 {
			tests = []string{makeCmd(dir, mf+det.TestTargets[0])}
		}
	case atesor.BuildGo:
		if det.HasCGO {
			tools = append(slicesClone(tools), "build-essential", "pkg-config")
		}
		mod := shellDir(det.ModuleDir)
		if mod == "" {
			mod = dir
		}
		if det.GoNoModFile {
			if det.GoModulePath == "" {
				return atesor.BuildPlan{}, nil, ErrNoGoModulePath
			}
			if err := module.CheckImportPath(det.GoModulePath); err != nil {
				return atesor.BuildPlan{}, nil, fmt.Errorf("module path for the Go packages with no go.mod: %w", err)
			}
			if len(det.GoExternalImports) > 0 {
				return atesor.BuildPlan{}, nil, &GoImportsError{Imports: slices.Clone(det.GoExternalImports)}
			}
			preBuild = []atesor.Phase{{Name: GoModPhase, Commands: []string{inDir(mod, GoModInitLine(det.GoModulePath))}}}
		}
		build = inDir(mod, goBuildCommand(det))
		tests = []string{inDir(mod, goToolchainEnv+" go test"+goVetFlag(det)+" ./...")}
	case atesor.BuildCargo:
		build = inDir(dir, "cargo build --release")
		tests = []string{inDir(dir, "cargo test --release")}
	case atesor.BuildPerl:
		// The XS module lands in blib/arch/auto/<Module>/<Module>.so, the artifact
		// verification checks; a pure-Perl distribution compiles nothing.
		build = inDir(dir, PerlConfigureLine+" && make -j$(nproc)")
		tests = []string{inDir(dir, "make test")}
	case atesor.BuildR:
		build = inDir(dir, RInstallLine)
		named = rPackages(p, det)
	default:
		return DiscoveryPlan(p), nil, nil
	}

	plan := atesor.BuildPlan{Reasoning: fmt.Sprintf("Default %s plan from scripted detection (evidence %s, confidence %.2f).",
		bs, textlist.OrNone(det.Evidence), det.Confidence)}
	if setup := setupCommand(p, tools, det.Dependencies, named...); setup != "" {
		plan.Phases = append(plan.Phases, atesor.Phase{Name: "setup", Commands: []string{setup}})
	}
	if bs == "configure" && len(det.OutdatedConfigScripts) > 0 {
		plan.Phases = append(plan.Phases, atesor.Phase{Name: "config-scripts", Commands: refreshConfigScripts(det.OutdatedConfigScripts)})
	}
	if det.GoNoModFile && len(preBuild) > 0 {
		plan.Reasoning += fmt.Sprintf(" The Go packages have no go.mod: the %s phase makes one with module path %s (from %s).",
			GoModPhase, det.GoModulePath, textlist.OrNone(det.GoModulePathFrom))
	}
	plan.Phases = append(plan.Phases, preBuild...)
	plan.Phases = append(plan.Phases, atesor.Phase{Name: "build", Commands: []string{build}})
	return plan, tests, nil
}

// refreshConfigScripts replaces config.guess and config.sub files that do not know
// riscv64 with automake's current copies, as Debian's own packaging does; a shipped
// configure is otherwise used as is. (autoreconf -fi installs current copies itself.)
func refreshConfigScripts(files []string) []string {
	var cmds []string
	for _, f := range files {
		cmds = append(cmds, fmt.Sprintf(`cp "$(automake --print-libdir)/%s" %s`, path.Base(f), shellQuoteArg(f)))
	}
	return cmds
}

// shellQuoteArg quotes a repository path for a command line when it needs it.
var plainArg = regexp.MustCompile(`^[A-Za-z0-9._/+-]+$`)

func shellQuoteArg(s string) string {
	if plainArg.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// DiscoveryPlan is the plan for a tree whose build system detection could not name: it
// installs the common build tools, lists the tree, and builds with the first standard
// build file it finds at the top level, failing with a clear message when there is none.
func DiscoveryPlan(p atesor.Platform) atesor.BuildPlan {
	tools := []string{"build-essential", "pkg-config", "cmake", "meson", "ninja", "autoconf", "automake", "libtool"}
	build := "if [ -f configure ]; then ./configure && make -j$(nproc); " +
		"elif [ -f CMakeLists.txt ]; then cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc); " +
		"elif [ -f meson.build ]; then meson setup builddir && ninja -C builddir; " +
		"elif [ -f GNUmakefile ] || [ -f Makefile ] || [ -f makefile ]; then make -j$(nproc); " +
		"elif [ -f configure.ac ] || [ -f configure.in ]; then autoreconf -fi && ./configure && make -j$(nproc); " +
		"else echo 'no standard build file (configure, CMakeLists.txt, meson.build, Makefile, configure.ac) at the top level' >&2; exit 1; fi"
	plan := atesor.BuildPlan{Reasoning: "Discovery plan: the build system is unknown, so the first standard build file found decides."}
	if setup := setupCommand(p, tools, nil); setup != "" {
		plan.Phases = append(plan.Phases, atesor.Phase{Name: "setup", Commands: []string{setup}})
	}
	plan.Phases = append(plan.Phases,
		atesor.Phase{Name: "discover", Commands: []string{"ls -la", "find . -maxdepth 2 -type f -name '*.txt' -o -maxdepth 2 -type f -name 'Makefile*' -o -maxdepth 2 -type f -name '*.build'"}},
		atesor.Phase{Name: "build", Commands: []string{build}})
	return plan
}

// setupCommand installs the build tools and the dependencies the profile knows, each
// package once, in order: `apt-get update && apt-get install -y cmake zlib1g-dev`.
// Dependencies the profile does not know (Go modules, unknown CMake packages) are left to
// the build system or a fix.
func setupCommand(p atesor.Platform, tools []string, deps []atesor.Dependency, named ...string) string {
	var pkgs []string
	seen := map[string]bool{}
	add := func(canonical string) {
		name, ok := p.PackageFor(canonical)
		if !ok || seen[name] {
			return
		}
		seen[name] = true
		pkgs = append(pkgs, name)
	}
	for _, t := range tools {
		add(t)
	}
	for _, d := range deps {
		add(d.Name)
	}
	for _, n := range named {
		if !seen[n] {
			seen[n] = true
			pkgs = append(pkgs, n)
		}
	}
	if len(pkgs) == 0 {
		return ""
	}
	return p.UpdateCommand + " && " + p.InstallCommand + " " + strings.Join(pkgs, " ")
}

// shellDir returns a repository-relative directory fit for a command line, "" for the
// top level. Detection directories only hold safe path characters; anything else is
// quoted.
func shellDir(dir string) string {
	dir = strings.TrimPrefix(path.Clean("/"+dir), "/")
	if dir == "" || dir == "." {
		return ""
	}
	return shellQuote(dir)
}

func inDir(dir, cmd string) string {
	if dir == "" {
		return cmd
	}
	return "cd " + dir + " && " + cmd
}

// MakefileArgs is the -f argument, with its trailing space, that a make command of the
// detected build needs when its makefile is one make does not read by itself (a
// platform makefile, [atesor.Detection.Makefile]); "" otherwise.
func MakefileArgs(det *atesor.Detection) string {
	if det == nil || det.Makefile == "" {
		return ""
	}
	return "-f " + shellQuote(det.Makefile) + " "
}

func makeCmd(dir, args string) string {
	if dir == "" {
		return "make " + args
	}
	return "make -C " + dir + " " + args
}

// goPkgPath turns a main path relative to the module into a package pattern: ./cmd/tool.
func goPkgPath(mainPath string) string {
	mp := strings.TrimPrefix(path.Clean("/"+mainPath), "/")
	if mp == "" || mp == "." {
		return "."
	}
	return "./" + shellQuote(mp)
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// shellQuote quotes a word unless it only holds safe characters.
func shellQuote(s string) string {
	safe := true
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._/-+", c)) {
			safe = false
			break
		}
	}
	if safe && s != "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// rPackages are the distribution packages of the R packages an R package's
// DESCRIPTION needs to build (detection records them as r-cran-NAME, see
// [RDependencies]): Debian packages CRAN as r-cran-NAME, lower case; Alpine packages
// none, so its plan installs R alone.
func rPackages(p atesor.Platform, det *atesor.Detection) []string {
	if p.PackageManager != "apt-get" {
		return nil
	}
	var out []string
	for _, d := range det.Dependencies {
		if strings.HasPrefix(d.Name, rPackagePrefix) {
			out = append(out, d.Name)
		}
	}
	return out
}

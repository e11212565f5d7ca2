package verify

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/internal/pkgtree"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
)

// execer runs a command in the sandbox: all the smoke runs need of it.
type execer interface {
	Exec(ctx context.Context, cmd atesor.Command) (atesor.CommandResult, error)
}

var _ execer = atesor.Sandbox(nil)

// smokeTimeout bounds each smoke run; a program still running then has started.
const smokeTimeout = 10 * time.Second

var loadFailure = regexp.MustCompile(`(?i)error while loading shared libraries|qemu: uncaught target signal|exec format error|cannot execute binary file`)

// smoke starts each primary executable of arts (stdin from /dev/null, no network, 10 s,
// in repoDir) and checks that each primary shared library's needed libraries resolve
// (ldd). It returns one problem per artifact that failed, named relative to repoDir.
func smoke(ctx context.Context, sb execer, repoDir string, arts []atesor.Artifact) []string {
	var problems []string
	// An uninstalled build's programs load its own shared libraries from the build tree
	// (libtool's .libs/ among them), as `make check` would.
	libPath := []string{"LD_LIBRARY_PATH=" + strings.Join(libraryDirs(arts), ":")}
	for _, a := range arts {
		if a.Role != atesor.ArtifactPrimary {
			continue
		}
		switch a.Kind {
		case atesor.KindExecutable:
			res, err := sb.Exec(ctx, atesor.Command{Line: shellwords.Quote(a.Path), Dir: repoDir, Timeout: smokeTimeout, Env: libPath})
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: smoke run could not start: %v", pkgtree.Rel(repoDir, a.Path), err))
				continue
			}
			p := smokeProblem(res)
			if crashedWithoutArguments(res) {
				// Many C programs read argv[1] without checking argc (ismrmrd's
				// read_timing_test, a CUPS filter): a crash with no arguments is how the
				// program treats its command line, not proof the port is broken. A port
				// that is (a bad relocation, a miscompiled start-up) crashes whatever it
				// is given, so it is started once more with --help.
				again, err := sb.Exec(ctx, atesor.Command{Line: shellwords.Quote(a.Path) + " --help", Dir: repoDir, Timeout: smokeTimeout, Env: libPath})
				if err == nil && smokeProblem(again) == "" {
					p = ""
				} else if err == nil {
					p += " (and with --help: " + smokeProblem(again) + ")"
				}
			}
			if p != "" {
				problems = append(problems, fmt.Sprintf("%s: smoke run failed: %s", pkgtree.Rel(repoDir, a.Path), p))
			}
		case atesor.KindSharedLibrary:
			if len(a.Needed) == 0 {
				continue
			}
			res, err := sb.Exec(ctx, atesor.Command{Line: "ldd " + shellwords.Quote(a.Path), Dir: repoDir, Timeout: time.Minute, Env: libPath})
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: ldd could not run: %v", pkgtree.Rel(repoDir, a.Path), err))
				continue
			}
			if strings.Contains(res.Output, "not found") {
				problems = append(problems, fmt.Sprintf("%s: needed libraries do not resolve: %s", pkgtree.Rel(repoDir, a.Path), firstMatch(res.Output, "not found")))
			}
		}
	}
	return problems
}

// libraryDirs lists the directories that hold the build's shared libraries.
func libraryDirs(arts []atesor.Artifact) []string {
	var dirs []string
	for _, a := range arts {
		if a.Kind == atesor.KindSharedLibrary && !slices.Contains(dirs, path.Dir(a.Path)) {
			dirs = append(dirs, path.Dir(a.Path))
		}
	}
	return dirs
}

// crashedWithoutArguments reports whether a smoke run with no arguments died of a
// memory fault (SIGSEGV, SIGBUS), the way a program that reads a missing argv[1] does;
// SIGILL (an instruction the CPU lacks) stays a failure whatever the arguments.
func crashedWithoutArguments(res atesor.CommandResult) bool {
	return !res.TimedOut && (res.Signal == "SIGSEGV" || res.Signal == "SIGBUS")
}

// smokeProblem says why a smoke run failed, or "" when the program loaded and ran
// (whatever its exit code; a timeout counts as started).
func smokeProblem(res atesor.CommandResult) string {
	if res.TimedOut {
		return ""
	}
	switch {
	case res.Signal == "SIGILL" || res.Signal == "SIGSEGV" || res.Signal == "SIGBUS":
		return "killed by " + res.Signal
	case loadFailure.MatchString(res.Output):
		return firstMatch(res.Output, loadFailure.FindString(res.Output))
	case res.ExitCode == 126 || res.ExitCode == 127:
		return fmt.Sprintf("exit %d (could not execute): %s", res.ExitCode, excerpt.FirstLine(res.Output))
	}
	return ""
}

var (
	secondaryDir = regexp.MustCompile(`(?i)/(tests?|examples?|samples?|demos?|bench|benchmarks?|tools|contrib|fuzz|fuzzing|fuzzers?)/`)
	// testProgram names a program that only tests the package (cJSON_test, test_foo,
	// fuzz_main): the directory rule misses them when they are built next to the
	// library, as out-of-tree CMake builds do.
	testProgram = regexp.MustCompile(`(?i)(^|[_-])(tests?|fuzz\w*|bench\w*)([_.-]|$)|^(tests?|check)[_-]`)
	// cargoOut is a directory of cargo's compiled crates of one profile
	// (target/release/deps/, target/<triple>/release/build/): deps/ holds every crate of
	// the build, the package's and its dependencies', build/ the build scripts.
	cargoOut = regexp.MustCompile(`/target/(?:[^/]+/)?(?:release|debug)/(deps|build)/`)
	// cargoCrate is a compiled crate in deps/: lib<crate>-<hash>.rlib.
	cargoCrate = regexp.MustCompile(`^lib(\w+)-[0-9a-f]{16}\.rlib$`)
)

// cargoSecondary reports whether a file of cargo's output directory p is not the
// package's own product: a build script (a program cargo runs while building), or a
// dependency's compiled crate, built from its distribution or registry sources, not
// from the package's (cargo names a crate with underscores for its hyphens).
func cargoSecondary(p, base, pkg string) bool {
	m := cargoOut.FindStringSubmatch(p)
	switch {
	case m == nil:
		return false
	case m[1] == "build":
		return true
	}
	c := cargoCrate.FindStringSubmatch(base)
	return c != nil && !strings.EqualFold(c[1], strings.ReplaceAll(pkg, "-", "_"))
}

// CurateByRules is the artifact curator's rule set, used as the pre-filter of the
// curator model and as its fallback: scratch paths are dropped; a library, or a file
// named like the package pkg, is primary; files under tests, examples, samples, demos,
// benchmarks, tools, contrib or fuzzing, and programs named as tests, fuzzers or
// benchmarks, are secondary; the rest is primary. Objects are secondary, and so are
// cargo's build scripts and the compiled crates of a cargo package's dependencies. The
// result is sorted by path.
func CurateByRules(arts []atesor.Artifact, pkg, repoDir string) []atesor.Artifact {
	var out []atesor.Artifact
	for _, a := range arts {
		p := "/" + pkgtree.Rel(repoDir, a.Path)
		if isNoisePath(p) {
			continue
		}
		base := path.Base(p)
		stem := strings.TrimPrefix(strings.SplitN(base, ".", 2)[0], "lib")
		switch {
		case a.Kind == atesor.KindObject || cargoSecondary(p, base, pkg):
			a.Role = atesor.ArtifactSecondary
		case a.Kind == atesor.KindSharedLibrary || a.Kind == atesor.KindStaticLibrary:
			a.Role = atesor.ArtifactPrimary
			if secondaryDir.MatchString(p) {
				a.Role = atesor.ArtifactSecondary
			}
		case strings.EqualFold(base, pkg) || strings.EqualFold(stem, pkg):
			a.Role = atesor.ArtifactPrimary
		case secondaryDir.MatchString(p) || testProgram.MatchString(base):
			a.Role = atesor.ArtifactSecondary
		default:
			a.Role = atesor.ArtifactPrimary
		}
		out = append(out, a)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// missingExpected lists the analysis' expected artifacts that no built file matches
// (by the start of its base name); none without an analysis.
func missingExpected(a *atesor.PackageAnalysis, arts []atesor.Artifact) []string {
	if a == nil {
		return nil
	}
	var missing []string
	for _, want := range a.ExpectedArtifacts {
		w := strings.TrimSuffix(path.Base(want), path.Ext(want))
		found := false
		for _, art := range arts {
			if strings.HasPrefix(path.Base(art.Path), w) {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, want)
		}
	}
	return missing
}

// firstMatch returns the first line of out that contains needle, trimmed, or needle.
func firstMatch(out, needle string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, needle) {
			return strings.TrimSpace(l)
		}
	}
	return needle
}

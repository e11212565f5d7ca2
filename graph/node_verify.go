package graph

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/verify"
)

// smokeTimeout bounds each smoke run; a program still running then has started.
const smokeTimeout = 10 * time.Second

// verifyNode decides, strictly, whether the port is proven: the build succeeded, at least
// one primary artifact exists, every primary artifact is a riscv64 ELF for the profile's
// ABI and loader produced by this build, no fix wrote a stub, and each primary program
// starts and each primary library's needed libraries resolve.
func (r *run) verifyNode(ctx context.Context, s *atesor.State) error {
	s.Verified = false
	arts, err := verify.ScanArtifacts(ctx, r.sb, s.RepoDir, r.log)
	if err != nil {
		return fmt.Errorf("scan artifacts: %w", err)
	}
	var problems []string
	shipped, shippedSHA := map[string]bool{}, map[string]bool{}
	for _, e := range s.SourceELFs {
		shipped[e] = true
		shippedSHA[e[strings.LastIndexByte(e, '@')+1:]] = true
	}
	var built []atesor.Artifact
	for _, a := range arts {
		if shipped[a.Path+"@"+a.SHA256] || inStage(s.RepoDir, a.Path) {
			continue // shipped with the source, not produced by this build; or staged
		}
		built = append(built, a)
	}
	built = r.chooseArtifacts(ctx, s, curateByRules(built, s.RepoName, s.RepoDir), shippedSHA)
	s.Artifacts = built
	primaries := 0
	for i := range built {
		a := &built[i]
		if a.Role != atesor.ArtifactPrimary {
			continue
		}
		primaries++
		if err := verify.CheckArtifact(*a, s.Platform); err != nil {
			a.Problem = err.Error()
			problems = append(problems, fmt.Sprintf("%s: %v", rel(s.RepoDir, a.Path), err))
		}
	}
	if primaries == 0 {
		problems = append(problems, "no primary artifact: the build produced no riscv64 program or library outside tests and build scratch directories")
	}
	for _, f := range s.StubFiles {
		problems = append(problems, fmt.Sprintf("%s: a fix wrote a stub (a new source file defining an entry point, or a build file that compiles nothing); fix the real sources instead", f))
	}
	if len(problems) == 0 {
		problems = append(problems, r.smoke(ctx, s, built)...)
	}
	if len(problems) == 0 {
		problems = append(problems, r.exportProblems(ctx, s, built)...)
	}
	s.MissingArtifacts = missingExpected(s.Analysis, built)
	if len(problems) > 0 {
		s.VerifyProblems = problems
		s.Status = atesor.StatusNotVerified
		s.Record(atesor.ErrorRecord{Node: NodeVerify, Message: "verification failed: " + strings.Join(problems, "; "),
			Category: atesor.CategoryArchitecture})
		r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeVerify, Line: "not verified", Err: problems[0]})
		return nil
	}
	s.VerifyProblems = nil
	s.Verified = true
	s.Status = atesor.StatusVerified
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeVerify, Line: fmt.Sprintf("verified: %d primary artifacts", primaries)})
	return nil
}

var loadFailure = regexp.MustCompile(`(?i)error while loading shared libraries|qemu: uncaught target signal|exec format error|cannot execute binary file`)

// smoke starts each primary executable (stdin from /dev/null, no network, 10 s) and
// checks that each primary shared library's needed libraries resolve.
func (r *run) smoke(ctx context.Context, s *atesor.State, arts []atesor.Artifact) []string {
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
			res, err := r.sb.Exec(ctx, atesor.Command{Line: shellQuote(a.Path), Dir: s.RepoDir, Timeout: smokeTimeout, Env: libPath})
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: smoke run could not start: %v", rel(s.RepoDir, a.Path), err))
				continue
			}
			if p := smokeProblem(res); p != "" {
				problems = append(problems, fmt.Sprintf("%s: smoke run failed: %s", rel(s.RepoDir, a.Path), p))
			}
		case atesor.KindSharedLibrary:
			if len(a.Needed) == 0 {
				continue
			}
			res, err := r.sb.Exec(ctx, atesor.Command{Line: "ldd " + shellQuote(a.Path), Dir: s.RepoDir, Timeout: time.Minute, Env: libPath})
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: ldd could not run: %v", rel(s.RepoDir, a.Path), err))
				continue
			}
			if strings.Contains(res.Output, "not found") {
				problems = append(problems, fmt.Sprintf("%s: needed libraries do not resolve: %s", rel(s.RepoDir, a.Path), firstMatch(res.Output, "not found")))
			}
		}
	}
	return problems
}

// libraryDirs lists the directories that hold the build's shared libraries.
func libraryDirs(arts []atesor.Artifact) []string {
	var dirs []string
	for _, a := range arts {
		if a.Kind == atesor.KindSharedLibrary && !contains(dirs, path.Dir(a.Path)) {
			dirs = append(dirs, path.Dir(a.Path))
		}
	}
	return dirs
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
		return fmt.Sprintf("exit %d (could not execute): %s", res.ExitCode, firstLine(res.Output))
	}
	return ""
}

var (
	secondaryDir = regexp.MustCompile(`(?i)/(tests?|examples?|samples?|demos?|bench|benchmarks?|tools|contrib|fuzz|fuzzing|fuzzers?)/`)
	// testProgram names a program that only tests the package (cJSON_test, test_foo,
	// fuzz_main): DESIGN's directory rule misses them when they are built next to the
	// library, as out-of-tree CMake builds do.
	testProgram = regexp.MustCompile(`(?i)(^|[_-])(tests?|fuzz\w*|bench\w*)([_.-]|$)|^(tests?|check)[_-]`)
)

// curateByRules is the artifact curator's rule set, used as the pre-filter of the
// curator model and as its fallback: scratch paths are dropped; a library, or a file
// named like the package, is primary; files under tests, examples, samples, demos,
// benchmarks, tools, contrib or fuzzing, and programs named as tests, fuzzers or
// benchmarks, are secondary; the rest is primary. Objects are secondary.
func curateByRules(arts []atesor.Artifact, pkg, repoDir string) []atesor.Artifact {
	var out []atesor.Artifact
	for _, a := range arts {
		p := "/" + rel(repoDir, a.Path)
		if verify.IsNoisePath(p) {
			continue
		}
		base := path.Base(p)
		stem := strings.TrimPrefix(strings.SplitN(base, ".", 2)[0], "lib")
		switch {
		case a.Kind == atesor.KindObject:
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

// missingExpected lists the analysis' expected artifacts that no built file matches.
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

func rel(root, p string) string {
	return strings.TrimPrefix(strings.TrimPrefix(p, root), "/")
}

func firstMatch(out, needle string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, needle) {
			return strings.TrimSpace(l)
		}
	}
	return needle
}

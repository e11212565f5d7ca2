package pkgtest

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/testresult"
)

// rerunSignalled reruns once the tests of a command that died by a signal: only those
// tests when the framework can select them, else the whole command. A test the rerun
// passes is cleared; one whose fault the sandbox's rules call the emulator's is an
// emulator fault. Neither stays among the failures.
func (r *runner) rerunSignalled(ctx context.Context, tr *testRun, line string, first atesor.CommandResult, p testresult.Result, deadline time.Time) testresult.Result {
	again, selective := testresult.RerunCommand(p.Counts.Framework, line, p.Signalled)
	if !selective {
		again = line
	}
	r.emit(atesor.Event{Kind: atesor.EventInfo, Phase: Phase, Line: fmt.Sprintf("%d tests died by a signal (%s); rerunning once", len(p.Signalled), strings.Join(p.Signalled, ", "))})
	cr, ok := r.execTest(ctx, tr, again, deadline)
	if !ok || cr.TimedOut {
		return p
	}
	rp := testresult.Parse(cr.Output)
	// A name still fails when the rerun failed it, or a test inside it (a Go package,
	// a cargo test binary, a TAP file).
	stillFailing := func(n string) bool {
		if rp.Counts == nil {
			return true
		}
		for _, f := range rp.Counts.FailedTests {
			if within(f, n) {
				return true
			}
		}
		return rp.Counts.Failed > len(rp.Counts.FailedTests) // failures it could not name
	}
	emulator := sandbox.ClassifyFault(firstFault(first), cr) == sandbox.FaultInfra
	var cleared, faults []string
	for _, n := range p.Signalled {
		switch {
		case cr.OK() || (rp.Counts != nil && !rp.NoTests && !stillFailing(n) && (selective || rp.Counts.Ran > 0)):
			cleared = append(cleared, n)
		case emulator:
			faults = append(faults, n)
		}
	}
	tr.res.ClearedByRerun = append(tr.res.ClearedByRerun, cleared...)
	tr.res.EmulatorFaults = append(tr.res.EmulatorFaults, faults...)
	apart := append(cleared, faults...)
	if len(apart) == 0 {
		return p
	}
	// Take the names set apart, and the tests inside them, out of the failures.
	c := *p.Counts
	c.FailedTests = nil
	removed := 0
	matched := map[string]bool{}
	for _, f := range p.Counts.FailedTests {
		inside := false
		for _, n := range apart {
			if within(f, n) {
				inside, matched[n] = true, true
			}
		}
		if inside {
			removed++
		} else {
			c.FailedTests = append(c.FailedTests, f)
		}
	}
	for _, n := range apart {
		if !matched[n] {
			removed++ // a crashed binary or file counted as one failure
		}
	}
	removed = min(removed, c.Failed)
	c.Failed -= removed
	c.Ran -= removed
	p.Counts = &c
	return p
}

// within reports whether failed test f is n or a test inside n (a Go package, a cargo
// test binary, a TAP file).
func within(f, n string) bool {
	return f == n || strings.HasPrefix(f, n+".") || strings.HasPrefix(f, n+"/") || strings.HasPrefix(f, n+"::")
}

// firstFault makes sure the first run counts as a fault for the sandbox's rules: the
// test framework caught the signal, so the command itself exited normally.
func firstFault(cr atesor.CommandResult) atesor.CommandResult {
	if cr.Signal == "" && !sandbox.IsEmulatorFault(cr) {
		cr.Signal = "SIGSEGV"
	}
	return cr
}

// testCandidates are the test commands to try after those that ran no test: with
// CMake, a reconfigure that switches the gated tests on, then ctest; the top-level
// Makefile's check, test or tests target.
func (r *runner) testCandidates(ctx context.Context, tried []string) []testCandidate {
	var out []testCandidate
	if c, ok := r.programsCandidate(); ok {
		out = append(out, c) // built already: cheaper than a reconfigure and rebuild
	}
	isCMake := r.su.BuildSystem == atesor.BuildCMake
	for _, c := range tried {
		isCMake = isCMake || strings.Contains(c, "ctest")
	}
	if isCMake {
		lists := r.sandboxText(ctx, "find . -maxdepth 3 -name CMakeLists.txt -not -path './build*' -not -path './_deps/*' -exec cat {} +")
		if opts := testresult.CMakeTestOptions(lists); len(opts) > 0 {
			dir := ctestDir(tried)
			var defs []string
			for _, o := range opts {
				defs = append(defs, "-D"+o+"=ON")
			}
			out = append(out, testCandidate{
				prep: []string{"cmake -S . -B " + dir + " " + strings.Join(defs, " "), "cmake --build " + dir + " -j$(nproc)"},
				cmds: []string{"ctest --test-dir " + dir + " --output-on-failure"},
				why:  "the default configuration registered no tests; reconfiguring with " + strings.Join(defs, " "),
			})
		}
	}
	mk := r.sandboxText(ctx, "cat GNUmakefile makefile Makefile 2>/dev/null")
	for _, t := range testresult.MakeTestTargets(mk) {
		line := "make " + t
		if !slices.Contains(tried, line) {
			out = append(out, testCandidate{cmds: []string{line}, why: "the Makefile's " + t + " target"})
		}
	}
	return out
}

// programsCandidate runs the suite's unregistered test programs one by one, each from
// its own directory, where ctest runs a test by default; paths outside the
// repository are left out.
func (r *runner) programsCandidate() (testCandidate, bool) {
	var cmds []string
	for _, p := range r.su.Programs {
		rel, ok := strings.CutPrefix(path.Clean(p), strings.TrimSuffix(r.su.Dir, "/")+"/")
		if !ok || rel == "" || strings.HasPrefix(rel, "../") {
			continue
		}
		line := "./" + shellwords.Quote(path.Base(rel))
		if d := path.Dir(rel); d != "." {
			line = "cd " + shellwords.Quote(d) + " && " + line
		}
		if !slices.Contains(cmds, line) {
			cmds = append(cmds, line)
		}
	}
	if len(cmds) == 0 {
		return testCandidate{}, false
	}
	return testCandidate{cmds: cmds, why: "the test programs the build built and registered with no test command, run one by one"}, true
}

// sandboxText runs a read-only command in the repository and returns its output, or ""
// when it fails.
func (r *runner) sandboxText(ctx context.Context, line string) string {
	cr, err := r.sb.Exec(ctx, atesor.Command{Line: line, Dir: r.su.Dir, Timeout: time.Minute})
	if err != nil {
		return ""
	}
	return cr.Stdout
}

// ctestTestDir finds the build directory of a ctest command: --test-dir DIR, or the
// directory a "cd DIR &&" entered.
var ctestTestDir = regexp.MustCompile(`--test-dir[ =](\S+)|cd (\S+) && ctest`)

// ctestDir is the build directory the tried ctest commands used, "build" by default.
func ctestDir(tried []string) string {
	for _, c := range tried {
		if m := ctestTestDir.FindStringSubmatch(c); m != nil {
			return path.Clean(m[1] + m[2])
		}
	}
	return "build"
}

package graph

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/testresult"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// defaultTests are the build system's own test commands, used when the plan had none.
// go test runs with -json so that its tests are counted.
var defaultTests = map[atesor.BuildSystem][]string{
	atesor.BuildCMake:     {"ctest --test-dir build --output-on-failure"},
	atesor.BuildAutotools: {"make check"},
	atesor.BuildMake:      {"make check"},
	atesor.BuildMeson:     {"meson test -C builddir"},
	atesor.BuildGo:        {"go test -json ./..."},
	atesor.BuildCargo:     {"cargo test --release"},
}

// testCandidate is one way to run the package's tests: commands run in order.
type testCandidate struct {
	cmds []string
	// prep are commands that must succeed first (a reconfigure and build with the
	// tests switched on); their output is kept but not parsed as test output.
	prep []string
	why  string
}

// testRun gathers what the test commands of one candidate reported.
type testRun struct {
	res     *atesor.TestResult
	out     strings.Builder
	counted bool // some command's output was counted
	unknown bool // some command's framework was unknown
	noTests bool // every command ran no test
	stop    bool // out of time, or refused: try no further candidate
}

// runTests runs the package's tests (the commands the scout stripped, else the build
// system's default) with no network and a bounded time, and counts them. A candidate
// that runs no test is not a pass: the next one the build system offers is tried (the
// tests switched on by a CMake reconfigure, the Makefile's check or test target).
// Failing tests are reported; whether they un-prove the port is finishNode's call.
func (r *run) runTests(ctx context.Context, s *atesor.State) *atesor.TestResult {
	cmds := s.TestCommands
	if len(cmds) == 0 && s.Detection != nil {
		cmds = defaultTests[s.Detection.BuildSystem]
	}
	if len(cmds) == 0 {
		return nil
	}
	cmds = withGoJSON(withPlanGoTags(cmds, s.Plan))
	deadline := time.Now().Add(s.Request.WithDefaults().TestTimeout)
	r.emit(atesor.Event{Kind: atesor.EventPhase, Node: NodeFinish, Phase: "tests"})
	var (
		tried   []string
		noTests []string
		outputs strings.Builder
		last    *testRun
	)
	queue := []testCandidate{{cmds: cmds}}
	extended := false
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		tr := r.runBoundedCandidate(ctx, s, c, deadline)
		outputs.WriteString(tr.out.String())
		tried = append(tried, c.cmds...)
		last = tr
		if !tr.noTests || tr.stop {
			break
		}
		noTests = append(noTests, strings.Join(append(slices.Clone(c.prep), c.cmds...), " && "))
		r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeFinish, Phase: "tests", Line: "no tests ran: " + strings.Join(c.cmds, " && ") + "; trying the next test command"})
		if !extended {
			extended = true
			queue = append(queue, r.testCandidates(ctx, s, tried)...)
		}
	}
	res := last.res
	res.NoTestsFrom = noTests
	if last.noTests {
		res.NoTests, res.Passed = true, false
		res.Counts = nil
		res.Note = "no tests ran: " + strings.Join(noTests, "; ")
	}
	res.Output = tail(outputs.String(), 4000)
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeFinish, Phase: "tests", Line: "package tests: " + res.Summary()})
	return res
}

// runCandidate runs one candidate's commands, parses each one's output, reruns once
// the tests that died by a signal, and adds the counts up.
func (r *run) runCandidate(ctx context.Context, s *atesor.State, c testCandidate, deadline time.Time) *testRun {
	tr := &testRun{res: &atesor.TestResult{Commands: c.cmds, Passed: true}, noTests: true}
	res := tr.res
	if c.why != "" {
		tr.out.WriteString("# " + c.why + "\n")
	}
	for _, p := range c.prep {
		cr, ok := r.execTest(ctx, s, tr, p, deadline)
		if !ok || !cr.OK() {
			tr.out.WriteString("the preparation failed: no tests from this candidate\n")
			if cr.TimedOut {
				tr.stop = true
			}
			return tr
		}
	}
	for _, line := range c.cmds {
		cr, ok := r.execTest(ctx, s, tr, line, deadline)
		if !ok {
			res.Passed = false
			tr.noTests = false
			return tr
		}
		if cr.TimedOut {
			res.TimedOut, res.Passed, tr.stop = true, false, true
		}
		p := testresult.Parse(cr.Output)
		if len(p.Signalled) > 0 && !cr.OK() && !cr.TimedOut {
			p = r.rerunSignalled(ctx, s, tr, line, cr, p, deadline)
		}
		r.addParsed(tr, line, cr, p)
		if tr.stop {
			break
		}
	}
	if tr.counted && res.Counts.Ran > 0 {
		tr.noTests = false
	}
	if tr.unknown {
		tr.noTests = false // an unknown framework's exit code is the verdict
		if !tr.counted {
			res.Note = testresult.NoteUnknown
		} else {
			res.Note = "some test commands' framework is unknown: their exit code counts, their tests do not"
		}
	}
	if tr.noTests {
		res.Passed = false
	} else if tr.counted && res.Counts.Failed > 0 {
		res.Passed = false
	}
	return tr
}

// execTest checks and runs one test command. ok is false when it did not run: refused
// by the safety rules, out of time, or the sandbox failed.
func (r *run) execTest(ctx context.Context, s *atesor.State, tr *testRun, line string, deadline time.Time) (atesor.CommandResult, bool) {
	left := time.Until(deadline)
	if left <= 0 {
		tr.res.TimedOut, tr.stop = true, true
		return atesor.CommandResult{TimedOut: true}, false
	}
	if err := validate.DenyRules(line); err != nil {
		tr.out.WriteString("$ " + line + "\nrefused by the command safety rules: " + err.Error() + "\n")
		tr.stop = true
		return atesor.CommandResult{}, false
	}
	r.emit(atesor.Event{Kind: atesor.EventCommand, Node: NodeFinish, Phase: "tests", Line: line})
	lw := &lineWriter{r: r, node: NodeFinish, phase: "tests"}
	cr, err := r.sb.Exec(ctx, atesor.Command{Line: line, Dir: s.RepoDir, Timeout: left, Stdout: lw, Stderr: lw, Env: goToolchainEnv(s)})
	tr.res.Duration += cr.Duration
	tr.out.WriteString("$ " + line + "\n" + cr.Output + "\n")
	if err != nil {
		tr.out.WriteString(err.Error() + "\n")
		tr.stop = true
		return cr, false
	}
	return cr, true
}

// addParsed adds one command's parsed output to the candidate's result.
func (r *run) addParsed(tr *testRun, line string, cr atesor.CommandResult, p testresult.Result) {
	res := tr.res
	switch {
	case p.Counts == nil:
		tr.unknown, tr.noTests = true, false
		if !cr.OK() {
			res.Passed = false
			if res.ExitCode == 0 {
				res.ExitCode = cr.ExitCode
			}
		}
		return
	case p.NoTests:
		return // this command ran none; its exit code says nothing about tests
	}
	tr.counted = true
	if res.Counts == nil {
		res.Counts = &atesor.TestCounts{Framework: p.Counts.Framework}
	} else if !strings.Contains(res.Counts.Framework, p.Counts.Framework) {
		res.Counts.Framework += "+" + p.Counts.Framework
	}
	c := res.Counts
	c.Ran += p.Counts.Ran
	c.Passed += p.Counts.Passed
	c.Failed += p.Counts.Failed
	c.Skipped += p.Counts.Skipped
	c.FailedTests = append(c.FailedTests, p.Counts.FailedTests...)
	if len(c.FailedTests) > testresult.MaxFailedNames {
		c.FailedTests = c.FailedTests[:testresult.MaxFailedNames]
	}
	// A command that failed although all its counted tests passed (a test program that
	// did not build, a crash outside any test) is a failure too, unless the rerun
	// cleared what failed.
	if !cr.OK() && p.Counts.Failed == 0 && !cr.TimedOut && len(res.ClearedByRerun)+len(res.EmulatorFaults) == 0 {
		res.Passed = false
		if res.ExitCode == 0 {
			res.ExitCode = cr.ExitCode
		}
		r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeFinish, Phase: "tests", Line: fmt.Sprintf("%s exited %d although no counted test failed", line, cr.ExitCode)})
	}
	if p.Counts.Failed > 0 && res.ExitCode == 0 {
		res.ExitCode = cr.ExitCode
	}
}

// rerunSignalled reruns once the tests of a command that died by a signal: only those
// tests when the framework can select them, else the whole command. A test the rerun
// passes is cleared; one whose fault the sandbox's rules call the emulator's is an
// emulator fault. Neither stays among the failures.
func (r *run) rerunSignalled(ctx context.Context, s *atesor.State, tr *testRun, line string, first atesor.CommandResult, p testresult.Result, deadline time.Time) testresult.Result {
	again, selective := testresult.RerunCommand(p.Counts.Framework, line, p.Signalled)
	if !selective {
		again = line
	}
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeFinish, Phase: "tests", Line: fmt.Sprintf("%d tests died by a signal (%s); rerunning once", len(p.Signalled), strings.Join(p.Signalled, ", "))})
	cr, ok := r.execTest(ctx, s, tr, again, deadline)
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
func (r *run) testCandidates(ctx context.Context, s *atesor.State, tried []string) []testCandidate {
	var out []testCandidate
	isCMake := s.Detection != nil && s.Detection.BuildSystem == atesor.BuildCMake
	for _, c := range tried {
		isCMake = isCMake || strings.Contains(c, "ctest")
	}
	if isCMake {
		lists := r.sandboxText(ctx, s, "find . -maxdepth 3 -name CMakeLists.txt -not -path './build*' -not -path './_deps/*' -exec cat {} +")
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
	mk := r.sandboxText(ctx, s, "cat GNUmakefile makefile Makefile 2>/dev/null")
	for _, t := range testresult.MakeTestTargets(mk) {
		line := "make " + t
		if !slices.Contains(tried, line) {
			out = append(out, testCandidate{cmds: []string{line}, why: "the Makefile's " + t + " target"})
		}
	}
	return out
}

// sandboxText runs a read-only command in the repository and returns its output, or ""
// when it fails.
func (r *run) sandboxText(ctx context.Context, s *atesor.State, line string) string {
	cr, err := r.sb.Exec(ctx, atesor.Command{Line: line, Dir: s.RepoDir, Timeout: time.Minute})
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

package pkgtest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/eventline"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/testresult"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// Execer runs a command in the sandbox; it is all of the sandbox the tests use.
type Execer interface {
	Exec(ctx context.Context, cmd atesor.Command) (atesor.CommandResult, error)
}

var _ Execer = atesor.Sandbox(nil)

// Phase is the phase of every event [Run] emits. The events carry no node: the caller
// that runs the tests as part of a node names it.
const Phase = "tests"

// Suite is what [Run] needs to run a package's tests.
type Suite struct {
	// Commands are the test commands, run in order in Dir (see [DefaultCommands]);
	// go test commands get -json so that their tests are counted.
	Commands []string
	// BuildSystem is the detected build system; with CMake, a suite that registered no
	// test is configured again with the tests switched on.
	BuildSystem atesor.BuildSystem
	// Dir is the package's repository in the sandbox.
	Dir string
	// Env is added to every test command's environment (the Go toolchain's PATH).
	Env []string
	// Timeout bounds all test commands together, reruns and fallbacks included.
	Timeout time.Duration
	// Programs are test programs (sandbox paths below Dir) that the build built and
	// no test command registers, as CMake's file API found them for a header-only
	// library whose ctest lists none: when the commands run no test, each is run from
	// its own directory, before the other fallbacks.
	Programs []string
}

// defaultTests are the build system's own test commands, used when the plan had none.
// go test runs with -json so that its tests are counted.
var defaultTests = map[atesor.BuildSystem][]string{
	atesor.BuildCMake:     {"ctest --test-dir build --output-on-failure"},
	atesor.BuildAutotools: {"make check"},
	atesor.BuildMake:      {"make check"},
	atesor.BuildMeson:     {"meson test -C builddir"},
	atesor.BuildGo:        {"go test -json ./..."},
	atesor.BuildCargo:     {"cargo test --release"},
	atesor.BuildPerl:      {"make test"},
}

// DefaultCommands are the build system's own test commands, for a package whose plan
// named none; nil when the build system has none.
func DefaultCommands(bs atesor.BuildSystem) []string {
	return slices.Clone(defaultTests[bs])
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

// runner runs one suite.
type runner struct {
	sb   Execer
	emit func(atesor.Event)
	su   Suite
}

// Run runs the package's tests with no network and a bounded time, and counts them; it
// returns nil when su has no command. A candidate that runs no test is not a pass: the
// next one the build system offers is tried (the tests switched on by a CMake
// reconfigure, the Makefile's check or test target). Failing tests are reported;
// whether they un-prove the port is [Judge]'s call. The time bound is on the wall
// clock, since it bounds real commands. emit may be nil.
func Run(ctx context.Context, sb Execer, emit func(atesor.Event), su Suite) *atesor.TestResult {
	if len(su.Commands) == 0 {
		return nil
	}
	if emit == nil {
		emit = func(atesor.Event) {}
	}
	r := &runner{sb: sb, emit: emit, su: su}
	cmds, dropped := withoutGoSanitizers(withGoJSON(su.Commands))
	if dropped != "" {
		emit(atesor.Event{Kind: atesor.EventInfo, Phase: Phase, Line: dropped})
	}
	deadline := time.Now().Add(su.Timeout)
	r.emit(atesor.Event{Kind: atesor.EventPhase, Phase: Phase})
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
		tr := r.runBoundedCandidate(ctx, c, deadline)
		outputs.WriteString(tr.out.String())
		tried = append(tried, c.cmds...)
		last = tr
		if !tr.noTests || tr.stop {
			break
		}
		noTests = append(noTests, strings.Join(append(slices.Clone(c.prep), c.cmds...), " && "))
		r.emit(atesor.Event{Kind: atesor.EventInfo, Phase: Phase, Line: "no tests ran: " + strings.Join(c.cmds, " && ") + "; trying the next test command"})
		if !extended {
			extended = true
			queue = append(queue, r.testCandidates(ctx, tried)...)
		}
	}
	res := last.res
	res.NoTestsFrom = noTests
	if last.noTests {
		res.NoTests, res.Passed = true, false
		res.Counts = nil
		res.Note = "no tests ran: " + strings.Join(noTests, "; ")
	}
	if dropped != "" {
		res.Note = joinNote(res.Note, dropped)
	}
	res.Output = excerpt.Tail(outputs.String(), 4000)
	r.emit(atesor.Event{Kind: atesor.EventInfo, Phase: Phase, Line: "package tests: " + res.Summary()})
	return res
}

// runCandidate runs one candidate's commands, parses each one's output, reruns once
// the tests that died by a signal, and adds the counts up.
func (r *runner) runCandidate(ctx context.Context, c testCandidate, deadline time.Time) *testRun {
	tr := &testRun{res: &atesor.TestResult{Commands: c.cmds, Passed: true}, noTests: true}
	res := tr.res
	if c.why != "" {
		tr.out.WriteString("# " + c.why + "\n")
	}
	for _, p := range c.prep {
		cr, ok := r.execTest(ctx, tr, p, deadline)
		if !ok || !cr.OK() {
			tr.out.WriteString("the preparation failed: no tests from this candidate\n")
			if cr.TimedOut {
				tr.stop = true
			}
			return tr
		}
	}
	for _, line := range c.cmds {
		cr, ok := r.execTest(ctx, tr, line, deadline)
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
			p = r.rerunSignalled(ctx, tr, line, cr, p, deadline)
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
func (r *runner) execTest(ctx context.Context, tr *testRun, line string, deadline time.Time) (atesor.CommandResult, bool) {
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
	r.emit(atesor.Event{Kind: atesor.EventCommand, Phase: Phase, Line: line})
	lw := &eventline.Writer{Emit: r.emit, Phase: Phase}
	cr, err := r.sb.Exec(ctx, atesor.Command{Line: line, Dir: r.su.Dir, Timeout: left, Stdout: lw, Stderr: lw, Env: r.su.Env})
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
func (r *runner) addParsed(tr *testRun, line string, cr atesor.CommandResult, p testresult.Result) {
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
		r.emit(atesor.Event{Kind: atesor.EventInfo, Phase: Phase, Line: fmt.Sprintf("%s exited %d although no counted test failed", line, cr.ExitCode)})
	}
	if p.Counts.Failed > 0 && res.ExitCode == 0 {
		res.ExitCode = cr.ExitCode
	}
}

package graph

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// parallelPlan is a scout plan whose build runs make with four jobs.
const parallelPlan = `{"phases": [{"name": "build", "commands": ["make -j4"]}]}`

// failsLine scripts one failure of exactly line.
func (h *harness) failsLine(line, output string) {
	h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return c.Line == line }, Times: 1,
		Result: sandboxtest.Fail(2, output)})
}

func (h *harness) parallelPlan() {
	h.prov.Queue(atesor.RolePlanner, `{"purpose": "sums numbers", "build_system": {"type": "make", "confidence": 0.9, "reasoning": "Makefile"}, "dependencies": [], "needs_custom_plan": true}`)
	h.prov.Queue(atesor.RoleScout, parallelPlan, parallelPlan)
}

func TestParallelBuildWithoutDiagnosticIsRerunSerially(t *testing.T) {
	h := newHarness(t, true)
	h.parallelPlan()
	// The parallel log names no diagnostic, only make's failure lines; the serial rerun does.
	h.failsLine("make -j4", "cc -O2 -m64 -Wall -c -o vecsum.o vecsum.c\nmake: *** [Makefile:17: vecsum.o] Error 1\nmake: *** Waiting for unfinished jobs....")
	h.failsLine("make -j1", m64Error)
	h.builds(0, "riscv64-glibc-hello")
	h.prov.Queue(atesor.RoleFixer, fixAnswer(`sed -i 's/ -m64//' Makefile`))
	res := h.run()
	if !res.Verified {
		t.Fatalf("status %s (%s)", res.Status, res.Reason)
	}
	st := h.state()
	if st.Attempts != 1 {
		t.Errorf("attempts = %d, want 1: the serial rerun is not an attempt", st.Attempts)
	}
	if len(st.Errors) == 0 {
		t.Fatal("no error recorded")
	}
	e := st.Errors[0]
	if first := excerpt.FirstLine(e.Message); first != "cc: error: unrecognized command-line option '-m64'" {
		t.Errorf("error first line = %q", first)
	}
	if e.Command != "make -j4" || e.Category != atesor.CategoryArchitecture || !strings.Contains(e.Message, "serial rerun for evidence: `make -j1`") {
		t.Errorf("error record = %+v", e)
	}
	fixer := h.promptsOf(atesor.RoleFixer)
	if len(fixer) != 1 || !strings.Contains(fixer[0], "unrecognized command-line option '-m64'") {
		t.Errorf("the fixer did not get the serial rerun's error")
	}
	if len(st.FixAttempts) != 1 || st.FixAttempts[0].Error != "cc: error: unrecognized command-line option '-m64'" {
		t.Errorf("fix attempts = %+v", st.FixAttempts)
	}
	log, err := os.ReadFile(filepath.Join(h.out, "vecsum_build.log"))
	if err != nil || !strings.Contains(string(log), "$ make -j1    # serial rerun for evidence, not an attempt") {
		t.Errorf("the build log does not keep the serial rerun apart: %v\n%s", err, log)
	}
	if slices.Contains(st.ExecutedCommands, "make -j1") {
		t.Error("the serial rerun entered the executed commands of the recipe")
	}
}

func TestParallelRaceIsNamedAndRepaired(t *testing.T) {
	h := newHarness(t, false) // offline: the scripted repairs answer
	plan := "make -j$(nproc)"
	h.failsLine(plan, "make: *** [Makefile:9: libvecsum.a] Error 1\nmake: *** Waiting for unfinished jobs....")
	h.builds(0, "riscv64-glibc-hello") // the serial rerun, and every build after it, succeeds
	res := h.run(WithPackageFinder(mapFinder{}))
	st := h.state()
	if len(st.Errors) == 0 {
		t.Fatal("no error recorded")
	}
	want := "parallel build race: `make -j$(nproc)` failed and its serial rerun `make -j1` succeeded"
	if first := excerpt.FirstLine(st.Errors[0].Message); first != want {
		t.Errorf("error first line = %q, want %q", first, want)
	}
	// The scripted race repair takes the named race: the phase runs serially from then on.
	if len(st.FixAttempts) != 1 || st.FixAttempts[0].Rule != "parallel-make-race" || st.FixAttempts[0].Plan == nil {
		t.Fatalf("fix attempts = %+v", st.FixAttempts)
	}
	if !res.Verified || !slices.Contains(st.ExecutedCommands, "make -j1") {
		t.Errorf("status %s (%s), executed %q", res.Status, res.Reason, st.ExecutedCommands)
	}
}

func TestStrongDiagnosticNeedsNoRerun(t *testing.T) {
	h := newHarness(t, true)
	h.parallelPlan()
	h.failsLine("make -j4", m64Error)
	h.builds(0, "riscv64-glibc-hello")
	h.prov.Queue(atesor.RoleFixer, fixAnswer(`sed -i 's/ -m64//' Makefile`))
	h.run()
	if slices.Contains(h.sb.Lines(), "make -j1") {
		t.Errorf("a log with a strong diagnostic was rerun serially: %q", h.sb.Lines())
	}
}

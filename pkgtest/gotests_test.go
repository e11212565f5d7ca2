package pkgtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

func TestWithGoTestFlags(t *testing.T) {
	in := []string{"go test -json ./...", "cd m && GOTOOLCHAIN=auto go test -json -tags=purego ./...", "go test ./x",
		"go test -json -timeout=1h ./...", "make check", "echo go tester"}
	want := []string{"go test -json -timeout=5m0s ./...", "cd m && GOTOOLCHAIN=auto go test -json -timeout=5m0s -tags=purego ./...",
		"go test -timeout=5m0s ./x", "go test -json -timeout=1h ./...", "make check", "echo go tester"}
	if d := cmp.Diff(want, withGoTestFlags(in, "-timeout=5m0s")); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestGoSuiteOverTheBoundRunsShort: a package hits its per-package timeout (half the
// bound), so the suite runs again with -short, and the result says so.
func TestGoSuiteOverTheBoundRunsShort(t *testing.T) {
	su, sb := suiteOver(t, atesor.BuildGo)
	su.Commands = []string{"go test ./..."}
	sb.OnPrefix("go test -json -timeout=30s ./...", sandboxtest.Fail(1, realOutput(t, "go-json-timeout.txt")))
	sb.OnPrefix("go test -json -short -timeout=", sandboxtest.OK(realOutput(t, "go-json-short.txt")))
	res := Run(context.Background(), sb, nil, *su)
	if !res.Short || !res.Passed || res.Counts == nil || res.Counts.Ran != 1 || res.Counts.Skipped != 1 {
		t.Fatalf("short %t passed %t counts %+v note %q", res.Short, res.Passed, res.Counts, res.Note)
	}
	if !strings.HasPrefix(res.Commands[0], "go test -json -short -timeout=") {
		t.Errorf("commands %q", res.Commands)
	}
	if !strings.Contains(res.Note, "-short") || !strings.Contains(res.Note, "30s per package") {
		t.Errorf("note %q does not report the -short run", res.Note)
	}
	if !strings.Contains(res.Output, "running the suite with -short") {
		t.Errorf("the output does not say why -short ran: %q", res.Output)
	}
}

// TestGoSuiteWithinTheBoundRunsOnce: a suite that finishes in time runs once, in full.
func TestGoSuiteWithinTheBoundRunsOnce(t *testing.T) {
	su, sb := suiteOver(t, atesor.BuildGo)
	su.Commands = []string{"go test ./..."}
	sb.OnPrefix("go test -json -timeout=30s ./...", sandboxtest.OK(realOutput(t, "go-json-pass.txt")))
	sb.OnPrefix("go test -json -short", sandboxtest.Fail(1, "must not run"))
	res := Run(context.Background(), sb, nil, *su)
	if res.Short || !res.Passed || strings.Contains(res.Note, "-short") {
		t.Fatalf("result %+v", res)
	}
}

// TestGoSuiteShortBoundGetsAllTheTime: with less time than two useful per-package
// timeouts, the full suite runs once with all of it (never -timeout=0s, which would
// turn go test's timeout off), and no -short run follows.
func TestGoSuiteShortBoundGetsAllTheTime(t *testing.T) {
	for _, bound := range []time.Duration{20 * time.Second, 400 * time.Millisecond} {
		su, sb := suiteOver(t, atesor.BuildGo)
		su.Timeout = bound
		su.Commands = []string{"GOTOOLCHAIN=auto go test ./..."}
		sb.OnPrefix("GOTOOLCHAIN=auto go test -json -timeout=", sandboxtest.Fail(1, realOutput(t, "go-json-timeout.txt")))
		sb.OnPrefix("GOTOOLCHAIN=auto go test -json -short", sandboxtest.Fail(1, "must not run"))
		res := Run(context.Background(), sb, nil, *su)
		if res.Short || len(res.Commands) != 1 {
			t.Fatalf("bound %s: short %t commands %q", bound, res.Short, res.Commands)
		}
		flag := strings.TrimPrefix(strings.Fields(res.Commands[0])[4], "-timeout=")
		d, err := time.ParseDuration(flag)
		if err != nil || d < time.Second || d > bound.Round(time.Second)+time.Second {
			t.Errorf("bound %s: per-package timeout %q", bound, flag)
		}
	}
}

func TestWithGoJSON(t *testing.T) {
	in := []string{"go test ./...", "cd m && GOTOOLCHAIN=auto go test ./...", "GOFLAGS='-tags=purego x' GOTOOLCHAIN=auto go test ./...",
		"go test -json ./...", "make check", "echo go test"}
	want := []string{"go test -json ./...", "cd m && GOTOOLCHAIN=auto go test -json ./...", "GOFLAGS='-tags=purego x' GOTOOLCHAIN=auto go test -json ./...",
		"go test -json ./...", "make check", "echo go test"}
	if d := cmp.Diff(want, withGoJSON(in)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestGoSuiteDropsSanitizers: go test -race would stop before any test on
// linux/riscv64 ("-race is not supported on linux/riscv64"), so the suite runs without
// it, and the result says what was dropped and why.
func TestGoSuiteDropsSanitizers(t *testing.T) {
	su, sb := suiteOver(t, atesor.BuildGo)
	su.Commands = []string{"go test -race -v ./..."}
	sb.OnPrefix("go test -json -race", sandboxtest.Fail(2, "-race is not supported on linux/riscv64\n"))
	sb.OnPrefix("go test -json -timeout=30s -v ./...", sandboxtest.OK(realOutput(t, "go-json-pass.txt")))
	res := Run(context.Background(), sb, nil, *su)
	if !res.Passed || res.Counts == nil || res.Counts.Ran == 0 {
		t.Fatalf("passed %t counts %+v note %q commands %q", res.Passed, res.Counts, res.Note, res.Commands)
	}
	if !strings.Contains(res.Note, "-race dropped from go test") || !strings.Contains(res.Note, "race detector") {
		t.Errorf("note %q does not say -race was dropped", res.Note)
	}
	for _, c := range res.Commands {
		if strings.Contains(c, "-race") {
			t.Errorf("ran %q", c)
		}
	}
	cmds, note := withoutGoSanitizers([]string{"make check", "go vet ./..."})
	if note != "" || cmds[0] != "make check" {
		t.Errorf("lines without go test changed: %q, %q", cmds, note)
	}
}

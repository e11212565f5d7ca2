package optimize_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/optimize"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// A package without tests gives the optimizer no test commands; detection names the
// language when the analysis does not.
func TestTargetOf(t *testing.T) {
	s := &atesor.State{
		RunPart:       atesor.RunPart{RepoName: "pkg", RepoDir: "/workspace/pkg"},
		DetectionPart: atesor.DetectionPart{Detection: &atesor.Detection{Language: "c"}},
		BuildPart:     atesor.BuildPart{ExecutedCommands: []string{"make"}},
		FixPart:       atesor.FixPart{Patches: []atesor.Patch{{Name: "001-a.c.patch", File: "a.c"}}},
		TestPart:      atesor.TestPart{Tests: &atesor.TestResult{NoTests: true, Commands: []string{"make check"}}},
	}
	got := optimize.TargetOf(s, nil, []string{"SOURCE_DATE_EPOCH=1"})
	if got.Package != "pkg" || got.Language != "c" || got.TestCommands != nil || !reflect.DeepEqual(got.ChangedFiles, []string{"a.c"}) ||
		!reflect.DeepEqual(got.Commands, []string{"make"}) || !reflect.DeepEqual(got.Env, []string{"SOURCE_DATE_EPOCH=1"}) || got.TestTimeout == 0 {
		t.Errorf("target = %+v", got)
	}
}

// The verified build is rebuilt only when an artifact is missing, and a failed
// rebuild says which command failed.
func TestEnsureBuilt(t *testing.T) {
	sb := sandboxtest.New(t, atesor.Platform{Triplet: "riscv64-linux-gnu"})
	tgt := optimize.Target{Artifacts: []atesor.Artifact{{Path: "/workspace/pkg/prog"}}, Commands: []string{"./configure", "make"}}
	var rebuilt []string
	rebuild := func(_ context.Context, line string) (atesor.CommandResult, bool, error) {
		rebuilt = append(rebuilt, line)
		if line == "make" {
			return atesor.CommandResult{ExitCode: 2, Output: "make: *** no rule\nmore"}, true, nil
		}
		return atesor.CommandResult{}, false, nil
	}
	if why := optimize.EnsureBuilt(context.Background(), sb, tgt, rebuild, nil); why != "" || rebuilt != nil {
		t.Fatalf("present build: %q, rebuilt %q", why, rebuilt)
	}
	sb.OnPrefix("test -e ", sandboxtest.Fail(1, ""))
	var progress []string
	why := optimize.EnsureBuilt(context.Background(), sb, tgt, rebuild, func(l string) { progress = append(progress, l) })
	if why != "rebuilding the verified build: `make` exited 2: make: *** no rule" || !reflect.DeepEqual(rebuilt, tgt.Commands) {
		t.Errorf("missing build: %q, rebuilt %q", why, rebuilt)
	}
	if len(progress) != 1 || !strings.HasPrefix(progress[0], "rebuilding the verified build") {
		t.Errorf("progress %q", progress)
	}
}

package fixapply_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/fixapply"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

func newSandbox(t *testing.T) (*sandboxtest.Sandbox, string) {
	t.Helper()
	sb := sandboxtest.New(t, atesor.Platform{Name: "debian", Triplet: "riscv64-linux-gnu"})
	if err := os.MkdirAll(filepath.Join(sb.Root(), "workspace", "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	return sb, "/workspace/pkg"
}

// Apply runs the actions in order, records what each did, and stops at the first that
// fails: a command the fix rules refuse never reaches the sandbox.
func TestApplyRecordsAndStops(t *testing.T) {
	sb, dir := newSandbox(t)
	var events []atesor.Event
	var outputs []string
	a := fixapply.Applier{Sandbox: sb, RepoDir: dir, Env: []string{"SOURCE_DATE_EPOCH=1"},
		Emit: func(e atesor.Event) { events = append(events, e) },
		Output: func(line string) (io.Writer, func(atesor.CommandResult)) {
			outputs = append(outputs, line)
			return io.Discard, func(atesor.CommandResult) {}
		}}
	done, err := a.Apply(context.Background(), []atesor.Action{
		{Type: atesor.ActionCommand, Command: "apt-get install -y zlib1g-dev"},
		{Type: atesor.ActionCreateFile, Path: "../../etc/config.h", Content: "#define X 1\n"},
		{Type: atesor.ActionPatch, File: "a.c", Diff: "--- a/a.c\n+++ b/a.c\n"},
		{Type: atesor.ActionCommand, Command: "git push"},
		{Type: atesor.ActionCommand, Command: "make"},
	})
	if err == nil || !strings.Contains(err.Error(), `"git push"`) {
		t.Fatalf("err = %v, want the refused command", err)
	}
	if !reflect.DeepEqual(done.Commands, []string{"apt-get install -y zlib1g-dev"}) || !reflect.DeepEqual(done.Files, []string{"../../etc/config.h", "a.c"}) {
		t.Errorf("done = %+v", done)
	}
	// The created file stays inside the package's directory.
	if b, err := os.ReadFile(filepath.Join(sb.Root(), "workspace", "pkg", "etc", "config.h")); err != nil || string(b) != "#define X 1\n" {
		t.Errorf("created file: %q, %v", b, err)
	}
	if len(done.Patches) != 2 || done.Patches[0].Diff != "--- /dev/null\n+++ b/../../etc/config.h\n@@ -0,0 +1,1 @@\n+#define X 1\n" || done.Patches[0].Name != "" {
		t.Errorf("patches = %+v", done.Patches)
	}
	lines := sb.Lines()
	for _, l := range lines {
		if l == "git push" || l == "make" {
			t.Errorf("%q ran after a refused command: %q", l, lines)
		}
	}
	if !slices.Contains(lines, "patch --batch --forward -p1 -i "+fixapply.PatchFile) {
		t.Errorf("the patch was not applied with patch(1): %q", lines)
	}
	cmd := sb.Commands()[0]
	if cmd.Dir != dir || !cmd.Network || !reflect.DeepEqual(cmd.Env, []string{"SOURCE_DATE_EPOCH=1"}) {
		t.Errorf("fix command ran as %+v", cmd)
	}
	if len(events) != 1 || events[0].Kind != atesor.EventCommand || events[0].Phase != "apply" || !reflect.DeepEqual(outputs, []string{"apt-get install -y zlib1g-dev"}) {
		t.Errorf("events %+v, outputs %q", events, outputs)
	}
}

// A created file that defines an entry point where there was none is a stub.
func TestApplyReportsStubs(t *testing.T) {
	sb, dir := newSandbox(t)
	done, err := fixapply.Applier{Sandbox: sb, RepoDir: dir}.Apply(context.Background(), []atesor.Action{
		{Type: atesor.ActionCreateFile, Path: "main.c", Content: "int main(void) { return 0; }\n"},
	})
	if err != nil || !reflect.DeepEqual(done.Stubs, []string{"main.c"}) {
		t.Errorf("stubs %q, err %v", done.Stubs, err)
	}
}

func TestPatchThatDoesNotApply(t *testing.T) {
	sb, dir := newSandbox(t)
	sb.OnPrefix("patch ", sandboxtest.Fail(1, "1 out of 1 hunk FAILED\nmore"))
	err := fixapply.Applier{Sandbox: sb, RepoDir: dir}.Patch(context.Background(), "a.c", "--- a/a.c\n+++ b/a.c")
	if err == nil || err.Error() != "patch for a.c does not apply: 1 out of 1 hunk FAILED" {
		t.Fatalf("err = %v", err)
	}
	lines := sb.Lines()
	if len(lines) != 3 || !strings.Contains(lines[1], "-p0") || lines[2] != "rm -f "+fixapply.PatchFile {
		t.Errorf("commands %q: want -p1, -p0, then the patch file removed", lines)
	}
}

// The investigation runs at most four validated commands, without network, and cuts
// each output for the fixer.
func TestInvestigate(t *testing.T) {
	sb, dir := newSandbox(t)
	sb.On("cat config.log", sandboxtest.OK(strings.Repeat("x", 2000)))
	var events []atesor.Event
	out := fixapply.Investigate(context.Background(), sb, dir,
		[]string{"cat config.log", "rm -rf build", "ls", "ls -la", "file a.out", "wc -l a.c"},
		func(e atesor.Event) { events = append(events, e) })
	if !strings.Contains(out, "$ rm -rf build\nrefused: ") || strings.Contains(out, "wc -l") {
		t.Errorf("transcript:\n%s", out)
	}
	if strings.Contains(out, strings.Repeat("x", 1501)) || !strings.Contains(out, strings.Repeat("x", 1500)+"\n[exit 0]") {
		t.Errorf("the output is not cut at 1500 characters")
	}
	if got := sb.Lines(); !reflect.DeepEqual(got, []string{"cat config.log", "ls", "ls -la"}) {
		t.Errorf("ran %q", got)
	}
	for _, c := range sb.Commands() {
		if c.Network || c.Dir != dir {
			t.Errorf("investigation command ran as %+v", c)
		}
	}
	if len(events) != 3 || events[0].Phase != "investigate" {
		t.Errorf("events %+v", events)
	}
}

func TestDescribe(t *testing.T) {
	for a, want := range map[atesor.Action]string{
		{Type: atesor.ActionCommand, Command: "make"}: "make",
		{Type: atesor.ActionCreateFile, Path: "x.h"}:  "create x.h",
		{Type: atesor.ActionPatch, File: "a.c"}:       "patch a.c",
	} {
		if got := fixapply.Describe(a); got != want {
			t.Errorf("Describe(%+v) = %q, want %q", a, got, want)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// fakeSSH is an ssh client that runs the remote script on this machine: it drops the
// options and the destination, like a board that shares our file system.
const fakeSSH = `#!/bin/sh
while [ $# -gt 0 ]; do
	case "$1" in
	-o|-p|-i) shift 2 ;;
	--) shift; break ;;
	-*) shift ;;
	*) break ;;
	esac
done
shift
exec sh -c "$1"
`

func newTestBoard(t *testing.T) (*SSH, string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ssh")
	if err := os.WriteFile(bin, []byte(fakeSSH), 0o755); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	return &SSH{Target: "builder@board", Program: bin, Options: []string{"-p", "2222"}, Root: root}, root
}

func TestSSHExec(t *testing.T) {
	board, root := newTestBoard(t)
	ctx := context.Background()
	if err := os.MkdirAll(filepath.Join(root, "workspace", "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	var live bytes.Buffer
	res, err := board.Exec(ctx, atesor.Command{Line: `echo "it's $GREETING"; pwd; echo oops >&2; exit 3`,
		Dir: "/workspace/pkg", Env: []string{"GREETING=hi there"}, Stdout: &live})
	if err != nil {
		t.Fatal(err)
	}
	want := "it's hi there\n" + filepath.Join(root, "workspace", "pkg") + "\n"
	if res.ExitCode != 3 || res.Stdout != want || res.Stderr != "oops\n" || live.String() != want {
		t.Errorf("result = %+v, live %q", res, live.String())
	}
}

func TestSSHExecTimeout(t *testing.T) {
	board, _ := newTestBoard(t)
	start := time.Now()
	res, err := board.Exec(context.Background(), atesor.Command{Line: "sleep 30", Dir: "/", Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut {
		t.Errorf("result = %+v, want a timeout", res)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("timeout took %s", d)
	}
}

func TestSSHFiles(t *testing.T) {
	board, root := newTestBoard(t)
	ctx := context.Background()
	src := t.TempDir()
	for name, body := range map[string]string{"Makefile": "all:\n", "src/a.c": "int a;\n"} {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := board.CopyIn(ctx, src, "/workspace/pkg"); err != nil {
		t.Fatal(err)
	}
	got, err := board.ReadFile(ctx, "/workspace/pkg/src/a.c")
	if err != nil || string(got) != "int a;\n" {
		t.Fatalf("ReadFile = %q, %v", got, err)
	}
	if err := board.WriteFile(ctx, "/workspace/pkg/src/b.c", []byte("int b;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(root, "workspace", "pkg", "src", "b.c")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("written file: %v, %v", fi, err)
	}
	// A link inside the repository that points out of it must not be written through.
	if err := os.Symlink("/etc", filepath.Join(root, "workspace", "pkg", "escape")); err != nil {
		t.Fatal(err)
	}
	if err := board.WriteFile(ctx, "/workspace/pkg/escape/passwd", []byte("x"), 0o644); err == nil {
		t.Error("WriteFile wrote through a link out of the repository")
	}
	if err := board.WriteFile(ctx, "/workspace/other/x", []byte("x"), 0o644); err == nil {
		t.Error("WriteFile wrote outside the repository")
	}
	// A default directory: the repository.
	res, err := board.Exec(ctx, atesor.Command{Line: "ls src"})
	if err != nil || strings.TrimSpace(res.Stdout) != "a.c\nb.c" {
		t.Errorf("ls in the repository = %q, %v", res.Stdout, err)
	}

	out := filepath.Join(t.TempDir(), "copy")
	if err := board.CopyOut(ctx, "/workspace/pkg/src", out); err != nil {
		t.Fatal(err)
	}
	var names []string
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"a.c", "b.c"}, names); diff != "" {
		t.Errorf("copied out (-want +got):\n%s", diff)
	}
	file := filepath.Join(t.TempDir(), "one.c")
	if err := board.CopyOut(ctx, "/workspace/pkg/src/a.c", file); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "int a;\n" {
		t.Errorf("copied file = %q", b)
	}
	// A single file in.
	if err := board.CopyIn(ctx, file, "/workspace/pkg/one.c"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "workspace", "pkg", "one.c")); string(b) != "int a;\n" {
		t.Errorf("copied-in file = %q", b)
	}
}

func TestReadTarRefusesEscape(t *testing.T) {
	var buf bytes.Buffer
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeTar(&buf, dir, true); err != nil {
		t.Fatal(err)
	}
	// The stream's entries are not below "top", so every entry is refused.
	if err := readTar(&buf, "top", filepath.Join(t.TempDir(), "out")); err == nil {
		t.Error("readTar accepted entries outside the top directory")
	}
}

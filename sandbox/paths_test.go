package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestResolveInRepo(t *testing.T) {
	root := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	repo := filepath.Join(root, "workspace", "pkg")
	must(os.MkdirAll(filepath.Join(repo, "src"), 0o755))
	must(os.MkdirAll(filepath.Join(root, "workspace", "other"), 0o755))
	must(os.MkdirAll(filepath.Join(root, "etc"), 0o755))
	// Links as a build could make them.
	must(os.Symlink("/etc/passwd", filepath.Join(repo, "abs-out")))
	must(os.Symlink("/workspace/pkg/src", filepath.Join(repo, "abs-in")))
	must(os.Symlink("../other", filepath.Join(repo, "rel-out")))
	must(os.Symlink("src", filepath.Join(repo, "rel-in")))
	must(os.Symlink("chain2", filepath.Join(repo, "chain1")))
	must(os.Symlink("chain3", filepath.Join(repo, "chain2")))
	must(os.Symlink("/../../../../etc", filepath.Join(repo, "chain3")))
	must(os.Symlink("loop2", filepath.Join(repo, "loop1")))
	must(os.Symlink("loop1", filepath.Join(repo, "loop2")))
	must(os.Symlink("../../../../../..", filepath.Join(repo, "up")))

	tests := []struct {
		path string
		want string
		err  error
	}{
		{"/workspace/pkg/src/a.c", "/workspace/pkg/src/a.c", nil},
		{"src/a.c", "/workspace/pkg/src/a.c", nil},
		{"/workspace/pkg/abs-in/a.c", "/workspace/pkg/src/a.c", nil},
		{"/workspace/pkg/rel-in/new/dir/a.c", "/workspace/pkg/src/new/dir/a.c", nil},
		{"/workspace/pkg/abs-out", "", ErrOutsideRepository},
		{"/workspace/pkg/rel-out/x", "", ErrOutsideRepository},
		{"/workspace/pkg/chain1/passwd", "", ErrOutsideRepository},
		{"/workspace/pkg/loop1", "", ErrTooManyLinks},
		{"/workspace/pkg/../other/x", "", ErrOutsideRepository},
		{"../other/x", "", ErrOutsideRepository},
		{"/workspace/pkg/up/etc/passwd", "", ErrOutsideRepository},
		{"/etc/passwd", "", ErrOutsideRepository},
		{"/workspace/pkg", "", ErrOutsideRepository},
	}
	for _, tc := range tests {
		got, err := resolveInRepo(root, "/workspace/pkg", tc.path)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%s: err = %v, want %v (got %q)", tc.path, err, tc.err, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
	// An absolute link resolves in sandbox coordinates, never on the host.
	got, err := ResolvePath(root, "/workspace/pkg/chain1/passwd")
	if err != nil || got != "/etc/passwd" {
		t.Errorf("ResolvePath chain = %q, %v", got, err)
	}
	// Writes follow the same rules and never touch the host.
	if err := WriteFileIn(root, "", "/workspace/pkg/abs-out", []byte("x"), 0o644); !errors.Is(err, ErrOutsideRepository) {
		t.Errorf("write through abs-out: %v", err)
	}
	if err := WriteFileIn(root, "", "/workspace/pkg/abs-in/new/b.c", []byte("int b;"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := ReadFileIn(context.Background(), root, "/workspace/pkg", "src/new/b.c")
	if err != nil || string(data) != "int b;" {
		t.Errorf("read back: %q %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(root, "etc", "passwd")); err == nil {
		t.Error("a write reached the sandbox's /etc")
	}
}

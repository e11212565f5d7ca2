package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// leftovers lists the temporary files of a writer in dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir, target string) // what is there before the write
		perm    fs.FileMode
		wantErr bool
		want    string // the target's content after the write
	}{
		{name: "new file", perm: 0o640, want: "new"},
		{
			name:  "replaces an old file",
			setup: func(t *testing.T, _, target string) { mustWrite(t, target, "old", 0o600) },
			perm:  0o644, want: "new",
		},
		{
			name: "a planted symbolic link is replaced, its target untouched",
			setup: func(t *testing.T, dir, target string) {
				victim := filepath.Join(dir, "victim")
				mustWrite(t, victim, "precious", 0o644)
				if err := os.Symlink(victim, target); err != nil {
					t.Fatal(err)
				}
			},
			perm: 0o644, want: "new",
		},
		{
			name: "a directory in the way fails and keeps it",
			setup: func(t *testing.T, _, target string) {
				if err := os.MkdirAll(filepath.Join(target, "x"), 0o755); err != nil {
					t.Fatal(err)
				}
			},
			perm: 0o644, wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(dir, "report.json")
			if tt.setup != nil {
				tt.setup(t, dir, target)
			}
			err := WriteFile(target, []byte("new"), tt.perm)
			if (err != nil) != tt.wantErr {
				t.Fatalf("WriteFile: err %v, want error %v", err, tt.wantErr)
			}
			if got := leftovers(t, dir); len(got) > 0 {
				t.Errorf("temporary files left: %v", got)
			}
			if tt.wantErr {
				if fi, err := os.Lstat(target); err != nil || !fi.IsDir() {
					t.Errorf("the directory in the way was changed: %v %v", fi, err)
				}
				return
			}
			fi, err := os.Lstat(target)
			if err != nil {
				t.Fatal(err)
			}
			if !fi.Mode().IsRegular() || fi.Mode().Perm() != tt.perm {
				t.Errorf("target mode %v, want a regular file with %v", fi.Mode(), tt.perm)
			}
			b, _ := os.ReadFile(target)
			if diff := cmp.Diff(tt.want, string(b)); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "victim")); err == nil && string(b) != "precious" {
				t.Errorf("the write went through the link: victim now %q", b)
			}
		})
	}
}

func TestWriteFileMissingDirectory(t *testing.T) {
	err := WriteFile(filepath.Join(t.TempDir(), "no", "such", "dir", "f"), []byte("x"), 0o644)
	if err == nil || !strings.Contains(err.Error(), "temporary file") {
		t.Fatalf("err = %v, want a failure to create the temporary file", err)
	}
}

func TestCreateAbortKeepsTarget(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "recipe.md")
	mustWrite(t, target, "old", 0o644)
	f, err := Create(target, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("half a recipe"); err != nil {
		t.Fatal(err)
	}
	f.Abort()
	f.Abort() // twice is harmless
	if b, _ := os.ReadFile(target); string(b) != "old" {
		t.Errorf("target after Abort = %q, want the old content", b)
	}
	if got := leftovers(t, dir); len(got) > 0 {
		t.Errorf("temporary files left: %v", got)
	}
	if err := f.Commit(); err == nil {
		t.Error("Commit after Abort succeeded")
	}
}

func TestCreateIsUnique(t *testing.T) {
	// Two writers of one target at once (two goroutines, two processes) each get a
	// temporary file of their own, and the last commit wins whole.
	dir := t.TempDir()
	target := filepath.Join(dir, "f")
	a, err := Create(target, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Create(target, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if a.Name() == b.Name() {
		t.Fatalf("both writers got %s", a.Name())
	}
	a.WriteString("aaaa")
	b.WriteString("bb")
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "bb" {
		t.Errorf("target = %q, want the last writer's whole content", got)
	}
}

func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "fixer_examples.json")
	mustWrite(t, filepath.Join(dir, TempPrefix(target)+"123"), "dead writer", 0o644)
	mustWrite(t, filepath.Join(dir, ".other.json.tmp-1"), "someone else's", 0o644)
	RemoveStale(target)
	if diff := cmp.Diff([]string{".other.json.tmp-1"}, leftovers(t, dir)); diff != "" {
		t.Errorf("after RemoveStale (-want +got):\n%s", diff)
	}
}

func mustWrite(t *testing.T, p, data string, perm fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(p, []byte(data), perm); err != nil {
		t.Fatal(err)
	}
}

func TestWriteExclusiveNeverReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scout_examples.json")
	if _, err := writeExclusive(path, []byte("first"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := writeExclusive(path, []byte("second"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "first" {
		t.Fatalf("file holds %q (%v), want the first content", b, err)
	}
}

// TestWriteNew: the first write creates the file with its mode, a second never replaces
// it, and no temporary file is left beside it.
func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "scout_examples.json")
	created, err := WriteNew(path, []byte("first"), 0o640)
	if err != nil || !created {
		t.Fatalf("first WriteNew = %v, %v; want created", created, err)
	}
	created, err = WriteNew(path, []byte("second"), 0o644)
	if err != nil || created {
		t.Fatalf("second WriteNew = %v, %v; want not created, no error", created, err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "first" {
		t.Fatalf("file holds %q (%v), want the first content", b, err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v (%v), want 0640", st.Mode().Perm(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want the file alone", len(entries))
	}
}

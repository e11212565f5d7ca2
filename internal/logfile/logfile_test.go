package logfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestOpenAppend(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.log")
	f, err := OpenAppend(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != Mode {
		t.Fatalf("new log: %v %v, want mode 0600", fi.Mode(), err)
	}
	// An existing, wider file is narrowed.
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err = OpenAppend(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, _ := os.Stat(p); fi.Mode().Perm() != Mode {
		t.Fatalf("existing log keeps mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestOpenAppendRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "victim")
	if err := os.WriteFile(target, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "a.log")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenAppend(link); err == nil {
		f.Close()
		t.Fatal("OpenAppend followed a symbolic link")
	}
	// A dangling link would create the target: refused too.
	dangling := filepath.Join(dir, "b.log")
	if err := os.Symlink(filepath.Join(dir, "new"), dangling); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenAppend(dangling); err == nil {
		f.Close()
		t.Fatal("OpenAppend followed a dangling symbolic link")
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); err == nil {
		t.Fatal("the link target was created")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Fatalf("the link target changed: %q", b)
	}
}

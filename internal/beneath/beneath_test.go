package beneath

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var small = Bound{Kind: "test file", Max: 64}

// tree builds a hostile tree: each entry is one of the things a build can leave where
// the host reads. outside is a host directory beside the tree holding a secret.
func tree(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "tree"), filepath.Join(base, "host")
	for _, d := range []string{root, outside, filepath.Join(root, "lib"), filepath.Join(root, "etc"), filepath.Join(root, "dev")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		if err := os.Symlink(target, filepath.Join(root, p)); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "secret"), "host secret")
	write(filepath.Join(root, "lib", "libz.so.1"), "tree library")
	write(filepath.Join(root, "etc", "secret"), "tree's own etc/secret")
	write(filepath.Join(root, "big"), strings.Repeat("x", 65))
	write(filepath.Join(root, "exact"), strings.Repeat("x", 64))
	link("libz.so.1", "lib/libz.so")
	link("/etc/secret", "abs")                          // absolute: the tree's /etc/secret
	link("../host/secret", "up")                        // relative, one level up: clamped at the root
	link("../../../../../"+outside+"/secret", "updeep") // many levels up: clamped too
	link("missing", "dangling")
	link("loop", "loop")
	link("/dev/zero", "zero") // the tree's dev/zero, which does not exist
	link("/proc/self/root/etc/passwd", "magic")
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	link("/fifo", "fifolink")
	l, err := net.Listen("unix", filepath.Join(root, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return root, outside
}

func TestOpen(t *testing.T) {
	root, _ := tree(t)
	d, err := OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	tests := []struct {
		name    string
		links   Links
		want    string // content, when the read succeeds
		notReg  string // the type NotRegularError names
		tooBig  bool
		notFind bool
	}{
		{name: "lib/libz.so.1", links: NoFollow, want: "tree library"},
		{name: "/lib/libz.so.1", links: NoFollow, want: "tree library"},
		{name: "lib/libz.so", links: FollowInside, want: "tree library"},
		{name: "lib/libz.so", links: NoFollow, notReg: "symbolic link"},
		{name: "abs", links: FollowInside, want: "tree's own etc/secret"},
		{name: "up", links: FollowInside, notFind: true},
		{name: "updeep", links: FollowInside, notFind: true},
		{name: "../host/secret", links: FollowInside, notFind: true},
		{name: "dangling", links: FollowInside, notFind: true},
		{name: "loop", links: FollowInside, notReg: "symbolic link (or a loop of them)"},
		{name: "zero", links: FollowInside, notFind: true},
		{name: "fifo", links: NoFollow, notReg: "FIFO"},
		{name: "fifolink", links: FollowInside, notReg: "FIFO"},
		{name: "sock", links: NoFollow, notReg: "socket"},
		{name: "lib", links: NoFollow, notReg: "directory"},
		{name: "/", links: NoFollow, notReg: "directory"},
		{name: "big", links: NoFollow, tooBig: true},
		{name: "exact", links: NoFollow, want: strings.Repeat("x", 64)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			got, err := d.ReadFile(ctx, tt.name, tt.links, small)
			var nr *NotRegularError
			var tl *TooLargeError
			switch {
			case tt.notReg != "":
				if !errors.As(err, &nr) || !errors.Is(err, ErrNotRegular) {
					t.Fatalf("ReadFile = %q, %v; want a NotRegularError", got, err)
				}
				if diff := cmp.Diff(tt.notReg, nr.Type); diff != "" {
					t.Errorf("type (-want +got):\n%s", diff)
				}
				if !strings.Contains(err.Error(), tt.name) {
					t.Errorf("error %q does not name the path", err)
				}
			case tt.tooBig:
				if !errors.As(err, &tl) || !errors.Is(err, ErrTooLarge) {
					t.Fatalf("ReadFile = %q, %v; want a TooLargeError", got, err)
				}
				if tl.Size != 65 || tl.Bound != small || !strings.Contains(err.Error(), "64-byte bound for a test file") {
					t.Errorf("error %+v: %v", tl, err)
				}
			case tt.notFind:
				if !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("ReadFile = %q, %v; want not found", got, err)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, string(got)); diff != "" {
					t.Errorf("content (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestOpenMagicLink: /proc's magic links point anywhere on the host; the tree's own
// proc is empty here, so the host's /proc must not stand in for it.
func TestOpenMagicLink(t *testing.T) {
	root, _ := tree(t)
	d, err := OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if got, err := d.ReadFile(context.Background(), "magic", FollowInside, Bound{Kind: "x", Max: 1 << 20}); err == nil {
		t.Fatalf("read the host's /etc/passwd through a /proc link: %q", got)
	}
}

// TestOldReadsWereAttackable shows the class the gate closes: the host's plain file API
// follows a link out of the tree and blocks on a FIFO.
func TestOldReadsWereAttackable(t *testing.T) {
	root, _ := tree(t)
	if got, err := os.ReadFile(filepath.Join(root, "up")); err != nil || string(got) != "host secret" {
		t.Fatalf("os.ReadFile through ../ = %q, %v; expected the plain API to leave the tree", got, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f, err := os.Open(filepath.Join(root, "fifo"))
		if err == nil {
			f.Close()
		}
	}()
	select {
	case <-done:
		t.Fatal("os.Open of a FIFO returned without a writer; expected it to block")
	case <-time.After(200 * time.Millisecond):
	}
	// Unblock the reader.
	w, err := os.OpenFile(filepath.Join(root, "fifo"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	<-done
}

func TestOpenDevice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mknod of a device needs root")
	}
	root, _ := tree(t)
	// The tree's own dev/zero: a real character device, as a root file system made by
	// debootstrap holds.
	if err := syscall.Mknod(filepath.Join(root, "dev", "zero"), syscall.S_IFCHR|0o666, int(1<<8|5)); err != nil {
		t.Skipf("mknod: %v", err)
	}
	d, err := OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, name := range []string{"zero", "dev/zero"} {
		_, err := d.ReadFile(context.Background(), name, FollowInside, Bound{Kind: "library", Max: 1 << 30})
		var nr *NotRegularError
		if !errors.As(err, &nr) || nr.Type != "character device" {
			t.Errorf("%s: err = %v, want a character device refused", name, err)
		}
	}
}

func TestReadAllGrowth(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	f, err := d.Open(context.Background(), "f", NoFollow, Bound{Kind: "log", Max: 12})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// The file grows past its bound after the open (a process still writing it).
	if err := os.WriteFile(p, bytes.Repeat([]byte("y"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadAll(context.Background()); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("ReadAll of a file grown past its bound: err = %v, want ErrTooLarge", err)
	}
	// The section stops at the size seen at the open.
	n, _ := f.Section().ReadAt(make([]byte, 200), 0)
	if n != 10 {
		t.Errorf("Section read %d bytes, want 10", n)
	}
}

func TestReadFileContext(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.ReadFile(ctx, "f", NoFollow, small); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestWalkDir(t *testing.T) {
	root, _ := tree(t)
	d, err := OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var got []string
	err = d.WalkDir(context.Background(), "/lib", func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		got = append(got, p+" "+de.Type().String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/lib d---------", "/lib/libz.so L---------", "/lib/libz.so.1 ----------"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("walk (-want +got):\n%s", diff)
	}
}

func TestFS(t *testing.T) {
	root, _ := tree(t)
	fsys := FS(context.Background(), root, small)
	var got []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			data, err := fs.ReadFile(fsys, p)
			got = append(got, p+": "+string(data)+errString(err))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"big: " + "error",
		"etc/secret: tree's own etc/secret",
		"exact: " + strings.Repeat("x", 64),
		"lib/libz.so.1: tree library",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, name := range []string{"fifo", "fifolink", "sock", "lib/libz.so", "up"} {
		f, err := fsys.Open(name)
		if err == nil {
			f.Close()
			t.Errorf("Open(%s) succeeded", name)
		}
	}
	if _, err := fsys.Open("../x"); err == nil {
		t.Error("Open of an invalid path succeeded")
	}
}

func errString(err error) string {
	if err != nil {
		return "error"
	}
	return ""
}

// TestFSInfo: the walk's entries describe themselves (size, type) relative to their
// directory, whatever the working directory is.
func TestFSInfo(t *testing.T) {
	root, _ := tree(t)
	fsys := FS(context.Background(), root, small)
	got := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.Type() != fi.Mode().Type() {
			t.Errorf("%s: entry type %v, info type %v", p, d.Type(), fi.Mode().Type())
		}
		if fi.Mode().IsRegular() {
			got[p] = fmt.Sprint(fi.Size())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"big": "65", "exact": "64", "etc/secret": "21", "lib/libz.so.1": "12"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

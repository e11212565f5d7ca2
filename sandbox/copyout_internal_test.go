package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// hostile builds, in a fresh directory, the files a hostile build leaves where the host
// copies artifacts from: one of each file type, and links that lead to the host.
func hostile(t *testing.T) (dir, outside string) {
	t.Helper()
	base := t.TempDir()
	dir, outside = filepath.Join(base, "sandbox"), filepath.Join(base, "host")
	for _, d := range []string{dir, outside, filepath.Join(dir, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(outside, "secret"), []byte("host secret"), 0o600))
	must(os.WriteFile(filepath.Join(dir, "prog"), []byte("\x7fELF program"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "sub", "lib.so.1"), []byte("library"), 0o644))
	must(os.Symlink("lib.so.1", filepath.Join(dir, "sub", "lib.so")))              // relative, inside
	must(os.Symlink("../../host", filepath.Join(dir, "sub", "up")))                // relative, leads out
	must(os.Symlink(outside, filepath.Join(dir, "hostdir")))                       // absolute host path
	must(os.Symlink("/dev/zero", filepath.Join(dir, "zero")))                      // a device by link
	must(os.Link(filepath.Join(dir, "prog"), filepath.Join(dir, "prog-hardlink"))) // a second name
	must(syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	if l, err := net.Listen("unix", filepath.Join(dir, "sock")); err == nil {
		t.Cleanup(func() { l.Close() })
	}
	if os.Geteuid() == 0 {
		// A real character device, like the ones of a cached root filesystem: /dev/zero.
		must(syscall.Mknod(filepath.Join(dir, "devzero"), syscall.S_IFCHR|0o666, int(mkdev(1, 5))))
	}
	return dir, outside
}

func mkdev(major, minor uint32) uint64 {
	return uint64(major)<<8 | uint64(minor)
}

// TestCopyOutFileTypes copies each hostile file out alone: only the regular file is
// copied; every other type is a FileTypeError naming it, and no copy blocks (a FIFO
// opened for read would wait for a writer forever).
func TestCopyOutFileTypes(t *testing.T) {
	dir, _ := hostile(t)
	cases := map[string]string{
		"prog": "", "prog-hardlink": "", "hostdir": "symbolic link", "zero": "symbolic link",
		"fifo": "FIFO", "sock": "socket", "sub/lib.so": "symbolic link",
	}
	if os.Geteuid() == 0 {
		cases["devzero"] = "character device"
	}
	for name, wantType := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
				t.Skip(err)
			}
			out := filepath.Join(t.TempDir(), "out")
			done := make(chan error, 1)
			go func() {
				done <- copyOutHost(t.Context(), filepath.Join(dir, name), out, DefaultCopyLimits(), slog.Default())
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("copy out blocked")
			}
			if wantType == "" {
				if err != nil {
					t.Fatal(err)
				}
				if fi, err := os.Lstat(out); err != nil || !fi.Mode().IsRegular() {
					t.Fatalf("copied %v %v", fi, err)
				}
				return
			}
			var te *FileTypeError
			if !errors.As(err, &te) || te.Type != wantType || !strings.Contains(err.Error(), name) {
				t.Fatalf("got %v, want a %s refused", err, wantType)
			}
			if _, err := os.Lstat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("something was written at %s: %v", out, err)
			}
		})
	}
}

// TestCopyOutTree copies the hostile tree out: regular files and directories come out,
// each hard link as a file of its own, the link that stays inside the tree stays a link,
// and nothing else comes out: no link to the host, no device, FIFO or socket.
func TestCopyOutTree(t *testing.T) {
	dir, _ := hostile(t)
	out := filepath.Join(t.TempDir(), "out")
	if err := copyOutHost(t.Context(), dir, out, DefaultCopyLimits(), slog.Default()); err != nil {
		t.Fatal(err)
	}
	var got []string
	_ = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == out {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		fi, _ := os.Lstat(p)
		got = append(got, rel+" "+fileType(fi.Mode()))
		return nil
	})
	sort.Strings(got)
	want := []string{"prog regular file", "prog-hardlink regular file", "sub directory", "sub/lib.so symbolic link", "sub/lib.so.1 regular file"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("copied tree (-want +got):\n%s", diff)
	}
	a, _ := os.Stat(filepath.Join(out, "prog"))
	b, _ := os.Stat(filepath.Join(out, "prog-hardlink"))
	if os.SameFile(a, b) {
		t.Error("a hard link came out as a hard link")
	}
}

// TestCopyOutPlantedLinks copies into an output directory where an earlier run left
// links: a link at the file's own name and a link as a parent directory, both leading to
// a host directory. The file replaces the first link; the second is refused. The host
// directory is untouched either way.
func TestCopyOutPlantedLinks(t *testing.T) {
	dir, outside := hostile(t)
	out := t.TempDir()
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(out, "prog")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(out, "sub")); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b := NewCopyBudget(DefaultCopyLimits())
	if _, err := copyRegularOut(t.Context(), "prog", filepath.Join(dir, "prog"), r, "prog", b); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(out, "prog")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("prog is %v %v, want the copied regular file", fi, err)
	}
	if _, err := copyRegularOut(t.Context(), "prog", filepath.Join(dir, "prog"), r, "sub/authorized_keys", b); err == nil {
		t.Error("wrote through a planted directory link")
	}
	if _, err := copyRegularOut(t.Context(), "prog", filepath.Join(dir, "prog"), r, "../escape", b); err == nil {
		t.Error("wrote outside the output directory")
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("the host directory changed: %v", entries)
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "secret")); string(data) != "host secret" {
		t.Errorf("the host file changed: %q", data)
	}
}

// TestCopyOutBounds: a 2 GiB sparse file (a few bytes on disk) is refused by its logical
// size before a byte is read, the per-run total counts across copies, a file that grows
// while it is copied is refused, and each error names the setting that raises it.
func TestCopyOutBounds(t *testing.T) {
	dir := t.TempDir()
	sparse := filepath.Join(dir, "sparse")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, make([]byte, 600), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	r, err := os.OpenRoot(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	start := time.Now()
	_, err = copyRegularOut(t.Context(), "sparse", sparse, r, "sparse", NewCopyBudget(DefaultCopyLimits()))
	var le *CopyLimitError
	if !errors.As(err, &le) || le.What != "file" || !strings.Contains(err.Error(), EnvCopyMaxFileBytes) {
		t.Fatalf("sparse file: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("refusing the sparse file took %s: it was read", d)
	}

	l := CopyLimits{MaxFileBytes: 1000, MaxTotalBytes: 1000, TotalSetting: "SETTING_X"}
	b := NewCopyBudget(l)
	if _, err := copyRegularOut(t.Context(), "small", small, r, "a", b); err != nil {
		t.Fatal(err)
	}
	_, err = copyRegularOut(t.Context(), "small", small, r, "b", b)
	if !errors.As(err, &le) || le.What != "total" || !strings.Contains(err.Error(), "SETTING_X") {
		t.Fatalf("second file past the total: %v", err)
	}

	testHookCopyOpened = func(src string) {
		f, err := os.OpenFile(src, os.O_WRONLY|os.O_APPEND, 0)
		if err == nil {
			_, _ = f.Write(make([]byte, 4096))
			f.Close()
		}
	}
	defer func() { testHookCopyOpened = nil }()
	_, err = copyRegularOut(t.Context(), "small", small, r, "grown", NewCopyBudget(DefaultCopyLimits()))
	if err == nil || !strings.Contains(err.Error(), "grew") {
		t.Fatalf("growing file: %v", err)
	}
	testHookCopyOpened = nil
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"a"}, names); diff != "" {
		t.Errorf("the output directory holds (-want +got):\n%s", diff)
	}
}

// TestCopyOutCancel: a copy whose context ends stops at once with the context's cause,
// and so does one cancelled while it copies an 8 GiB sparse file with no bound (what
// Ctrl-C or SIGTERM does to a copy-out), leaving no partial file.
func TestCopyOutCancel(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "big")
	if err := os.WriteFile(src, make([]byte, 8<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := copyOutHost(ctx, src, filepath.Join(t.TempDir(), "out"), DefaultCopyLimits(), slog.Default())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want the cancellation", err)
	}

	huge := filepath.Join(dir, "huge")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(8 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := t.TempDir()
	ctx, cancel = context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- copyOutHost(ctx, huge, filepath.Join(out, "huge"), CopyLimits{}, slog.Default()) }()
	time.Sleep(300 * time.Millisecond)
	cancel()
	at := time.Now()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want the cancellation", err)
		}
		if d := time.Since(at); d > time.Second {
			t.Errorf("stopped %s after the cancel", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the copy went on for 10 s after the cancel")
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("a partial copy was left: %v", entries)
	}
}

// TestCopyOutFileHash: CopyOutFile through a sandbox that shows its files on the host
// returns the SHA-256 of what it wrote.
func TestCopyOutFileHash(t *testing.T) {
	dir, _ := hostile(t)
	out := t.TempDir()
	r, err := os.OpenRoot(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h, err := NewHost(atesor.Platform{}, WithWorkdir(dir))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := CopyOutFile(t.Context(), h, "/prog", r, "x/prog", NewCopyBudget(DefaultCopyLimits()))
	if err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256([]byte("\x7fELF program"))
	if sum != hex.EncodeToString(want[:]) {
		t.Errorf("hash %s", sum)
	}
	if _, err := CopyOutFile(t.Context(), h, "/hostdir", r, "y", NewCopyBudget(DefaultCopyLimits())); err == nil {
		t.Error("copied a link to a host directory")
	}
}

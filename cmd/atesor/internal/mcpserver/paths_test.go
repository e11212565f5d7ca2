package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestConfinerPath holds names to the roots the way an attacker probes them: "..",
// absolute paths, links out (to a directory, to a file, chained, through a link
// inside), a root given through a link, NUL bytes; links that stay inside are fine.
func TestConfinerPath(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	out := filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(root, "pkg", "src"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(outside, "secret"), filepath.Join(root, "pkg", "src", "a.c")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		filepath.Join(root, "out-dir"):          outside,
		filepath.Join(root, "out-file"):         filepath.Join(outside, "secret"),
		filepath.Join(root, "abs-root"):         "/",
		filepath.Join(root, "dotdot"):           "../outside",
		filepath.Join(root, "chain"):            "out-dir",
		filepath.Join(root, "pkg", "src", "up"): "../..",
		filepath.Join(root, "in"):               "pkg/src",
		filepath.Join(base, "root-link"):        root,
	}
	for l, target := range links {
		if err := os.Symlink(target, l); err != nil {
			t.Fatal(err)
		}
	}
	c, err := newConfiner([]string{filepath.Join(base, "root-link")}, out, filepath.Join(base, "no-runs-yet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want string // the resolved path, or "" for a refusal
		err  string
	}{
		{"pkg", filepath.Join(root, "pkg"), ""},
		{"pkg/src/a.c", filepath.Join(root, "pkg", "src", "a.c"), ""},
		{filepath.Join(root, "pkg"), filepath.Join(root, "pkg"), ""},
		{"in", filepath.Join(root, "pkg", "src"), ""},
		{"pkg/src/up", root, ""},
		{out, out, ""},
		{"..", "", "outside"},
		{"../outside/secret", "", "outside"},
		{filepath.Join(outside, "secret"), "", "outside"},
		{"/etc/passwd", "", "outside"},
		{"out-dir", "", "symbolic link"},
		{"out-dir/secret", "", "symbolic link"},
		{"out-file", "", "symbolic link"},
		{"abs-root/etc/passwd", "", "symbolic link"},
		{"dotdot/secret", "", "symbolic link"},
		{"chain/secret", "", "symbolic link"},
		{"pkg/src/up/../outside", "", "does not exist"}, // ".." is taken lexically, before links
		{"missing", "", "does not exist"},
		{"", "", "empty path"},
		{"pkg\x00/x", "", "NUL"},
	} {
		got, err := c.path(tc.path, "source")
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: got %q, %v; want an error saying %q", tc.path, got, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%q: got %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
}

// TestConfinerSource: remote forms the server allows and those it refuses.
func TestConfinerSource(t *testing.T) {
	root := t.TempDir()
	c, err := newConfiner([]string{root}, filepath.Join(root, "out"), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		src string
		ok  bool
	}{
		{"https://example.invalid/pkg-1.0.tar.gz", true},
		{"https://example.invalid/owner/repo.git", true},
		{"debian:zlib", true},
		{"debian:zlib=1:1.3.dfsg-3", true},
		{"debian:../../etc", false},
		{"file:///etc", false},
		{"ssh://host/repo.git", false},
		{"git://host/repo.git", false},
		{"git@host:owner/repo.git", false},
		{"ftp://host/x.tar.gz", false},
		{"out", true},
	} {
		_, err := c.source(tc.src, "source")
		if (err == nil) != tc.ok {
			t.Errorf("%q: err %v, want ok=%t", tc.src, err, tc.ok)
		}
	}
}

func TestNewConfinerNeedsRoots(t *testing.T) {
	if _, err := newConfiner(nil, t.TempDir(), ""); err == nil {
		t.Error("no roots: no error")
	}
	if _, err := newConfiner([]string{filepath.Join(t.TempDir(), "missing")}, t.TempDir(), ""); err == nil {
		t.Error("a missing root: no error")
	}
}

func TestBound(t *testing.T) {
	for _, tc := range []struct {
		in  string
		max int
		cut bool
	}{
		{"short", 100, false},
		{strings.Repeat("x", 100), 100, false},
		{strings.Repeat("ab", 100), 40, true},
		{strings.Repeat("é", 100), 41, true}, // cuts fall between runes
	} {
		got, cut := bound(tc.in, tc.max)
		if cut != tc.cut {
			t.Errorf("%d bytes, max %d: cut %t", len(tc.in), tc.max, cut)
		}
		if cut && (!strings.Contains(got, "bytes left out") || !strings.HasPrefix(tc.in, got[:strings.Index(got, "\n[...")]) ||
			!strings.HasSuffix(tc.in, got[strings.LastIndex(got, "]\n")+2:])) {
			t.Errorf("bound(%d bytes, %d) = %q", len(tc.in), tc.max, got)
		}
		if !cut && got != tc.in {
			t.Errorf("bound changed an output within the bound: %q", got)
		}
		if !utf8.ValidString(got) {
			t.Errorf("bound cut a rune: %q", got)
		}
	}
}

// FuzzConfinerPath: whatever a caller names, an accepted path lies below a root once
// its links are resolved.
func FuzzConfinerPath(f *testing.F) {
	base := f.TempDir()
	root := filepath.Join(base, "root")
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		f.Fatal(err)
	}
	for l, target := range map[string]string{"up": "..", "abs": "/", "in": "a/b", "loop": "loop"} {
		if err := os.Symlink(target, filepath.Join(root, l)); err != nil {
			f.Fatal(err)
		}
	}
	c, err := newConfiner([]string{root}, filepath.Join(base, "out"), "")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"a", "a/b", "up", "up/root", "abs/etc", "in/../..", "loop", "/", "..", "a/../../root/a", "./a//b/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got, err := c.path(p, "source")
		if err != nil {
			return
		}
		if _, ok := below(root, got); !ok {
			if _, ok := below(filepath.Join(base, "out"), got); !ok {
				t.Fatalf("%q resolved to %q, outside the roots", p, got)
			}
		}
	})
}

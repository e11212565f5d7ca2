package debarchive

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDebianMirrorFrom(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"deb822", map[string]string{"sources.list.d/debian.sources": "Types: deb\n# comment\nURIs: http://mirror.invalid/debian/\nSuites: trixie trixie-updates\nComponents: main\n\nTypes: deb\nURIs: http://mirror.invalid/debian-security\nSuites: trixie-security\n"}, "http://mirror.invalid/debian"},
		{"security first", map[string]string{"sources.list.d/a.sources": "Types: deb\nURIs: http://sec.invalid/x\nSuites: trixie-security\n\nTypes: deb-src\nURIs: http://src.invalid/debian\nSuites: trixie\n\nTypes: deb\nEnabled: no\nURIs: http://off.invalid/debian\nSuites: trixie\n\nTypes: deb\nURIs: https://on.invalid/debian\nSuites: trixie\n"}, "https://on.invalid/debian"},
		{"one-line", map[string]string{"sources.list": "# deb http://old.invalid/debian bookworm main\ndeb http://sec.invalid/debian-security bookworm-security main\ndeb [arch=amd64 signed-by=/k.gpg] http://one.invalid/debian bookworm main\n"}, "http://one.invalid/debian"},
		{"deb822 before one-line", map[string]string{
			"sources.list":                  "deb http://one.invalid/debian trixie main\n",
			"sources.list.d/debian.sources": "Types: deb\nURIs: http://deb822.invalid/debian\nSuites: trixie\n",
		}, "http://deb822.invalid/debian"},
		{"ports debug and security hosts skipped", map[string]string{"sources.list.d/a.sources": "Types: deb\nURIs: http://m.invalid/debian-ports/ http://m.invalid/debian-debug https://security.invalid/debian\nSuites: sid\n\nTypes: deb\nURIs: http://m.invalid/debian/\nSuites: trixie\n"}, "http://m.invalid/debian"},
		{"debug suite skipped", map[string]string{"sources.list.d/a.sources": "Types: deb\nURIs: http://dbg.invalid/x\nSuites: trixie-debug\n  \nTypes: deb\nURIs: http://main.invalid/debian\nSuites: trixie\n"}, "http://main.invalid/debian"},
		{"continuation and CRLF", map[string]string{"sources.list.d/a.sources": "Types: deb\r\nURIs: http://crlf.invalid/debian\r\nSigned-By:\r\n -----BEGIN PGP PUBLIC KEY BLOCK-----\r\n URIs: http://key.invalid/x\r\nSuites: trixie\r\n"}, "http://crlf.invalid/debian"},
		{"one-line ports and bracket options", map[string]string{"sources.list.d/b.list": "deb [ arch=riscv64 ] http://m.invalid/debian-ports sid main\ndeb [ arch=amd64 ] ftp://ftp.invalid/debian trixie main\ndeb-src http://src.invalid/debian trixie main\ndeb [ arch=amd64 ] http://l.invalid/debian trixie main\n"}, "http://l.invalid/debian"},
		{"sources.list before sources.list.d lists", map[string]string{
			"sources.list.d/a.list": "deb http://d.invalid/debian trixie main\n",
			"sources.list":          "deb http://main.invalid/debian trixie main\n",
		}, "http://main.invalid/debian"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, tt.files)
			for what, read := range map[string]func(string) (string, error){"host": hostMirror, "sandbox": MirrorIn} {
				got, err := read(dir)
				if err != nil || got != tt.want {
					t.Errorf("%s: got %q, %v; want %q", what, got, err, tt.want)
				}
			}
		})
	}
	for name, files := range map[string]map[string]string{
		"empty":         nil,
		"only excluded": {"sources.list": "deb http://m.invalid/debian-security trixie-security main\ndeb http://m.invalid/debian-ports sid main\n"},
	} {
		for what, read := range map[string]func(string) (string, error){"host": hostMirror, "sandbox": MirrorIn} {
			if got, err := read(writeTree(t, files)); !errors.Is(err, ErrNoMirror) {
				t.Errorf("%s: %s apt dir: got %q, %v; want ErrNoMirror", what, name, got, err)
			}
		}
	}
}

// TestDebianMirrorInHostile: a sandbox whose apt configuration holds a FIFO, a link to
// its /dev/zero and a link out to the host's configuration is read without blocking,
// and only its own regular files count.
func TestDebianMirrorInHostile(t *testing.T) {
	dir := writeTree(t, map[string]string{"sources.list.d/z.list": "deb http://own.invalid/debian trixie main\n"})
	if err := syscall.Mkfifo(filepath.Join(dir, "sources.list"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"a.sources": "/dev/zero", "b.list": "../../../../../../etc/apt/sources.list"} {
		if err := os.Symlink(target, filepath.Join(dir, "sources.list.d", name)); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	var got string
	var err error
	go func() {
		defer close(done)
		got, err = MirrorIn(dir)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("In blocked on a FIFO")
	}
	if err != nil || got != "http://own.invalid/debian" {
		t.Errorf("got %q, %v; want the sandbox's own mirror", got, err)
	}
}

func TestDeb822URIs(t *testing.T) {
	in := "# header\nTypes: deb deb-src\nURIs: http://a.invalid/debian http://b.invalid/debian\nSuites: trixie trixie-security\n\n\n\t\nTypes: deb\nEnabled: No\nURIs: http://off.invalid/debian\nSuites: trixie\n"
	if d := cmp.Diff([]string{"http://a.invalid/debian", "http://b.invalid/debian"}, deb822URIs(in)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestDebianMirrorOverride(t *testing.T) {
	got, err := FindMirror(" http://env.invalid/debian/ ")
	if err != nil || got != "http://env.invalid/debian" {
		t.Errorf("got %q, %v", got, err)
	}
}

// FuzzAptSources checks that any apt configuration text parses without a panic and that
// only whitespace-free URIs come out.
func FuzzAptSources(f *testing.F) {
	f.Add("Types: deb\nURIs: http://m.invalid/debian\nSuites: trixie\n")
	f.Add("deb [arch=amd64 signed-by=/k.gpg] http://one.invalid/debian bookworm main\n")
	f.Add("deb [ \ndeb [a b\n")
	f.Fuzz(func(t *testing.T, data string) {
		for _, u := range append(deb822URIs(data), oneLineURIs(data)...) {
			if u == "" || strings.ContainsAny(u, " \t\r\n") {
				t.Errorf("URI %q from %q", u, data)
			}
		}
	})
}

// TestDebianMirrorInIgnoresEnv: a sandbox's apt directory is read as it is; the
// override variable is for the host's configuration.
func TestDebianMirrorInIgnoresEnv(t *testing.T) {
	t.Setenv(MirrorVariable, "http://env.invalid/debian")
	dir := writeTree(t, map[string]string{"sources.list": "deb http://sandbox.invalid/debian trixie main\n"})
	if got, err := MirrorIn(dir); err != nil || got != "http://sandbox.invalid/debian" {
		t.Errorf("got %q, %v", got, err)
	}
}

// writeTree writes files (path -> content) under a new temporary directory.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

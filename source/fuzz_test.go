package source

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
)

// FuzzPackageName: any source gives a name safe as a file prefix.
func FuzzPackageName(f *testing.F) {
	f.Add("/src/zlib_1.3.dfsg+really1.3.1.orig.tar.gz")
	f.Add("git@host:a/b.git")
	f.Add("https://example.org/x-1.0.tar.xz?x=1#y")
	f.Fuzz(func(t *testing.T, src string) {
		name := PackageName(src)
		if name == "" || strings.ContainsAny(name, "/\\ \n\x00") || name == "." || name == ".." {
			t.Fatalf("PackageName(%q) = %q", src, name)
		}
		_ = KindOf(src)
	})
}

// FuzzSanitizeName: any --name gives a name that stays inside the output directory.
func FuzzSanitizeName(f *testing.F) {
	for _, s := range []string{"../../etc/cron.d/x", "/etc/passwd", "..", "a/../../b", "zlib", " ", "x\x00y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name := SanitizeName(s)
		if name == "" || strings.ContainsAny(name, "/\\ \n\x00") || strings.HasPrefix(name, ".") || len(name) > 100 {
			t.Fatalf("SanitizeName(%q) = %q", s, name)
		}
		if filepath.Dir(filepath.Join("/out", name+".log")) != "/out" {
			t.Fatalf("SanitizeName(%q) = %q leaves the output directory", s, name)
		}
	})
}

func TestSanitizeName(t *testing.T) {
	for in, want := range map[string]string{
		"zlib": "zlib", "../../etc/cron.d/x": "etc-cron.d-x", "/etc/passwd": "etc-passwd", "..": "package",
		"": "package", "libfoo++-1.2": "libfoo++-1.2", "a b": "a-b",
	} {
		if got := SanitizeName(in); got != want {
			t.Errorf("SanitizeName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := RequestName(atesor.Request{Name: "../x", Source: "/src/zlib"}); got != "x" {
		t.Errorf("RequestName with Name ../x = %q, want x", got)
	}
}

package source

import (
	"errors"
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:tok3n@github.com/o/r.git": "https://github.com/o/r.git",
		"https://ghp_secret@github.com/o/r.git": "https://github.com/o/r.git",
		"http://u:p@mirror/x-1.0.tar.gz?x=1":    "http://mirror/x-1.0.tar.gz?x=1",
		"ssh://git:pw@host/o/r.git":             "ssh://git@host/o/r.git",
		"git@github.com:o/r.git":                "git@github.com:o/r.git",
		"/src/zlib":                             "/src/zlib",
		"https://github.com/o/r.git":            "https://github.com/o/r.git",
		"https://a:b@host:bad port/x":           "https://host:bad port/x",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactError(t *testing.T) {
	src := "https://user:tok3n@host/o/r.git"
	base := errors.New("fetch")
	err := RedactError(errors.Join(base, errors.New("clone "+src+": exit 128")), src)
	if strings.Contains(err.Error(), "tok3n") {
		t.Fatalf("the token is in %q", err)
	}
	if !errors.Is(err, base) {
		t.Fatal("the redacted error lost its cause")
	}
}

func FuzzRedactURL(f *testing.F) {
	f.Add("https://user:secret@host/x")
	f.Add("ftp://a@b@c/d")
	f.Fuzz(func(t *testing.T, s string) {
		out := RedactURL(s)
		if strings.Contains(s, "://") && strings.Contains(s, ":secret@") && strings.Contains(out, "secret@") {
			t.Fatalf("RedactURL(%q) = %q keeps the password", s, out)
		}
	})
}

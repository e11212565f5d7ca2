package redact

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestError: an error whose text names a URL with credentials shows it without them
// and still wraps its cause; an error without one is returned as it is.
func TestError(t *testing.T) {
	cause := errors.New("exit 128")
	err := Error(fmt.Errorf("clone https://user:tok3n@host/o/r.git: %w", cause))
	if strings.Contains(err.Error(), "tok3n") || !strings.Contains(err.Error(), "https://host/o/r.git") {
		t.Errorf("redacted to %q", err)
	}
	if !errors.Is(err, cause) {
		t.Error("the redacted error lost its cause")
	}
	if Error(cause) != cause || Error(nil) != nil {
		t.Error("an error without credentials was changed")
	}
}

var leftCredentials = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^/@\s"':]*:[^/@\s"']*@`)

func FuzzBytes(f *testing.F) {
	f.Add("url = https://user:secret@host/x")
	f.Add("ssh://git:pw@h/x and http://a@b@c/d")
	f.Add("x://:@")
	f.Fuzz(func(t *testing.T, s string) {
		out := Bytes([]byte(s))
		if m := leftCredentials.Find(out); m != nil {
			t.Fatalf("Bytes(%q) = %q keeps a password in %q", s, out, m)
		}
		if again := Bytes(out); !bytes.Equal(again, out) {
			t.Fatalf("Bytes is not idempotent on %q: %q then %q", s, out, again)
		}
	})
}

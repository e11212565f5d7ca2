package cargotool

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckRust(t *testing.T) {
	tests := []struct {
		required, have string
		tooOld, bad    bool
	}{
		{"", "1.85.1", false, false},
		{"1.85", "1.85.1", false, false},
		{"1.85.1", "1.85.1", false, false},
		{"1.85.2", "1.85.1", true, false},
		{"1.86", "1.85.1", true, false},
		{"2.0", "1.85.1", true, false},
		{"1.60.0", "1.85.1", false, false},
		{"1", "1.85.1", false, true},
		{"1.x", "1.85.1", false, true},
		{"1.85", "", false, true},
	}
	for _, tt := range tests {
		err := CheckRust(tt.required, tt.have)
		var re *RustVersionError
		if got := errors.As(err, &re); got != tt.tooOld {
			t.Errorf("CheckRust(%q, %q) = %v, want too old %t", tt.required, tt.have, err, tt.tooOld)
		}
		if tt.bad != (err != nil && re == nil) {
			t.Errorf("CheckRust(%q, %q) = %v, want unreadable %t", tt.required, tt.have, err, tt.bad)
		}
		if re != nil && (!strings.Contains(err.Error(), tt.required) || !strings.Contains(err.Error(), tt.have)) {
			t.Errorf("message %q names not both versions", err)
		}
	}
}

func TestRustcVersion(t *testing.T) {
	for out, want := range map[string]string{
		"rustc 1.85.1 (4eb161250 2025-03-15) (built from a source tarball)\n": "1.85.1",
		"rustc 1.63.0\n":                   "1.63.0",
		"bash: rustc: command not found\n": "",
	} {
		if got := RustcVersion(out); got != want {
			t.Errorf("RustcVersion(%q) = %q, want %q", out, got, want)
		}
	}
}

func FuzzRustcVersion(f *testing.F) {
	f.Add("rustc 1.85.1 (4eb161250 2025-03-15)")
	f.Fuzz(func(t *testing.T, out string) {
		if v := RustcVersion(out); v != "" {
			_ = CheckRust("1.70", v)
		}
	})
}

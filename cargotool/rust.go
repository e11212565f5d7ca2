package cargotool

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// RustcLine asks the sandbox's rustc for its version.
const RustcLine = "rustc --version"

// rustcVersion finds the version in rustc --version's output: "rustc 1.85.1 (4eb161250
// 2025-03-15) (built from a source tarball)".
var rustcVersion = regexp.MustCompile(`(?m)^rustc (\d+\.\d+(?:\.\d+)?)`)

// RustcVersion returns the version in rustc --version's output, "" when there is none.
func RustcVersion(out string) string {
	if m := rustcVersion.FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return ""
}

// RustVersionError says the package asks for a newer Rust than the suite's rustc; the
// pipeline classes it a setup failure.
type RustVersionError struct {
	Required, Have string
}

func (e *RustVersionError) Error() string {
	return fmt.Sprintf("the package asks for Rust %s (rust-version in Cargo.toml) and the suite's rustc is %s: "+
		"port it on a suite with a newer rustc, or port a release of the package that supports Rust %s", e.Required, e.Have, e.Have)
}

// CheckRust compares the manifest's rust-version with the rustc version have: a
// *RustVersionError when the package asks for more, nil when it asks for nothing or
// have meets it. A version that does not read as major.minor[.patch] is an error.
func CheckRust(required, have string) error {
	if required == "" {
		return nil
	}
	r, err := parseRustVersion(required)
	if err != nil {
		return fmt.Errorf("the manifest's rust-version %q: %w", required, err)
	}
	h, err := parseRustVersion(have)
	if err != nil {
		return fmt.Errorf("the sandbox's rustc version %q: %w", have, err)
	}
	for i := range r {
		if h[i] != r[i] {
			if h[i] < r[i] {
				return &RustVersionError{Required: required, Have: have}
			}
			return nil
		}
	}
	return nil
}

// parseRustVersion reads a rust-version: major.minor with an optional patch (a missing
// patch is 0, as cargo reads it).
func parseRustVersion(v string) ([3]int, error) {
	var out [3]int
	parts := strings.Split(strings.TrimSpace(v), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return out, fmt.Errorf("want major.minor[.patch]")
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p == "" || (len(p) > 1 && p[0] == '0') {
			return out, fmt.Errorf("want major.minor[.patch]")
		}
		out[i] = n
	}
	return out, nil
}

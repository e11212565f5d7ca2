package crates

import (
	"cmp"
	"strings"
	"testing"
)

// The cases follow cargo's reference ("Specifying dependencies") and the semver
// crate's behaviour that cargo uses.
func TestRequirementMatches(t *testing.T) {
	tests := []struct {
		req      string
		match    []string
		mismatch []string
	}{
		{"1.2.3", []string{"1.2.3", "1.2.4", "1.9.0"}, []string{"1.2.2", "2.0.0", "0.9.9", "1.3.0-beta"}},
		{"^1.2.3", []string{"1.2.3", "1.99.99"}, []string{"2.0.0", "1.2.2"}},
		{"^1.2", []string{"1.2.0", "1.7.1"}, []string{"1.1.9", "2.0.0"}},
		{"^1", []string{"1.0.0", "1.9.9"}, []string{"0.9.0", "2.0.0"}},
		{"^0.2.3", []string{"0.2.3", "0.2.9"}, []string{"0.3.0", "0.2.2"}},
		{"0.2", []string{"0.2.0", "0.2.99"}, []string{"0.3.0", "0.1.0"}},
		{"^0.0.3", []string{"0.0.3"}, []string{"0.0.4", "0.0.2"}},
		{"^0.0", []string{"0.0.0", "0.0.9"}, []string{"0.1.0"}},
		{"^0", []string{"0.0.0", "0.9.9"}, []string{"1.0.0"}},
		{"~1.2.3", []string{"1.2.3", "1.2.9"}, []string{"1.3.0", "1.2.2"}},
		{"~1.2", []string{"1.2.0", "1.2.9"}, []string{"1.3.0", "1.1.0"}},
		{"~1", []string{"1.0.0", "1.9.0"}, []string{"2.0.0", "0.9.0"}},
		{"*", []string{"0.0.1", "99.0.0"}, []string{"1.0.0-alpha"}},
		{"", []string{"0.1.0", "3.4.5"}, []string{"2.0.0-rc.1"}},
		{"1.*", []string{"1.0.0", "1.9.9"}, []string{"2.0.0", "0.9.0"}},
		{"1.2.*", []string{"1.2.0", "1.2.9"}, []string{"1.3.0"}},
		{"1.x", []string{"1.5.0"}, []string{"2.0.0"}},
		{"1.2.X", []string{"1.2.5"}, []string{"1.3.0"}},
		{">= 1.2.0", []string{"1.2.0", "5.0.0"}, []string{"1.1.9"}},
		{"> 1", []string{"2.0.0"}, []string{"1.9.9", "1.0.0"}},
		{">1.2", []string{"1.3.0"}, []string{"1.2.9"}},
		{"< 2", []string{"1.9.9"}, []string{"2.0.0"}},
		{"<=1.2", []string{"1.2.9", "1.0.0"}, []string{"1.3.0"}},
		{"= 1.2.3", []string{"1.2.3"}, []string{"1.2.4"}},
		{"=1.2", []string{"1.2.0", "1.2.7"}, []string{"1.3.0"}},
		{">= 1.2, < 1.5", []string{"1.2.0", "1.4.9"}, []string{"1.5.0", "1.1.0"}},
		{">=1.2.3,<2", []string{"1.2.3", "1.9.0"}, []string{"2.0.0"}},
		// Pre-releases: only when a comparator names the same version with one.
		{"1.0.0-alpha", []string{"1.0.0-alpha", "1.0.0-beta", "1.0.0", "1.0.1"}, []string{"1.0.1-alpha", "0.9.0"}},
		{">=1.2.3-rc.1, <1.2.4", []string{"1.2.3-rc.1", "1.2.3-rc.2", "1.2.3"}, []string{"1.2.3-beta", "1.2.4-rc.1"}},
		{"=1.0.0-rc.10", []string{"1.0.0-rc.10"}, []string{"1.0.0-rc.9", "1.0.0"}},
		{"~1.2.3-beta", []string{"1.2.3-beta", "1.2.3-beta.2", "1.2.3", "1.2.9"}, []string{"1.3.0", "1.2.4-beta"}},
		{"^1.2.3+build", []string{"1.2.3", "1.3.0"}, []string{"1.2.2"}},
	}
	for _, tt := range tests {
		r, err := ParseRequirement(tt.req)
		if err != nil {
			t.Errorf("ParseRequirement(%q): %v", tt.req, err)
			continue
		}
		for _, s := range tt.match {
			if v := mustVersion(t, s); !r.Matches(v) {
				t.Errorf("%q does not match %s", tt.req, s)
			}
		}
		for _, s := range tt.mismatch {
			if v := mustVersion(t, s); r.Matches(v) {
				t.Errorf("%q matches %s", tt.req, s)
			}
		}
	}
}

func mustVersion(t *testing.T, s string) Version {
	t.Helper()
	v, err := ParseVersion(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestParseRequirementRefuses(t *testing.T) {
	for _, s := range []string{
		"1.2.3.4", "01.2", "1.02", "abc", "1.*.3", "*, 1.0", "1.0,", ">=", "1.2.3-", "1.2.3-01",
		"~>1.2", "1.2 1.3", "1.2.3-alpha..1", "18446744073709551616", strings.Repeat("1.0, ", 40) + "1.0",
		"1.2.3 - 2.0.0",
	} {
		if r, err := ParseRequirement(s); err == nil {
			t.Errorf("ParseRequirement(%q) = %v, want an error", s, r)
		}
	}
}

func TestRequirementString(t *testing.T) {
	for in, want := range map[string]string{"1.2": "^1.2", ">= 1.2, <2": ">=1.2, <2", "1.*": "1.*", "*": "*", "=1.0.0-rc.1": "=1.0.0-rc.1", "~0.3": "~0.3"} {
		r, err := ParseRequirement(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.String(); got != want {
			t.Errorf("%q: String() = %q, want %q", in, got, want)
		}
	}
}

func TestVersionCompare(t *testing.T) {
	// Ascending, as semver orders them.
	order := []string{"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
		"1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "2.0.0", "10.0.0"}
	for i := range order {
		for j := range order {
			a, b := mustVersion(t, order[i]), mustVersion(t, order[j])
			want := cmp.Compare(i, j)
			if got := a.Compare(b); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
	if v := mustVersion(t, "1.2.3+build.7"); v.String() != "1.2.3" {
		t.Errorf("build metadata kept: %s", v)
	}
	for _, s := range []string{"1.2", "1.2.3.4", "v1.2.3", "1.2.3-", "1.2.3+", "1.2.3-00"} {
		if _, err := ParseVersion(s); err == nil {
			t.Errorf("ParseVersion(%q) succeeded", s)
		}
	}
}

func FuzzParseRequirement(f *testing.F) {
	for _, s := range []string{"1.2.3", "^0.8", ">=1.2, <2", "~1", "1.*", "*", "=1.0.0-rc.1+b", "<= 0.0.0-0", "x"} {
		f.Add(s, "1.2.3")
	}
	f.Fuzz(func(t *testing.T, req, ver string) {
		r, err := ParseRequirement(req)
		if err != nil {
			return
		}
		// What String writes parses again to the same requirement.
		again, err := ParseRequirement(r.String())
		if err != nil {
			t.Fatalf("%q: String() %q does not parse: %v", req, r.String(), err)
		}
		if again.String() != r.String() {
			t.Fatalf("%q: %q then %q", req, r.String(), again.String())
		}
		if v, err := ParseVersion(ver); err == nil && r.Matches(v) != again.Matches(v) {
			t.Fatalf("%q and %q disagree on %s", req, r.String(), v)
		}
	})
}

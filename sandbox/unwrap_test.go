package sandbox_test

import (
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// bare is a sandbox with no optional capability.
type bare struct{ atesor.Sandbox }

// reporter is a sandbox that reports its toolchain.
type reporter struct {
	atesor.Sandbox
	tc sandbox.Toolchain
}

func (r reporter) Toolchain() sandbox.Toolchain { return r.tc }

// wrapper wraps a sandbox the way a timing or logging layer does: it has only the
// methods of atesor.Sandbox (through embedding) and Unwrap.
type wrapper struct{ atesor.Sandbox }

func (w wrapper) Unwrap() atesor.Sandbox { return w.Sandbox }

// loop is a broken wrapper that unwraps to itself.
type loop struct{ atesor.Sandbox }

func (l *loop) Unwrap() atesor.Sandbox { return l }

func TestAs(t *testing.T) {
	inner := reporter{tc: sandbox.Toolchain{Changes: []string{"marker"}}}
	tests := []struct {
		name string
		sb   atesor.Sandbox
		want bool
	}{
		{name: "the sandbox itself", sb: inner, want: true},
		{name: "through one wrapper", sb: wrapper{inner}, want: true},
		{name: "through two wrappers", sb: wrapper{wrapper{inner}}, want: true},
		{name: "a sandbox without it", sb: bare{}, want: false},
		{name: "a wrapper of a sandbox without it", sb: wrapper{bare{}}, want: false},
		{name: "nil", sb: nil, want: false},
		{name: "a wrapper of nil", sb: wrapper{nil}, want: false},
		{name: "a wrapper that unwraps to itself ends", sb: &loop{}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A plain type assertion is what As replaces: through a wrapper it misses.
			var tr sandbox.ToolchainReporter
			got := sandbox.As(tt.sb, &tr)
			if got != tt.want {
				t.Fatalf("As = %v, want %v", got, tt.want)
			}
			if got && len(tr.Toolchain().Changes) != 1 {
				t.Errorf("As found %#v, not the wrapped reporter", tr)
			}
			if !got && tr != nil {
				t.Errorf("As set the target to %#v without a match", tr)
			}
		})
	}
	// A backend's concrete type is found the same way.
	var r reporter
	if !sandbox.As(wrapper{inner}, &r) || r.tc.Changes[0] != "marker" {
		t.Errorf("As(&reporter) through a wrapper = %#v", r)
	}
}

package graph

import (
	"testing"
)

// FuzzExtractError: any build output gives a bounded, non-empty error whose first line
// comes from the output.
func FuzzExtractError(f *testing.F) {
	f.Add(m64Error)
	f.Add("")
	f.Add("warning: x\nerror: y\n")
	f.Fuzz(func(t *testing.T, out string) {
		msg := extractError(out)
		if msg == "" || len(msg) > maxErrorChars {
			t.Fatalf("extractError gave %d bytes", len(msg))
		}
	})
}

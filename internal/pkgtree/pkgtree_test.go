package pkgtree

import "testing"

func TestRel(t *testing.T) {
	if got := Rel("/workspace/z", "/workspace/z/lib/libz.so"); got != "lib/libz.so" {
		t.Errorf("Rel = %q", got)
	}
}

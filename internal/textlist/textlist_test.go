package textlist_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go/internal/textlist"
)

func TestLimit(t *testing.T) {
	in := []string{"a", "b", "c"}
	if d := cmp.Diff([]string{"a", "and 2 more"}, textlist.Limit(in, 1)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"a", "b", "c"}, in); d != "" {
		t.Errorf("the input changed (-want +got):\n%s", d)
	}
	if got := textlist.Limit(in, 3); len(got) != 3 {
		t.Errorf("Limit(3) = %q", got)
	}
}

func TestOrNone(t *testing.T) {
	if textlist.OrNone("") != "none" || textlist.OrNone("x") != "x" {
		t.Errorf("OrNone: %q %q", textlist.OrNone(""), textlist.OrNone("x"))
	}
}

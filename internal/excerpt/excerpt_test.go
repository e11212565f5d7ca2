package excerpt

import "testing"

func TestFirstLine(t *testing.T) {
	for in, want := range map[string]string{"": "", "one": "one", "  one\ntwo\n": "one", "\n\nlast  ": "last", "a\r\nb": "a\r"} {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTail(t *testing.T) {
	if got := Tail("abcdef", 3); got != "...def" {
		t.Errorf("Tail = %q", got)
	}
	if got := Tail("abc", 3); got != "abc" {
		t.Errorf("Tail of a short text = %q", got)
	}
}

func TestHead(t *testing.T) {
	if got := Head("abcdef", 3); got != "abc" {
		t.Errorf("Head = %q", got)
	}
	if got := Head("ab", 3); got != "ab" {
		t.Errorf("Head of a short text = %q", got)
	}
}

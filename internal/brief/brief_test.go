package brief

import "testing"

func TestCutAndFirstLine(t *testing.T) {
	if Cut("abcdef", 3) != "abc" || Cut("ab", 3) != "ab" {
		t.Error("Cut")
	}
	if FirstLine("  one\ntwo\n") != "one" || FirstLine("x") != "x" {
		t.Error("FirstLine")
	}
}

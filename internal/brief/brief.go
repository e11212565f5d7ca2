// Package brief shortens the text of a command's output or a message for the lines
// people read (problems, notes, events, prompts): its first line, or a bounded prefix.
// The pipeline and the checks below it quote such text alike. Lists of names are cut
// by package textlist.
package brief

import "strings"

// Cut returns at most the first n bytes of s.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// FirstLine returns the first line of s without surrounding space.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

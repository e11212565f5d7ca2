// Package textlist shortens the lists of names that messages and recipes quote, so a
// build with thousands of failing tests or missing functions still gives a readable
// line; every concern that quotes names cuts them the same way.
package textlist

import "fmt"

// Limit returns the first n entries of list, followed by "and N more" when it had more.
// It never changes list's backing array.
func Limit(list []string, n int) []string {
	if len(list) > n {
		return append(list[:n:n], fmt.Sprintf("and %d more", len(list)-n))
	}
	return list
}

// OrNone returns s, or "none" when s is empty: a missing value named in a message or a
// recipe line.
func OrNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

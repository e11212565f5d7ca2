// Package escape turns text that came from a build, a package or a model (file names,
// package names, test names, error messages) into data that cannot act on what shows
// or parses it: a terminal (escape sequences that retitle the window, clear the screen
// or write the clipboard), a Markdown reader (a code fence or heading that changes the
// document's structure) or a program that reads Atesor's Markdown back (the recipe's
// command block).
//
// Control characters (C0, DEL, C1), bytes that are not UTF-8 and the Unicode controls
// that reorder or break lines (bidirectional overrides and isolates, line and paragraph
// separators) are shown as Go-style escapes: ESC is \x1b, U+202E is \u202e. A line
// break stays one only where the caller asks for multi-line text ([Text]); every other
// function gives one line, so a value can never start a Markdown line of its own.
package escape

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Line returns s as one line safe for a terminal or a log: every control character,
// including line breaks and tabs, every byte that is not UTF-8 and every text-reordering
// Unicode control is shown as an escape (\x1b, \n, \u202e). Printable text, also
// non-ASCII, is kept.
func Line(s string) string { return escapeText(s, false) }

// Text is [Line] for multi-line text: line breaks (\n) and tabs stay, a carriage return
// (which lets a line overwrite the one shown before it) and every other control
// character is escaped.
func Text(s string) string { return escapeText(s, true) }

// Code returns s for the inside of a Markdown code span written with single backticks
// (`...`): one line ([Line]) with every backtick replaced by an apostrophe, so the value
// can neither close the span nor open a fence.
func Code(s string) string { return strings.ReplaceAll(Line(s), "`", "'") }

// markdownSpecial are the characters that give inline Markdown (and tables) meaning.
const markdownSpecial = "\\`*[]<>|"

// Markdown returns s as one line of Markdown prose: one line ([Line]), so it can never
// start a block (a fence, a heading, a list), with the characters that make code spans,
// links, images, HTML or table cells backslash-escaped. Emphasis characters other than
// * are kept: a test named t_sum stays readable.
func Markdown(s string) string {
	l := Line(s)
	var b strings.Builder
	b.Grow(len(l))
	for _, r := range l {
		if r < utf8.RuneSelf && strings.ContainsRune(markdownSpecial, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Fence returns a fenced Markdown code block with the info string info holding body
// ([Text]-escaped): its fence is longer than any run of backticks in body, so no line of
// body closes it or opens another block.
func Fence(info, body string) string {
	body = strings.TrimRight(Text(body), "\n")
	n, run := 3, 0
	for i := 0; i < len(body); i++ {
		if body[i] == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", n)
	return fence + Code(info) + "\n" + body + "\n" + fence + "\n"
}

func escapeText(s string, multiline bool) string {
	if isPlain(s, multiline) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case multiline && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, `\u%04x`, r)
		case reorders(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isPlain reports whether s needs no escape (the common case, kept allocation-free).
func isPlain(s string, multiline bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return plainUnicode(s[i:])
		}
		if c < 0x20 || c == 0x7f {
			if multiline && (c == '\n' || c == '\t') {
				continue
			}
			return false
		}
	}
	return true
}

func plainUnicode(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || (r >= 0x80 && r < 0xa0) || reorders(r) {
			return false
		}
		if r < 0x20 || r == 0x7f {
			return false // the slow path keeps what the caller allows
		}
		i += size
	}
	return true
}

// reorders reports whether r is a Unicode control that changes the order in which text
// is shown (so a name can look like another) or breaks a line without a newline.
func reorders(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f: // Arabic letter mark, LRM, RLM
		return true
	case r >= 0x202a && r <= 0x202e: // embeddings and overrides
		return true
	case r >= 0x2066 && r <= 0x2069: // isolates
		return true
	case r == 0x2028 || r == 0x2029: // line and paragraph separators
		return true
	case r == 0xfeff: // byte-order mark inside text
		return true
	}
	return false
}

// Package deb822 reads Debian control data: the paragraphs of "Field: value" lines that
// dpkg's status file, the archive's Packages and Sources indexes and .dsc files are made
// of (deb822(5)). It is one reader for every such file Atesor reads, so a malformed line
// in untrusted index data is handled the same way everywhere: skipped, never fatal.
package deb822

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// MaxLine is the longest line read (a Depends or Binary line of a large source package
// runs to some kilobytes; 4 MiB leaves room without letting one line hold the heap).
const MaxLine = 4 << 20

// Paragraph is one stanza, field names folded to lower case. A field's value is its
// first line trimmed, then each continuation line (one that starts with a space or a
// tab) trimmed, joined by "\n"; a continuation line of a single "." (an empty line in a
// description) is kept as "".
type Paragraph map[string]string

// Get returns the value of the field name, in any case ("Package" and "package" are the
// same field, as in deb822).
func (p Paragraph) Get(name string) string { return p[strings.ToLower(name)] }

// Lines returns the continuation lines of a multi-line field (a Checksums-Sha256 or
// Files list), without its first line.
func (p Paragraph) Lines(name string) []string {
	v := p.Get(name)
	_, rest, ok := strings.Cut(v, "\n")
	if !ok {
		return nil
	}
	return strings.Split(rest, "\n")
}

// Read calls fn for each paragraph of r, in order, until fn returns false or r ends.
// When keep names fields, only those are stored (reading a 60 MB index for three
// fields then allocates little). Lines that are neither a field nor a continuation
// (no colon, a continuation before any field) are skipped; comment lines (#) are
// ignored. Only a read error, or a line longer than [MaxLine], is returned.
func Read(r io.Reader, fn func(Paragraph) bool, keep ...string) error {
	var want map[string]bool
	if len(keep) > 0 {
		want = make(map[string]bool, len(keep))
		for _, k := range keep {
			want[strings.ToLower(k)] = true
		}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	var cur Paragraph
	field := "" // the field continuation lines belong to; "" when skipped
	flush := func() bool {
		ok := true
		if len(cur) > 0 {
			ok = fn(cur)
		}
		cur, field = nil, ""
		return ok
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			if !flush() {
				return nil
			}
		case line[0] == '#':
		case line[0] == ' ' || line[0] == '\t':
			if field == "" {
				continue
			}
			v := strings.TrimSpace(line)
			if v == "." {
				v = ""
			}
			cur[field] += "\n" + v
		default:
			k, v, ok := strings.Cut(line, ":")
			k = strings.ToLower(strings.TrimSpace(k))
			if !ok || k == "" || want != nil && !want[k] {
				field = ""
				continue
			}
			if cur == nil {
				cur = Paragraph{}
			}
			cur[k], field = strings.TrimSpace(v), k
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("deb822: %w", err)
	}
	flush()
	return nil
}

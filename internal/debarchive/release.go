package debarchive

import (
	"bytes"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/deb822"
)

// FileHash is what signed data says of a file: its SHA-256 (lower-case hex) and size.
type FileHash struct {
	SHA256 string
	Size   int64
}

// Release is the verified content of a suite's Release file.
type Release struct {
	// Suite and Codename are the names the archive gives the suite (stable, trixie).
	Suite, Codename string
	// Date is when the archive made the file; ValidUntil, when set, when it expires.
	Date, ValidUntil time.Time
	// ByHash says the mirror also serves each index under by-hash/SHA256/<hash>, so a
	// download cannot be a newer file than the one the Release lists.
	ByHash bool
	// Files maps an index's path below dists/SUITE/ (main/source/Sources.xz) to its
	// SHA-256 and size.
	Files map[string]FileHash
}

// ParseRelease reads the text of a Release file (the signed part of an InRelease, after
// verification). It needs a Suite or Codename, a Date and at least one SHA256 entry;
// malformed SHA256 lines are skipped, and so are paths that could leave the suite's
// directory.
func ParseRelease(text []byte) (*Release, error) {
	var p deb822.Paragraph
	err := deb822.Read(bytes.NewReader(text), func(par deb822.Paragraph) bool {
		p = par
		return false // a Release file is one paragraph
	}, "Suite", "Codename", "Date", "Valid-Until", "Acquire-By-Hash", "SHA256")
	if err != nil {
		return nil, fmt.Errorf("read the Release file: %w", err)
	}
	if p == nil {
		return nil, fmt.Errorf("the Release file is empty")
	}
	r := &Release{Suite: p.Get("Suite"), Codename: p.Get("Codename"), ByHash: strings.EqualFold(p.Get("Acquire-By-Hash"), "yes"),
		Files: map[string]FileHash{}}
	if r.Suite == "" && r.Codename == "" {
		return nil, fmt.Errorf("the Release file names no Suite or Codename")
	}
	if r.Date, err = parseDate(p.Get("Date")); err != nil {
		return nil, fmt.Errorf("the Release file's Date: %w", err)
	}
	if v := p.Get("Valid-Until"); v != "" {
		if r.ValidUntil, err = parseDate(v); err != nil {
			return nil, fmt.Errorf("the Release file's Valid-Until: %w", err)
		}
	}
	for _, l := range p.Lines("SHA256") {
		f := strings.Fields(l)
		if len(f) != 3 || !isSHA256(f[0]) {
			continue
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || n < 0 || !safeRel(f[2]) {
			continue
		}
		r.Files[f[2]] = FileHash{SHA256: f[0], Size: n}
	}
	if len(r.Files) == 0 {
		return nil, fmt.Errorf("the Release file lists no SHA256 checksums")
	}
	return r, nil
}

// parseDate parses the dates of a Release file (RFC 2822, in UTC or with an offset).
func parseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC1123, time.RFC1123Z, "Mon, 2 Jan 2006 15:04:05 MST", "Mon, 2 Jan 2006 15:04:05 -0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date", s)
}

// isSHA256 reports whether s is 64 lower-case hex digits.
func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// safeRel reports whether p is a clean relative path that stays below its directory.
func safeRel(p string) bool {
	return p != "" && !strings.HasPrefix(p, "/") && !strings.Contains(p, "\\") && path.Clean(p) == p && p != "." &&
		p != ".." && !strings.HasPrefix(p, "../")
}

// names reports whether the Release is the suite's: its Suite or its Codename.
func (r *Release) names(suite string) bool { return r.Suite == suite || r.Codename == suite }

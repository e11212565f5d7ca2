package source

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
)

// Kind is how a package's source is given.
type Kind string

// The source kinds.
const (
	Dir     Kind = "dir"
	Tarball Kind = "tarball"
	Git     Kind = "git"
	URL     Kind = "url" // a tarball to download
)

var archiveExt = regexp.MustCompile(`(?i)\.(tar\.gz|tgz|tar\.xz|txz|tar\.bz2|tbz2|tar\.zst|tar|zip)$`)

// KindOf tells how a source string is given: a git URL (ends in .git, or git@, git://,
// or an http(s) URL without an archive extension), a tarball URL, a local tarball or a
// local directory.
func KindOf(source string) Kind {
	s := strings.TrimSpace(source)
	switch {
	case strings.HasPrefix(s, "git@"), strings.HasPrefix(s, "git://"), strings.HasPrefix(s, "ssh://"):
		return Git
	case strings.HasPrefix(s, "http://"), strings.HasPrefix(s, "https://"), strings.HasPrefix(s, "file://"):
		if archiveExt.MatchString(strings.TrimSuffix(s, "/")) {
			return URL
		}
		return Git
	case strings.HasSuffix(s, ".git"):
		if fi, err := os.Stat(s); err == nil && fi.IsDir() {
			return Dir // a local checkout whose directory ends in .git
		}
		return Git
	case archiveExt.MatchString(s):
		return Tarball
	default:
		return Dir
	}
}

var (
	debianOrig = regexp.MustCompile(`_[0-9][^_/]*\.orig$`)
	versionTag = regexp.MustCompile(`-v?[0-9]+(\.[0-9]+)+([.-][0-9A-Za-z]+)*$`)
	unsafeName = regexp.MustCompile(`[^A-Za-z0-9._+-]+`)
)

// PackageName derives the package name from a source: the basename with .git and archive
// extensions stripped, the _<version>.orig of Debian tarballs stripped, a trailing
// -<version> of upstream tarballs stripped, and anything that is not a safe file-name
// character replaced, so the name works as a directory and file prefix.
func PackageName(source string) string {
	s := strings.TrimRight(strings.TrimSpace(source), "/")
	if i := strings.IndexAny(s, "?#"); i >= 0 && KindOf(s) != Dir {
		s = s[:i]
	}
	base := path.Base(strings.ReplaceAll(s, "\\", "/"))
	if i := strings.LastIndex(base, ":"); i >= 0 { // git@host:owner/repo.git
		base = base[i+1:]
	}
	base = strings.TrimSuffix(base, ".git")
	base = archiveExt.ReplaceAllString(base, "")
	base = debianOrig.ReplaceAllString(base, "")
	if KindOf(source) == Tarball || KindOf(source) == URL {
		base = versionTag.ReplaceAllString(base, "")
	}
	base = unsafeName.ReplaceAllString(base, "-")
	base = strings.Trim(base, ".-")
	if base == "" {
		return "package"
	}
	return base
}

// SanitizeName makes a package name safe to use in file names under the output
// directory, like a derived name: characters other than letters, digits and . _ + -
// become -, leading and trailing dots and dashes go (so "..", "../x" and "/etc/x" can
// never leave the output directory), it is at most 100 bytes, and an empty result is
// "package". Request.Name and --name go through it.
func SanitizeName(name string) string {
	s := unsafeName.ReplaceAllString(strings.TrimSpace(name), "-")
	s = strings.Trim(s, ".-")
	if len(s) > 100 {
		s = strings.Trim(s[:100], ".-")
	}
	if s == "" {
		return "package"
	}
	return s
}

// RequestName is the package name of a request: Request.Name sanitised, or the name
// derived from the source.
func RequestName(req atesor.Request) string {
	if strings.TrimSpace(req.Name) != "" {
		return SanitizeName(req.Name)
	}
	return PackageName(req.Source)
}

// fileSHA256 returns the hex SHA-256 of a file.
func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

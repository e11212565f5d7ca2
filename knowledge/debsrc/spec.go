package debsrc

import (
	"fmt"
	"regexp"
	"strings"
)

// Prefix starts a Debian source package given by name.
const Prefix = "debian:"

// Debian source package names: lower-case letters, digits, + - . and at least two
// characters, starting with a letter or digit (Debian Policy 5.6.1). Versions: digits,
// letters and . + ~ - :.
var (
	nameRE    = regexp.MustCompile(`^[a-z0-9][a-z0-9+.-]+$`)
	versionRE = regexp.MustCompile(`^[0-9][A-Za-z0-9.+~:-]*$`)
)

// IsSpec reports whether source names a Debian source package (debian:NAME...).
func IsSpec(source string) bool { return strings.HasPrefix(strings.TrimSpace(source), Prefix) }

// ParseSpec splits debian:NAME[=VERSION] into name and version ("" for the index's
// version). It rejects names and versions Debian does not allow, so nothing of the spec
// can leave the archive's pool directory.
func ParseSpec(source string) (name, version string, err error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(source), Prefix)
	if !ok {
		return "", "", fmt.Errorf("debsrc: %q is not a Debian source (write debian:NAME or debian:NAME=VERSION)", source)
	}
	name, version, _ = strings.Cut(rest, "=")
	if !nameRE.MatchString(name) {
		return "", "", fmt.Errorf("debsrc: %q is not a Debian source package name (lower-case letters, digits, + - ., two characters at least)", name)
	}
	if strings.Contains(rest, "=") && !versionRE.MatchString(version) {
		return "", "", fmt.Errorf("debsrc: %q is not a Debian version (debian:%s=1.2.3-1)", version, name)
	}
	return name, version, nil
}

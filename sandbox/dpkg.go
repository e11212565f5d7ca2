package sandbox

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// dpkgStatusFile is the dpkg database of installed packages, relative to a root.
const dpkgStatusFile = "var/lib/dpkg/status"

// dpkgPackage is one stanza of a dpkg status file.
type dpkgPackage struct {
	Name, Arch, Version, Status string
	Depends                     string
}

// installed reports whether dpkg considers the package installed.
func (p dpkgPackage) installed() bool { return strings.HasSuffix(p.Status, " installed") }

// parseDpkgStatus reads the stanzas of a dpkg status file (deb822: blank-line separated
// stanzas of "Field: value" lines, continuation lines start with a space). Malformed
// lines are skipped; a package listed twice (two architectures) keeps its installed
// entry.
func parseDpkgStatus(data []byte) map[string]dpkgPackage {
	out := map[string]dpkgPackage{}
	var cur dpkgPackage
	last := ""
	flush := func() {
		if cur.Name != "" {
			if old, ok := out[cur.Name]; !ok || !old.installed() || cur.installed() {
				out[cur.Name] = cur
			}
		}
		cur, last = dpkgPackage{}, ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if last == "Depends" {
				cur.Depends += " " + strings.TrimSpace(line)
			}
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			last = ""
			continue
		}
		v = strings.TrimSpace(v)
		last = k
		switch k {
		case "Package":
			cur.Name = v
		case "Architecture":
			cur.Arch = v
		case "Version":
			cur.Version = v
		case "Status":
			cur.Status = v
		case "Depends":
			cur.Depends = v
		}
	}
	flush()
	return out
}

// readDpkgStatus parses <root>/var/lib/dpkg/status.
func readDpkgStatus(root string) (map[string]dpkgPackage, error) {
	data, err := os.ReadFile(filepath.Join(root, dpkgStatusFile))
	if err != nil {
		return nil, err
	}
	return parseDpkgStatus(data), nil
}

// crossSuffix is what Debian's gcc-N-cross source adds to the version of the gcc-N
// source it was built from (14.2.0-19cross1 is built from gcc-14 14.2.0-19).
var crossSuffix = regexp.MustCompile(`cross[0-9]+$`)

// nativeVersion returns the version of the native package that a cross package of the
// given version was built from.
func nativeVersion(crossVersion string) string {
	return crossSuffix.ReplaceAllString(crossVersion, "")
}

package accel

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/beneath"
	"github.com/eclipse-atesor/atesor-go/internal/deb822"
)

// BoundDpkgStatus bounds a read of /var/lib/dpkg/status, read for installed versions.
var BoundDpkgStatus = beneath.Bound{Kind: "dpkg status file", Max: 64 << 20}

// dpkgStatusFile is the dpkg database of installed packages, relative to a root.
const dpkgStatusFile = "var/lib/dpkg/status"

// dpkgPackage is one stanza of a dpkg status file.
type dpkgPackage struct {
	Name, Arch, Version, Status string
	Depends                     string
}

// installed reports whether dpkg considers the package installed.
func (p dpkgPackage) installed() bool { return strings.HasSuffix(p.Status, " installed") }

// parseDpkgStatus reads the stanzas of a dpkg status file. Malformed lines are skipped;
// a package listed twice (two architectures) keeps its installed entry.
func parseDpkgStatus(data []byte) map[string]dpkgPackage {
	out := map[string]dpkgPackage{}
	// Reading from memory fails only on a line over deb822.MaxLine, which is skipped with
	// what follows it: the packages read so far are what the status says.
	_ = deb822.Read(bytes.NewReader(data), func(p deb822.Paragraph) bool {
		cur := dpkgPackage{Name: p.Get("Package"), Arch: p.Get("Architecture"), Version: p.Get("Version"),
			Status: p.Get("Status"), Depends: strings.ReplaceAll(p.Get("Depends"), "\n", " ")}
		if cur.Name != "" {
			if old, ok := out[cur.Name]; !ok || !old.installed() || cur.installed() {
				out[cur.Name] = cur
			}
		}
		return true
	}, "Package", "Architecture", "Version", "Status", "Depends")
	return out
}

// readDpkgStatus parses <root>/var/lib/dpkg/status, read through a gate on root.
func readDpkgStatus(root string) (map[string]dpkgPackage, error) {
	g, err := beneath.OpenDir(root)
	if err != nil {
		return nil, err
	}
	defer g.Close()
	return dpkgStatusIn(g)
}

// crossSuffix is what Debian's gcc-N-cross source adds to the version of the gcc-N
// source it was built from (14.2.0-19cross1 is built from gcc-14 14.2.0-19).
var crossSuffix = regexp.MustCompile(`cross[0-9]+$`)

// nativeVersion returns the version of the native package that a cross package of the
// given version was built from.
func nativeVersion(crossVersion string) string {
	return crossSuffix.ReplaceAllString(crossVersion, "")
}

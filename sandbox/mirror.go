package sandbox

import "github.com/eclipse-atesor/atesor-go/internal/debmirror"

// DebianMirror returns the Debian archive URL found by the same lookup as
// knowledge.DebianMirror ($ATESOR_DEBIAN_MIRROR, else the first main archive of the
// host's apt configuration), or "" when nothing is configured, in which case mmdebstrap
// uses its own default mirror.
func DebianMirror() string {
	m, err := debmirror.Find()
	if err != nil {
		return ""
	}
	return m
}

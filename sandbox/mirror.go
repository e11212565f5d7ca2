package sandbox

import "github.com/eclipse-atesor/atesor-go/knowledge"

// DebianMirror returns the Debian archive URL found by [knowledge.DebianMirror]
// ($ATESOR_DEBIAN_MIRROR, else the first main archive of the host's apt configuration),
// or "" when nothing is configured, in which case mmdebstrap uses its own default mirror.
func DebianMirror() string {
	m, err := knowledge.DebianMirror()
	if err != nil {
		return ""
	}
	return m
}

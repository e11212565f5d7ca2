package provision

import "github.com/eclipse-atesor/atesor-go/internal/debarchive"

// debianMirror returns the first main archive of the host's apt configuration, found
// by the same lookup as knowledge.DebianMirror, or "" when nothing is configured, in
// which case mmdebstrap uses its own default mirror. The sandbox's WithMirror overrides
// it (the CLI passes $ATESOR_DEBIAN_MIRROR).
func debianMirror() string {
	m, err := debarchive.FindMirror("")
	if err != nil {
		return ""
	}
	return m
}

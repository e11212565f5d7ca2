package knowledge

import (
	"regexp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debarchive"
)

// DebianMirrorEnv is the environment variable the command line reads a Debian mirror
// override from; the library takes the override as a value ([DebianMirror]).
const DebianMirrorEnv = debarchive.MirrorVariable

// DefaultDebianSuite is the Debian suite of the Debian profile.
const DefaultDebianSuite = debarchive.DefaultSuite

// ErrNoDebianMirror is returned when neither the override nor the host's apt
// configuration names a Debian archive.
var ErrNoDebianMirror = debarchive.ErrNoMirror

// DebianMirror returns the base URL of the Debian archive to download from, without a
// trailing slash: override when not blank, else the first main archive of the host's
// apt configuration, read from the deb822 files /etc/apt/sources.list.d/*.sources and
// then the one-line files /etc/apt/sources.list and /etc/apt/sources.list.d/*.list.
// Only enabled "deb" entries over http or https count; security, ports and debug
// archives are skipped. It returns an error wrapping [ErrNoDebianMirror] when nothing
// qualifies.
func DebianMirror(override string) (string, error) { return debarchive.FindMirror(override) }

// DebianMirrorIn returns the first main archive of the apt configuration under dir (an
// etc/apt directory, a sandbox's for example), read as [DebianMirror] reads the host's.
func DebianMirrorIn(dir string) (string, error) { return debarchive.MirrorIn(dir) }

// suiteInName is the suite a Debian profile's display name carries: "(trixie)".
var suiteInName = regexp.MustCompile(`\(([a-z]+)\)`)

// DebianSuite returns the Debian suite of p: the one its display name carries
// ("Debian GNU/Linux 13 (trixie)"), else [DefaultDebianSuite].
func DebianSuite(p atesor.Platform) string {
	if m := suiteInName.FindStringSubmatch(p.DisplayName); m != nil {
		return m[1]
	}
	return DefaultDebianSuite
}

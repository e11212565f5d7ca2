package knowledge

import "github.com/eclipse-atesor/atesor-go/internal/debmirror"

// DebianMirrorEnv overrides the Debian archive mirror [DebianMirror] finds.
const DebianMirrorEnv = debmirror.Env

// ErrNoDebianMirror is returned when neither the environment nor the host's apt
// configuration names a Debian archive.
var ErrNoDebianMirror = debmirror.ErrNone

// DebianMirror returns the base URL of the Debian archive to download from, without a
// trailing slash: $ATESOR_DEBIAN_MIRROR when set, else the first main archive of the
// host's apt configuration, read from the deb822 files /etc/apt/sources.list.d/*.sources
// and then the one-line files /etc/apt/sources.list and /etc/apt/sources.list.d/*.list.
// Only enabled "deb" entries over http or https count; security, ports and debug
// archives are skipped. It returns an error wrapping [ErrNoDebianMirror] when nothing
// qualifies.
func DebianMirror() (string, error) { return debmirror.Find() }

// DebianMirrorIn returns the first main archive of the apt configuration under dir (an
// etc/apt directory, a sandbox's for example), read as [DebianMirror] reads the host's;
// the environment is not consulted.
func DebianMirrorIn(dir string) (string, error) { return debmirror.In(dir) }

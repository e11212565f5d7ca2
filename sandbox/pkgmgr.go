package sandbox

import (
	"regexp"

	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
)

// packageManagers are the programs whose runs are serialised inside a sandbox.
var packageManagers = map[string]bool{"apt-get": true, "apt": true, "aptitude": true, "dpkg": true, "apk": true}

// IsPackageManagerCommand reports whether any simple command of the shell line runs a
// package manager (apt-get, apt, dpkg, apk, also behind sudo or env). The line is read
// with the shell parser the command rules use; a line it cannot parse runs no package
// manager, since the rules refuse it before it reaches a sandbox. The sandbox never
// changes the line: package-name corrections are made before the line is validated.
func IsPackageManagerCommand(line string) bool {
	f, err := shellwords.Parse(line)
	if err != nil {
		return false
	}
	for _, c := range shellwords.Commands(f) {
		if packageManagers[c.Name()] {
			return true
		}
	}
	return false
}

// staleIndex matches package-manager output that means the package index is stale.
var staleIndex = regexp.MustCompile(`(?i)(404\s+Not Found|Unable to locate package|Failed to fetch|` +
	`has no installation candidate|Hash Sum mismatch|File has unexpected size|UNTRUSTED signature|` +
	`ERROR: unable to select packages)`)

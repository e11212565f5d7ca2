package sandbox

import (
	"log/slog"
	"regexp"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"mvdan.cc/sh/v3/syntax"
)

// packageManagers are the programs whose runs are serialised inside a sandbox.
var packageManagers = map[string]bool{"apt-get": true, "apt": true, "aptitude": true, "dpkg": true, "apk": true}

// IsPackageManagerCommand reports whether any simple command of the shell line runs a
// package manager (apt-get, apt, dpkg, apk, also behind sudo or env).
func IsPackageManagerCommand(line string) bool {
	f, err := syntax.NewParser().Parse(strings.NewReader(line), "")
	if err != nil {
		for _, w := range strings.Fields(line) {
			if packageManagers[w] {
				return true
			}
		}
		return false
	}
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok {
			if i := programIndex(c); i >= 0 && packageManagers[c.Args[i].Lit()] {
				found = true
			}
		}
		return !found
	})
	return found
}

// programIndex returns the index of the program word of a call, skipping sudo and env.
func programIndex(c *syntax.CallExpr) int {
	for i, w := range c.Args {
		lit := w.Lit()
		if lit == "sudo" || lit == "env" || (i > 0 && strings.HasPrefix(lit, "-") && (c.Args[i-1].Lit() == "sudo" || c.Args[i-1].Lit() == "env")) {
			continue
		}
		if strings.Contains(lit, "=") && i > 0 && c.Args[0].Lit() == "env" {
			continue
		}
		return i
	}
	return -1
}

// correctInstall applies the profile's package-name corrections to the install
// commands of a package-manager line ([knowledge.CorrectInstallCommand]) and logs a
// rewrite.
func correctInstall(p atesor.Platform, line string, logger *slog.Logger) string {
	fixed := knowledge.CorrectInstallCommand(p, line)
	if fixed != line {
		logger.Info("sandbox: corrected package names", "from", line, "to", fixed)
	}
	return fixed
}

// updateCommand is the profile's package index update (apt-get update, apk update).
func updateCommand(p atesor.Platform) string {
	switch {
	case p.UpdateCommand != "":
		return p.UpdateCommand
	case profileOf(p) == "alpine":
		return "apk update"
	}
	return "apt-get update"
}

// staleIndex matches package-manager output that means the package index is stale.
var staleIndex = regexp.MustCompile(`(?i)(404\s+Not Found|Unable to locate package|Failed to fetch|` +
	`has no installation candidate|Hash Sum mismatch|File has unexpected size|UNTRUSTED signature|` +
	`ERROR: unable to select packages)`)

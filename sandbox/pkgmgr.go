package sandbox

import (
	"bytes"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// packageManagers are the programs whose runs are serialised inside a sandbox.
var packageManagers = map[string]bool{"apt-get": true, "apt": true, "aptitude": true, "dpkg": true, "apk": true}

// installVerbs are the subcommands after which package names follow.
var installVerbs = map[string]bool{"install": true, "add": true, "build-dep": true}

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

// CorrectPackageNames rewrites the package names of install commands in the shell line
// with the profile's corrections (for example another distro's name to this distro's),
// and returns the new line and the corrections it made as "old -> new". A line that
// does not parse is returned unchanged.
func CorrectPackageNames(line string, corrections map[string]string) (string, []string) {
	if len(corrections) == 0 {
		return line, nil
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(line), "")
	if err != nil {
		return line, nil
	}
	var made []string
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		i := programIndex(c)
		if i < 0 || !packageManagers[c.Args[i].Lit()] {
			return true
		}
		verb := -1
		for j := i + 1; j < len(c.Args); j++ {
			if installVerbs[c.Args[j].Lit()] {
				verb = j
				break
			}
		}
		if verb < 0 {
			return true
		}
		for j := verb + 1; j < len(c.Args); j++ {
			lit := c.Args[j].Lit()
			if lit == "" || strings.HasPrefix(lit, "-") {
				continue
			}
			if repl, ok := corrections[lit]; ok && repl != "" && repl != lit {
				c.Args[j] = &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: repl}}}
				made = append(made, lit+" -> "+repl)
			}
		}
		return true
	})
	if len(made) == 0 {
		return line, nil
	}
	var buf bytes.Buffer
	if err := syntax.NewPrinter(syntax.Minify(false)).Print(&buf, f); err != nil {
		return line, nil
	}
	return strings.TrimSpace(buf.String()), made
}

// staleIndex matches package-manager output that means the package index is stale.
var staleIndex = regexp.MustCompile(`(?i)(404\s+Not Found|Unable to locate package|Failed to fetch|` +
	`has no installation candidate|Hash Sum mismatch|File has unexpected size|UNTRUSTED signature|` +
	`ERROR: unable to select packages)`)

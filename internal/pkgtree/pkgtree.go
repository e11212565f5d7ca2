// Package pkgtree names the paths of a package's tree in the sandbox relative to the
// package's directory, the way reports, problems and the copied-out artifacts name
// them; the pipeline and the checks below it must name one file alike.
package pkgtree

import "strings"

// Rel names the sandbox path p relative to the package directory root ("" for root
// itself); a path outside root is returned without its leading slash.
func Rel(root, p string) string {
	return strings.TrimPrefix(strings.TrimPrefix(p, root), "/")
}

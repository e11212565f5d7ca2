package knowledge

import (
	"path"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// programTools maps a program a build runs to the canonical tool that installs it, for
// programs whose name is not the tool's canonical name (gettext installs msgfmt).
var programTools = map[string]string{
	"msgfmt": "gettext", "msgmerge": "gettext", "xgettext": "gettext", "msginit": "gettext",
	"msgcat": "gettext", "msgconv": "gettext", "gettextize": "gettext",
	"makeinfo": "texinfo", "texi2any": "texinfo", "texi2dvi": "texinfo",
	"yacc": "bison", "byacc": "bison", "lex": "flex",
	"aclocal": "automake", "autoreconf": "autoconf", "autoheader": "autoconf", "autom4te": "autoconf",
	"libtoolize": "libtool", "pkgconf": "pkg-config", "python": "python3",
	"cc": "gcc", "c++": "g++", "rustc": "rust", "ninja-build": "ninja", "samu": "ninja",
}

// ProgramPackage returns the platform's package that installs a program a build could
// not run (msgfmt: gettext, go: golang-go on Debian), when the canonical package map
// knows the program's tool, and whether it does. It is the missing-package repair's
// answer when no Contents index can be read; the index, which knows every file of the
// archive, comes first.
func ProgramPackage(p atesor.Platform, program string) (string, bool) {
	name := strings.ToLower(path.Base(strings.TrimSpace(program)))
	if name == "" || name == "." || name == "/" {
		return "", false
	}
	canonical, ok := programTools[name]
	if !ok {
		if !isCanonical(name) {
			return "", false
		}
		canonical = name
	}
	return p.PackageFor(canonical)
}

// DependencyPackage returns the platform's package for a library (-lNAME) or
// pkg-config module a build could not find, when the canonical package map knows it:
// the same fallback as [ProgramPackage] for libraries.
func DependencyPackage(p atesor.Platform, name string) (string, bool) {
	canonical, known := Canonical(name)
	if !known || canonical == "" {
		return "", false
	}
	return p.PackageFor(canonical)
}

package knowledge

import (
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/deb822"
)

// R packages. A CRAN package is a DESCRIPTION file (Debian control format: Package,
// Depends, Imports, LinkingTo, ...) beside R/, and src/ when it has compiled code; R CMD
// INSTALL runs its configure, if any, compiles src/ and installs it (see
// [atesor.BuildR]). Debian packages some thousand of them as r-cran-NAME; those with
// C, C++ or Fortran in src/ are the ones with a riscv64 port to prove.

// rPackagePrefix is the Debian name scheme of R packages, which detection records the
// DESCRIPTION's build dependencies under.
const rPackagePrefix = "r-cran-"

// reRPackageField is the Package: field of a DESCRIPTION.
var reRPackageField = regexp.MustCompile(`(?m)^Package:[ \t]*([A-Za-z][A-Za-z0-9.]*)[ \t]*$`)

// rBasePackages come with R itself (r-base-core), not as r-cran packages.
var rBasePackages = map[string]bool{
	"R": true, "base": true, "compiler": true, "datasets": true, "graphics": true, "grDevices": true,
	"grid": true, "methods": true, "parallel": true, "splines": true, "stats": true, "stats4": true,
	"tcltk": true, "tools": true, "utils": true,
}

// compiledExt are the extensions of the code R CMD INSTALL compiles in src/.
var compiledExt = map[string]bool{".c": true, ".cc": true, ".cpp": true, ".cxx": true, ".f": true, ".f90": true, ".f95": true}

// rPackage reports whether the tree's top level is an R package with compiled code:
// a DESCRIPTION that names its package, and C, C++ or Fortran under src/.
func rPackage(t *tree) bool {
	if !t.isFile("DESCRIPTION") || !reRPackageField.MatchString(t.readString("DESCRIPTION")) {
		return false
	}
	for _, e := range t.files {
		if !e.dir && strings.HasPrefix(e.rel, "src/") && compiledExt[strings.ToLower(path.Ext(e.rel))] {
			return true
		}
	}
	return false
}

// RDependencies reads the R packages a DESCRIPTION's Depends, Imports and LinkingTo
// name (the ones an install needs; Suggests are for tests and vignettes), versions
// dropped, R and its base packages left out, as the distribution's package names
// (r-cran-NAME, lower case), in order, each once, with the field as evidence. A
// DESCRIPTION is Debian control data (deb822), read as the indexes are.
func RDependencies(description string) []atesor.Dependency {
	fields := []string{"Depends", "Imports", "LinkingTo"}
	var desc deb822.Paragraph
	_ = deb822.Read(strings.NewReader(description), func(p deb822.Paragraph) bool { desc = p; return false }, fields...)
	var out []atesor.Dependency
	for _, field := range fields {
		for _, item := range strings.Split(strings.ReplaceAll(desc.Get(field), "\n", " "), ",") {
			name, _, _ := strings.Cut(strings.TrimSpace(item), "(")
			name = strings.TrimSpace(name)
			if name == "" || rBasePackages[name] || !reRName.MatchString(name) {
				continue
			}
			dep := atesor.Dependency{Name: rPackagePrefix + strings.ToLower(name), Evidence: "DESCRIPTION " + field}
			if !slices.ContainsFunc(out, func(d atesor.Dependency) bool { return d.Name == dep.Name }) {
				out = append(out, dep)
			}
		}
	}
	return out
}

// reRName is a valid R package name.
var reRName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9.]*[A-Za-z0-9]$`)

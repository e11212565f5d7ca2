package knowledge

import (
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/google/go-cmp/cmp"
)

func TestRDependencies(t *testing.T) {
	tests := []struct {
		name, description string
		want              []string
	}{
		{"fields, versions, base packages and continuation lines",
			"Package: x\nDepends: R (>= 3.2.0), methods\nImports: generics, graphics,\n        Rcpp (>= 1.0.0),\n\tdata.table\nSuggests: testthat\nLinkingTo: Rcpp, RcppArmadillo\n",
			[]string{"r-cran-generics", "r-cran-rcpp", "r-cran-data.table", "r-cran-rcpparmadillo"}},
		{"CRLF line ends", "Package: x\r\nImports: Matrix\r\nLicense: GPL\r\n", []string{"r-cran-matrix"}},
		{"no fields", "Package: x\nVersion: 1\n", nil},
		{"names that are no R package's are left out", "Package: x\nImports: $(rm -rf /), ../x, a b, ok2\n", []string{"r-cran-ok2"}},
		{"a field named like the start of another", "Package: x\nImportsExtra: bad\nImports: good\n", []string{"r-cran-good"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, d := range RDependencies(tt.description) {
				got = append(got, d.Name)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("RDependencies (-want +got):\n%s", d)
			}
		})
	}
}

// FuzzRDependencies: whatever a DESCRIPTION holds, the names are Debian package names
// of R packages, each once.
func FuzzRDependencies(f *testing.F) {
	f.Add("Package: x\nImports: Rcpp (>= 1.0),\n  BH\nLinkingTo: Rcpp\n")
	f.Add("Depends:\n\n Imports: ,,(\n")
	f.Fuzz(func(t *testing.T, description string) {
		seen := map[string]bool{}
		for _, d := range RDependencies(description) {
			if !strings.HasPrefix(d.Name, rPackagePrefix) || !reRName.MatchString(strings.TrimPrefix(d.Name, rPackagePrefix)) ||
				d.Name != strings.ToLower(d.Name) || seen[d.Name] {
				t.Fatalf("dependency %+v of %q", d, description)
			}
			seen[d.Name] = true
		}
	})
}

// The Alpine plan installs R alone: Alpine packages no CRAN package.
func TestRPackagesAlpine(t *testing.T) {
	alp, _ := Profile("alpine")
	det := &atesor.Detection{BuildSystem: atesor.BuildR, Dependencies: []atesor.Dependency{{Name: "r-cran-rcpp"}}}
	plan, _, err := DefaultPlan(det, alp)
	if err != nil {
		t.Fatal(err)
	}
	if got := plan.Phases[0].Commands[0]; got != "apk update && apk add --no-cache build-base R-dev" {
		t.Errorf("setup %q", got)
	}
}

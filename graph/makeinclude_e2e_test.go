package graph

import (
	"testing"

	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedGCC14IncludedMakefile ports Debian's pd-maxlib 1.6.0 offline: missing-package
// installs puredata-dev for m_pd.h, then GCC 14 stops at "implicit declaration of function
// 'error'". Its Makefile includes pd-lib-builder's Makefile.pdlibbuilder, which sets
// CFLAGS outright, so an environment CFLAGS never reaches the compiler: with every rule
// but gcc14-permissive the port escalates there; with it the flag rides on CC on make's
// command line (the included makefile counts as the makefile's), the Pd externals
// verify and the recipe replays it. Measured: 190 s in all (before, verified port 1 min 24 s, replay 1 min 9 s).
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedGCC14IncludedMakefile$' ./graph/
func TestE2EScriptedGCC14IncludedMakefile(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "pd-maxlib", file: "pd-maxlib_1.6.0.orig.tar.gz", rule: "gcc14-permissive",
		before: "implicit declaration of function", others: true, analysis: "-Wno-error=implicit-function-declaration",
		recipe: "make CC='cc -Wno-error=implicit-function-declaration'", artifact: "nroute.pd_linux"})
}

package graph

import (
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
)

// TestE2EScriptedMissingDoc ports Debian's repacked adplug 2.3.3+dfsg offline. The
// repack strips doc/libadplug.texi (a GFDL manual) while Makefile.am still lists it in
// info_TEXINFOS, so make stops at "No rule to make target 'doc/libadplug.texi', needed
// by 'doc/libadplug.info'" (as the sixth held-back round at 450b77e did). With every
// rule but automake-missing-doc the port escalates there; with it the recorded patch
// drops the manual from Makefile.am, autoreconf regenerates, libadplug verifies and the
// recipe replays the patch.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedMissingDoc$' ./graph/
func TestE2EScriptedMissingDoc(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "adplug", file: "adplug_2.3.3+dfsg.orig.tar.xz", rule: "automake-missing-doc",
		before: "No rule to make target 'doc/libadplug.texi'", others: true,
		analysis: "Makefile.am:185 info_TEXINFOS lists doc/libadplug.texi",
		recipe:   "patch -p1 < adplug_patches/001-Makefile.am.patch", artifact: "libadplug",
		origin: &atesor.DistroSource{Distro: "debian", Package: "adplug", Version: "2.3.3+dfsg-2", Suite: "trixie", Component: "main"}})
}

// TestE2EScriptedSubdirMakefile ports Debian's unace 1.2b offline. Its unix/makefile is
// written to be copied beside the sources (unix/readme.txt says so; Debian runs make -f
// unix/makefile from the top), so the default plan's make -C unix stops at "No rule to
// make target 'globals.c', needed by 'globals.o'". With every rule but
// make-subdir-makefile the port escalates there; with it the plan runs make -f
// unix/makefile, unace verifies and the recipe replays it.
//
//	ATESOR_E2E=1 ATESOR_E2E_LONG=1 go test -count=1 -timeout 60m -run '^TestE2EScriptedSubdirMakefile$' ./graph/
func TestE2EScriptedSubdirMakefile(t *testing.T) {
	tier.Long(t)
	runRepackedCase(t, repackedCase{pkg: "unace", file: "unace_1.2b.orig.tar.gz", rule: "make-subdir-makefile",
		before: "No rule to make target 'globals.c'", others: true,
		analysis: "globals.c is there, not in unix",
		recipe:   "make -f unix/makefile", artifact: "unace",
		origin: &atesor.DistroSource{Distro: "debian", Package: "unace", Version: "1.2b-24", Suite: "trixie", Component: "main"}})
}

package fixfiles_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/fixfiles"
)

// TestChanged: code files a fix patched, created or edited by command count once each;
// a file only read, and build files, do not.
func TestChanged(t *testing.T) {
	s := &atesor.State{}
	s.Patches = []atesor.Patch{{File: "lib/x.h"}}
	s.FixAttempts = []atesor.FixAttempt{
		{Commands: []string{"sed -i 's/a/b/' src/simd.c Makefile", "grep -n x src/read.c"}},
		{Files: []string{"compat/cpuid.C", "lib/x.h"}},
		{Actions: []atesor.Action{{Type: atesor.ActionCommand, Command: "rm -f 'src/asm.S'"}}},
	}
	want := []string{"lib/x.h", "src/simd.c", "compat/cpuid.C", "src/asm.S"}
	if d := cmp.Diff(want, fixfiles.Changed(s)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if fixfiles.IsCode("CMakeLists.txt") || !fixfiles.IsCode("a.CPP") {
		t.Error("IsCode")
	}
}

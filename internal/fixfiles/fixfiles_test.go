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

// TestByFix: a file is named by the first thing that changed it: a removal, a patch, a
// fix that wrote it, a command that edited it.
func TestByFix(t *testing.T) {
	s := &atesor.State{}
	s.Removals = []atesor.Removal{{File: "src/a.c", Kind: atesor.RemovalDeleted, Lines: 10}}
	s.Patches = []atesor.Patch{{Name: "001-src-a.c.patch", File: "src/a.c"}, {Name: "002-src-b.c.patch", File: "src/b.c"}}
	s.FixAttempts = []atesor.FixAttempt{
		{Attempt: 1, Files: []string{"src/b.c", "src/new.c"}},
		{Attempt: 2, Commands: []string{"sed -i 's/a/b/' src/c.c"}},
	}
	want := map[string]string{
		"src/a.c":   "removed: src/a.c (10 lines)",
		"src/b.c":   "patched by 002-src-b.c.patch",
		"src/new.c": "written by fix 1",
		"src/c.c":   "edited by a fix's command",
	}
	if d := cmp.Diff(want, fixfiles.ByFix(s)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

package repair

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// libmpcTree is libmpc 0.1~r495's tarball as far as the rule reads it: its real
// configure.in (CHECK_VISIBILITY, which no m4 file of the tarball defines) and
// libmpcdec/Makefile.am ("if HAVE_VISIBILITY").
func libmpcTree(t *testing.T) memTree {
	return memTree{
		"configure.in":          readLog(t, "autotools/libmpc-r495.configure.in"),
		"libmpcdec/Makefile.am": readLog(t, "autotools/libmpc-r495.libmpcdec.Makefile.am"),
		"Makefile.am":           "SUBDIRS = include libmpcdec\n",
		"CMakeLists.txt":        "project(libmpc)\n",
	}
}

// TestAutomakeConditionalLibmpc runs the rule on libmpc's real autoreconf failure in the
// riscv64 sandbox, through Propose as the graph does.
func TestAutomakeConditionalLibmpc(t *testing.T) {
	out := readLog(t, "automake-conditional-libmpc.log")
	tree := libmpcTree(t)
	f := Failure{Category: atesor.ClassifyError(out), Message: "libmpcdec/Makefile.am:5: error: HAVE_VISIBILITY does not appear in AM_CONDITIONAL",
		Output: out, Phase: "build", Command: "autoreconf -fi && ./configure && make -j$(nproc)"}
	fix, notes := Propose(context.Background(), f, Env{Platform: debian(t), Plan: defaultPlan(f.Command), Files: tree.files(), ReadFile: tree.read}, nil)
	if fix == nil || fix.Rule != "automake-undefined-conditional" || len(fix.Actions) != 1 {
		t.Fatalf("fix %+v, notes %q", fix, notes)
	}
	a := fix.Actions[0]
	want := "--- a/configure.in\n+++ b/configure.in\n@@ -33 +33,1 @@\n-CHECK_VISIBILITY\n+AM_CONDITIONAL([HAVE_VISIBILITY], [false])\n"
	if a.Type != atesor.ActionPatch || a.File != "configure.in" || a.Diff != want {
		t.Errorf("action %+v, want the patch\n%s", a, want)
	}
	if !strings.Contains(fix.Analysis, "configure.in:33 CHECK_VISIBILITY (for HAVE_VISIBILITY)") {
		t.Errorf("analysis %q", fix.Analysis)
	}
	// The patch applies to the real file, and leaves no call of the missing macro.
	if _, err := exec.LookPath("patch"); err == nil {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "configure.in"), []byte(tree["configure.in"]), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("patch", "-p1", "--no-backup-if-mismatch")
		cmd.Dir, cmd.Stdin = dir, strings.NewReader(a.Diff)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("patch: %v\n%s", err, b)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "configure.in"))
		if strings.Contains(string(b), "CHECK_VISIBILITY") || !strings.Contains(string(b), "AM_CONDITIONAL([HAVE_VISIBILITY], [false])\n\nAC_CONFIG_FILES") {
			t.Errorf("patched configure.in:\n%s", b)
		}
	}
}

func TestAutomakeConditionalDeclines(t *testing.T) {
	msg := "libmpcdec/Makefile.am:5: error: HAVE_VISIBILITY does not appear in AM_CONDITIONAL"
	tests := []struct {
		name string
		tree memTree
		msg  string
		diff string // a part of the patch; "" for no fix
		why  string
	}{
		{name: "the tree ships the macro (a real conditional problem, not a missing file)",
			tree: memTree{"configure.ac": "AC_INIT([x],[1])\nCHECK_VISIBILITY\nAC_OUTPUT\n", "m4/visibility.m4": "AC_DEFUN([CHECK_VISIBILITY], [AM_CONDITIONAL([HAVE_VISIBILITY], [true])])\n"},
			why:  "no macro configure.ac calls that the tree leaves undefined is named like HAVE_VISIBILITY"},
		{name: "no macro named like the conditional",
			tree: memTree{"configure.ac": "AC_INIT([x],[1])\nMY_CHECKS\nAC_OUTPUT\n"},
			why:  "is named like HAVE_VISIBILITY"},
		{name: "configure.ac defines it in a branch automake does not see",
			tree: memTree{"configure.ac": "AC_INIT([x],[1])\nif test x = y; then\nAM_CONDITIONAL([HAVE_VISIBILITY], [true])\nfi\nAC_OUTPUT\n"},
			why:  "does define HAVE_VISIBILITY"},
		{name: "gnulib's gl_VISIBILITY not shipped, with arguments and two conditionals",
			tree: memTree{"configure.ac": "AC_INIT([x],[1])\r\ngl_VISIBILITY([yes])\r\nAC_OUTPUT\r\n"},
			msg:  msg + "\nsrc/Makefile.am:3: error: ENABLE_VISIBILITY_HIDDEN does not appear in AM_CONDITIONAL",
			diff: "@@ -2 +2,2 @@\n-gl_VISIBILITY([yes])\r\n+AM_CONDITIONAL([HAVE_VISIBILITY], [false])\r\n+AM_CONDITIONAL([ENABLE_VISIBILITY_HIDDEN], [false])\r\n"},
		{name: "autoconf's own macros are never the missing one",
			tree: memTree{"configure.ac": "AC_INIT([x],[1])\nAC_C_VISIBILITY\nAC_OUTPUT\n"},
			why:  "is named like HAVE_VISIBILITY"},
		{name: "no configure.ac", tree: memTree{"Makefile.am": "\n"}, why: "no configure.ac"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.msg
			if m == "" {
				m = msg
			}
			fix, why := makeAutomakeConditional(context.Background(), Failure{Message: m, Phase: "build"}, Env{Files: tt.tree.files(), ReadFile: tt.tree.read})
			if tt.diff == "" {
				if fix != nil || !strings.Contains(why, tt.why) {
					t.Fatalf("fix %+v, why %q; want no fix, %q", fix, why, tt.why)
				}
				return
			}
			if fix == nil || !strings.Contains(fix.Actions[0].Diff, tt.diff) {
				t.Fatalf("fix %+v (%s), want a patch with %q", fix, why, tt.diff)
			}
		})
	}
}

package repair

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// TestStdHeaderPktanon runs the rule on the real build of Debian's pktanon after
// cxx-versioned-namespace's patch (Params.h throws std::runtime_error having included
// only <string> and <unordered_map>) and that tarball's Params.h: <stdexcept>, which
// GCC's notes name, goes before its first #include, as a patch that patch(1) applies.
func TestStdHeaderPktanon(t *testing.T) {
	out := readLog(t, "cxx-std-header-pktanon.log")
	f := Failure{Category: atesor.ClassifyError(out), Message: strings.TrimSpace(out), Output: out, Phase: "build", Packaged: true}
	claims := Claims(f, nil)
	if len(claims) == 0 || claims[0] != "cxx-std-header" {
		t.Fatalf("claims %v: want cxx-std-header first", claims)
	}
	src, err := os.ReadFile("testdata/cxxns/pktanon/libpktanon/Params.h")
	if err != nil {
		t.Fatal(err)
	}
	tree := memTree{"libpktanon/Params.h": string(src), "libpktanon/AnonFactory.cpp": "#include \"AnonFactory.h\"\n", "configure.ac": "AC_INIT\n"}
	fix, why := makeStdHeader(context.Background(), f, Env{Files: tree.files(), ReadFile: tree.read})
	if fix == nil {
		t.Fatalf("no fix: %s", why)
	}
	want := []atesor.Action{{Type: atesor.ActionPatch, File: "libpktanon/Params.h",
		Diff: "--- a/libpktanon/Params.h\n+++ b/libpktanon/Params.h\n@@ -11 +11,2 @@\n+#include <stdexcept>\n # include <string>\n"}}
	if d := cmp.Diff(want, fix.Actions); d != "" {
		t.Errorf("actions (-want +got):\n%s", d)
	}
	if !strings.Contains(fix.Analysis, "std::runtime_error") || fix.Strategy != "include <stdexcept> in libpktanon/Params.h" {
		t.Errorf("analysis %q, strategy %q", fix.Analysis, fix.Strategy)
	}
	if err := check(fix, "/workspace/pktanon"); err != nil {
		t.Errorf("the fix does not validate: %v", err)
	}
	applyPatch(t, "libpktanon/Params.h", string(src), fix.Actions[0].Diff, "#include <stdexcept>\n# include <string>\n")
}

// TestStdHeader covers several headers in one file and several files, a file without
// #include, and the refusals.
func TestStdHeader(t *testing.T) {
	note := func(file, name, header string) string {
		return file + ":1:1: note: ‘" + name + "’ is defined in header ‘<" + header + ">’; this is probably fixable by adding ‘#include <" + header + ">’\n"
	}
	tests := []struct {
		name    string
		message string
		tree    memTree
		want    map[string]string
		none    string
	}{
		{name: "two headers in one file, another file",
			message: "a.h:3:5: error: ‘function’ in namespace ‘std’ does not name a template type\n" + note("a.h", "std::function", "functional") +
				note("/workspace/p/src/a.h", "std::runtime_error", "stdexcept") + note("src/b.cpp", "std::ostringstream", "sstream") + note("a.h", "std::function", "functional"),
			tree: memTree{"src/a.h": "#pragma once\n#include <memory>\n", "src/b.cpp": "#include \"a.h\"\n"},
			want: map[string]string{
				"src/a.h":   "--- a/src/a.h\n+++ b/src/a.h\n@@ -2 +2,3 @@\n+#include <functional>\n+#include <stdexcept>\n #include <memory>\n",
				"src/b.cpp": "--- a/src/b.cpp\n+++ b/src/b.cpp\n@@ -1 +1,2 @@\n+#include <sstream>\n #include \"a.h\"\n"}},
		{name: "no #include: after the guard", message: note("g.h", "std::runtime_error", "stdexcept"),
			tree: memTree{"g.h": "#ifndef G_H\n#define G_H\nvoid f() { throw std::runtime_error(\"x\"); }\n#endif\n"},
			want: map[string]string{"g.h": "--- a/g.h\n+++ b/g.h\n@@ -3 +3,2 @@\n+#include <stdexcept>\n void f() { throw std::runtime_error(\"x\"); }\n"}},
		{name: "already included", message: note("a.h", "std::runtime_error", "stdexcept"),
			tree: memTree{"a.h": "#ifdef X\n# include <stdexcept>\n#endif\n"}, none: "already includes <stdexcept>"},
		{name: "a system header", message: note("/usr/include/foo/x.h", "std::runtime_error", "stdexcept"),
			tree: memTree{"a.h": "x"}, none: "not in the package's tree"},
		{name: "the note adds another header than it names", message: "a.h:1:1: note: ‘std::x’ is defined in header ‘<a>’; this is probably fixable by adding ‘#include <b>’\n",
			tree: memTree{"a.h": "x"}, none: "not in the package's tree"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Failure{Category: atesor.CategoryCompilation, Message: tt.message, Phase: "build"}
			if !stdHeaderRule().claims(f) {
				t.Fatal("the rule does not claim the failure")
			}
			fix, why := makeStdHeader(context.Background(), f, Env{Files: tt.tree.files(), ReadFile: tt.tree.read})
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			got := map[string]string{}
			for _, a := range fix.Actions {
				got[a.File] = a.Diff
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("diffs (-want +got):\n%s", d)
			}
			for file, diff := range got {
				applyPatch(t, file, tt.tree[file], diff, "#include <")
			}
		})
	}
}

// applyPatch applies diff to content as file with patch(1), checks the result holds
// want and returns it; it skips without patch(1).
func applyPatch(t *testing.T, file, content, diff, want string) string {
	t.Helper()
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch(1) is not installed")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("patch", "-p1", "--batch", "--silent")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(diff)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("patch %s: %v: %s", file, err, b)
	}
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), want) {
		t.Errorf("patched %s lacks %q:\n%s", file, want, got)
	}
	return string(got)
}

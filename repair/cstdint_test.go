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

// json2Head is the start of clog 1.3.0's src/libshared/src/JSON2.h, the header its
// real log (testdata/cxx-cstdint-clog.log) names.
const json2Head = "////////////////////////////////////////////////////////////////////////////////\n\n" +
	"#ifndef INCLUDED_JSON2\n#define INCLUDED_JSON2\n\n#include <string>\n\nclass JSON2\n{\n  virtual void eventValueUint (uint64_t) {}\n};\n#endif\n"

func TestCstdint(t *testing.T) {
	log, err := os.ReadFile("testdata/cxx-cstdint-clog.log")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		message string
		tree    memTree
		want    string // the diff's added and context lines, "" for no fix
		none    string // part of the reason when no fix
	}{
		{name: "clog: before the header's first #include", message: string(log),
			tree: memTree{"src/libshared/src/JSON2.h": json2Head, "src/libshared/src/JSON2.cpp": "#include <JSON2.h>\n"},
			want: "@@ -6 +6,2 @@\n+#include <cstdint>\n #include <string>\n"},
		{name: "no #include: after the include guard",
			message: "/workspace/p/a.h:3:10: error: ‘int32_t’ does not name a type",
			tree:    memTree{"a.h": "#ifndef A_H\n#define A_H\nint32_t f();\n#endif\n"},
			want:    "@@ -3 +3,2 @@\n+#include <cstdint>\n int32_t f();\n"},
		{name: "std:: qualified, a .cpp file",
			message: "src/x.cpp:9:5: error: ‘uint8_t’ is not a member of ‘std’",
			tree:    memTree{"src/x.cpp": "#include <vector>\nstd::uint8_t b;\n"},
			want:    "@@ -1 +1,2 @@\n+#include <cstdint>\n #include <vector>\n"},
		{name: "already includes stdint.h: no fix", message: "/w/p/a.h:3:1: error: ‘uint64_t’ has not been declared",
			tree: memTree{"a.h": "#include <stdint.h>\nuint64_t x;\n"}, none: "already includes"},
		{name: "a file outside the tree: no fix", message: "/usr/include/foo.h:3:1: error: ‘uint64_t’ has not been declared",
			tree: memTree{"a.h": "x"}, none: "not in the package's tree"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Failure{Category: atesor.CategoryCompilation, Message: tt.message, Phase: "build"}
			fix, why := makeCstdint(context.Background(), f, Env{Files: tt.tree.files(), ReadFile: tt.tree.read})
			if tt.want == "" {
				if fix != nil || !strings.Contains(why, tt.none) {
					t.Fatalf("fix = %+v, reason %q; want no fix with %q", fix, why, tt.none)
				}
				return
			}
			if fix == nil || len(fix.Actions) != 1 {
				t.Fatalf("fix = %+v, reason %q", fix, why)
			}
			if d := fix.Actions[0].Diff; !strings.Contains(d, tt.want) {
				t.Errorf("diff:\n%s\nwant it to hold:\n%s", d, tt.want)
			}
			if !cstdintRule().claims(f) {
				t.Error("the rule does not claim the failure")
			}
		})
	}
}

// TestCstdintPatchApplies checks that patch(1) applies the recorded edits to real files.
func TestCstdintPatchApplies(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch(1) is not installed")
	}
	for name, content := range map[string]string{"JSON2.h": json2Head, "guard.h": "#ifndef A_H\n#define A_H\nint32_t f();\n#endif\n"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		diff, why := cstdintDiff(name, content)
		if why != "" {
			t.Fatalf("%s: %s", name, why)
		}
		cmd := exec.Command("patch", "--batch", "--forward", "-p1")
		cmd.Dir, cmd.Stdin = dir, strings.NewReader(diff)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: patch: %v\n%s\n%s", name, err, out, diff)
		}
		got, _ := os.ReadFile(filepath.Join(dir, name))
		if strings.Count(string(got), "#include <cstdint>\n") != 1 || len(got) != len(content)+len("#include <cstdint>\n") {
			t.Errorf("%s patched:\n%s", name, got)
		}
	}
}

func FuzzCstdintDiff(f *testing.F) {
	f.Add("a.h", json2Head)
	f.Add("b.h", "#pragma once\r\nint x;\r\n")
	f.Fuzz(func(t *testing.T, rel, content string) {
		diff, why := cstdintDiff(rel, content)
		if why == "" && !strings.Contains(diff, "+#include <cstdint>") {
			t.Fatalf("diff without the include: %q", diff)
		}
	})
}

func TestLocateFile(t *testing.T) {
	files := []string{"src/JSON2.h", "src/libshared/src/JSON2.h", "meson.build", "sub/dir/x.h", "other/sub/dir/x.h"}
	for _, tt := range []struct{ name, want string }{
		{"/workspace/clog/src/libshared/src/JSON2.h", "src/libshared/src/JSON2.h"}, // the longest the path ends with
		{"src/JSON2.h", "src/JSON2.h"},
		{"dir/x.h", "sub/dir/x.h"}, // the shortest tree path that ends with the name
		{"/elsewhere/none.h", ""},
	} {
		if got, _ := locateFile(files, tt.name); got != tt.want {
			t.Errorf("locateFile(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

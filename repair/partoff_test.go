package repair

import (
	"os"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// belcardTree is the part of belcard 5.3.105's tarball the rule reads: its top-level
// CMakeLists.txt, unchanged, and the tester/ files the error names.
func belcardTree(t *testing.T) memTree {
	t.Helper()
	top, err := os.ReadFile("testdata/cmake/belcard-5.3.105.txt")
	if err != nil {
		t.Fatal(err)
	}
	return memTree{
		"CMakeLists.txt":                       string(top),
		"src/CMakeLists.txt":                   "add_library(belcard belcard.cpp)\n",
		"tools/CMakeLists.txt":                 "add_executable(belcard-folder belcard-folder.cpp)\n",
		"tester/CMakeLists.txt":                "add_executable(belcard-tester belcard-tester.cpp belcard-addressing-tester.cpp)\n",
		"tester/belcard-tester.hpp":            "#include <bctoolbox/tester.h>\n",
		"tester/belcard-addressing-tester.cpp": "#include \"belcard-tester.hpp\"\n",
	}
}

func TestFailingPartOff(t *testing.T) {
	cmake := "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j1"
	t.Run("belcard: tester/ cannot compile, ENABLE_UNIT_TESTS gates it", func(t *testing.T) {
		fix, notes := proposeOnBuild(t, "failing-part-belcard.log", defaultPlan(cmake), belcardTree(t))
		wantPlanFix(t, failingPartRuleName, fix, notes, "/workspace/belcard", "apt-get update && apt-get install -y build-essential",
			"cmake -DENABLE_UNIT_TESTS=OFF -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j1")
		wantSays(t, fix.Analysis, []string{"CMakeLists.txt:110 adds tester", "whose build fails (tester/belcard-tester.hpp: bctoolbox/tester.h: No such file or directory)",
			"only when ENABLE_UNIT_TESTS is on", "leaves out the package's tests"})
	})
	refusals := []struct {
		name  string
		log   string
		tree  func(memTree) memTree
		fixes []atesor.FixAttempt
		why   string
	}{
		{name: "the error is in the library, not a part", log: "/workspace/belcard/src/belcard.cpp:3:10: fatal error: belr/grammarbuilder.h: No such file or directory\n",
			tree: func(m memTree) memTree { m["src/belcard.cpp"] = ""; return m }, why: "src/, where the first compile error is (src/belcard.cpp), is not tests"},
		{name: "compiled by the top-level CMakeLists.txt", log: "/workspace/belcard/test_main.cpp:1:10: fatal error: x.h: No such file or directory\n",
			tree: func(m memTree) memTree { m["test_main.cpp"] = ""; return m }, why: "compiled by the top-level CMakeLists.txt"},
		{name: "nothing gates the directory", log: "failing-part-belcard.log",
			tree: func(m memTree) memTree {
				m["CMakeLists.txt"] = "project(belcard)\nadd_subdirectory(src)\nadd_subdirectory(tester)\n"
				return m
			}, why: "calls add_subdirectory(tester) unconditionally"},
		{name: "an earlier fix turned the tests on", log: "failing-part-belcard.log", tree: func(m memTree) memTree { return m },
			fixes: []atesor.FixAttempt{{Rule: "header-only-tests", Strategy: "configure with -DENABLE_UNIT_TESTS=ON"}},
			why:   "an earlier fix turned ENABLE_UNIT_TESTS on"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			plan := defaultPlan(cmake)
			f := buildFailure(t, tt.log, cmake)
			tree := tt.tree(belcardTree(t))
			env := Env{Platform: debian(t), Plan: plan, Files: tree.files(), ReadFile: tree.read, Fixes: tt.fixes}
			fix, why := makeFailingPartOff(t.Context(), f, env)
			if fix != nil || !strings.Contains(why, tt.why) {
				t.Fatalf("fix %+v, reason %q; want none because %q", fix, why, tt.why)
			}
		})
	}
}

package repair

import (
	"os"
	"testing"
)

func TestMakeGeneratedHeader(t *testing.T) {
	mk, err := os.ReadFile("testdata/make/cubature-1.0.4.Makefile")
	if err != nil {
		t.Fatal(err)
	}
	cmake := "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"
	cubature := memTree{"Makefile": string(mk), "CMakeLists.txt": "add_library(cubature hcubature.c pcubature.c)\n", "pcubature.c": "#include \"clencurt.h\"\n", "clencurt_gen.c": ""}
	t.Run("cubature: clencurt.h from the Makefile's rule, beside pcubature.c", func(t *testing.T) {
		fix, notes := proposeOnBuild(t, "make-generated-header-cubature.log", defaultPlan(cmake), cubature)
		wantPlanFix(t, makeGeneratedHeaderRuleName, fix, notes, "/workspace/cubature", "apt-get update && apt-get install -y build-essential", "make clencurt.h && "+cmake)
	})
	in := func(dir string, tree memTree) memTree {
		out := memTree{}
		for k, v := range tree {
			out[dir+"/"+k] = v
		}
		return out
	}
	t.Run("a subdirectory's Makefile: make -C the directory", func(t *testing.T) {
		log := "/workspace/p/lib/pcubature.c:38:10: fatal error: clencurt.h: No such file or directory\n   38 | #include \"clencurt.h\"\n"
		fix, notes := proposeOnBuild(t, log, defaultPlan(cmake), in("lib", cubature))
		wantPlanFix(t, makeGeneratedHeaderRuleName, fix, notes, "/workspace/cubature", "apt-get update && apt-get install -y build-essential", "make -C lib clencurt.h && "+cmake)
	})
	refusals := []struct {
		name string
		tree memTree
		why  string
	}{
		{name: "no rule for the header", tree: memTree{"Makefile": "all: cubature.o\n\tcc -c pcubature.c\n", "pcubature.c": ""},
			why: "Makefile, beside pcubature.c, has no rule for clencurt.h"},
		{name: "a rule without a recipe", tree: memTree{"Makefile": "clencurt.h: clencurt_gen.c\nall:\n", "pcubature.c": ""},
			why: "Makefile's rule for clencurt.h has no recipe"},
		{name: "no Makefile beside the file", tree: memTree{"sub/Makefile": "clencurt.h:\n\t./gen > $@\n", "pcubature.c": ""},
			why: "no Makefile beside pcubature.c"},
		{name: "the header is in the tree", tree: memTree{"Makefile": string(mk), "pcubature.c": "", "inc/clencurt.h": ""},
			why: "clencurt.h is in the tree at inc/clencurt.h"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			fix, notes := proposeOnBuild(t, "make-generated-header-cubature.log", defaultPlan(cmake), tt.tree)
			wantNoFix(t, makeGeneratedHeaderRuleName, fix, notes, tt.why)
		})
	}
}

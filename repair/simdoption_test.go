package repair

import (
	"os"
	"strings"
	"testing"
)

func TestSIMDOptionOff(t *testing.T) {
	top, err := os.ReadFile("testdata/cmake/libsquish-1.15.txt")
	if err != nil {
		t.Fatal(err)
	}
	cmake := "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"
	squish := memTree{"CMakeLists.txt": string(top), "simd_sse.h": "#include <xmmintrin.h>\n", "clusterfit.cpp": ""}
	t.Run("libsquish: BUILD_SQUISH_WITH_SSE2 off", func(t *testing.T) {
		fix, notes := proposeOnBuild(t, "simd-option-libsquish.log", defaultPlan(cmake), squish)
		wantPlanFix(t, simdOptionRuleName, fix, notes, "/workspace/libsquish", "apt-get update && apt-get install -y build-essential",
			"cmake -DBUILD_SQUISH_WITH_SSE2=OFF -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)")
		wantSays(t, fix.Analysis, []string{"xmmintrin.h, an x86 SSE/AVX intrinsics header", "CMakeLists.txt's option BUILD_SQUISH_WITH_SSE2"})
	})
	t.Run("configure's --disable switch", func(t *testing.T) {
		log := "src/blend.c:4:10: fatal error: arm_neon.h: No such file or directory\n"
		tree := memTree{"configure": "  --disable-doc  no docs\n  --enable-neon   use NEON code\n", "configure.ac": "", "src/blend.c": ""}
		fix, notes := proposeOnBuild(t, log, defaultPlan("./configure && make -j$(nproc)"), tree)
		wantPlanFix(t, simdOptionRuleName, fix, notes, "/workspace/p", "apt-get update && apt-get install -y build-essential",
			"./configure --disable-neon && make -j$(nproc)")
	})
	refusals := []struct {
		name, log string
		tree      memTree
		why       string
	}{
		{name: "an option OFF by default is not what selected the code", log: "simd-option-libsquish.log",
			tree: memTree{"CMakeLists.txt": "project(p)\noption(WITH_SSE2 \"SSE2\" OFF)\nif(WITH_SSE2)\nadd_definitions(-DUSE_SSE)\nendif()\n"},
			why:  "no option of the tree's CMakeLists.txt files, ON by default"},
		{name: "an option no if() tests", log: "simd-option-libsquish.log",
			tree: memTree{"CMakeLists.txt": "project(p)\noption(WITH_SSE2 \"SSE2\" ON)\n"}, why: "tested in an if()"},
		{name: "an option named for another instruction set", log: "simd-option-libsquish.log",
			tree: memTree{"CMakeLists.txt": "project(p)\noption(WITH_NEON \"NEON\" ON)\nif(WITH_NEON)\nendif()\n"}, why: "named for the instruction set"},
		{name: "a header of no instruction set", log: "src/a.c:1:10: fatal error: mmintrinsics.h: No such file or directory\n",
			tree: memTree{"CMakeLists.txt": string(top)}, why: ""},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			fix, notes := proposeOnBuild(t, tt.log, defaultPlan(cmake), tt.tree)
			if tt.why == "" {
				if fix != nil && fix.Rule == simdOptionRuleName || strings.Contains(strings.Join(notes, "\n"), simdOptionRuleName) {
					t.Fatalf("the rule claimed %q: fix %+v, notes %v", tt.log, fix, notes)
				}
				return
			}
			wantNoFix(t, simdOptionRuleName, fix, notes, tt.why)
		})
	}
}

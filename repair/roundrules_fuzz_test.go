package repair

import (
	"os"
	"testing"

	"github.com/eclipse-atesor/atesor-go/validate"
)

// FuzzFailureReaders runs the rules that read a failure's text for paths and names
// (perl-dot-inc, make-generated-header, simd-option-off, failing-part-off, arch-name-chain,
// configure-explicit-prefix) on arbitrary
// output over the trees they were written for: none may panic, and a plan one makes
// validates as a model's would.
func FuzzFailureReaders(f *testing.F) {
	for _, name := range []string{"perl-dot-inc-libradsec.log", "make-generated-header-cubature.log", "simd-option-libsquish.log", "failing-part-belcard.log", "arch-name-chain-openarena.log"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("Can't locate ../x.pl in @INC () at /a/../../b.pl line 1.\n/x/../y.c:1:1: fatal error: xmmintrin.h: No such file or directory\n")
	mk, err := os.ReadFile("testdata/make/cubature-1.0.4.Makefile")
	if err != nil {
		f.Fatal(err)
	}
	top, err := os.ReadFile("testdata/cmake/belcard-5.3.105.txt")
	if err != nil {
		f.Fatal(err)
	}
	squish, err := os.ReadFile("testdata/cmake/libsquish-1.15.txt")
	if err != nil {
		f.Fatal(err)
	}
	platform, err := os.ReadFile("testdata/openarena-0.8.8-q_platform.h")
	if err != nil {
		f.Fatal(err)
	}
	trees := []memTree{
		{"radius/convert.pl": "", "radius/common.pl": "", "code/qcommon/q_platform.h": string(platform)},
		{"Makefile": string(mk), "CMakeLists.txt": string(squish), "pcubature.c": "", "simd_sse.h": ""},
		{"CMakeLists.txt": string(top), "tester/CMakeLists.txt": "", "tester/belcard-tester.hpp": "", "src/CMakeLists.txt": ""},
	}
	rules := []Rule{perlDotIncRule(), makeGeneratedHeaderRule(), simdOptionRule(), failingPartRule(), archChainRule(), configurePrefixRule()}
	f.Fuzz(func(t *testing.T, out string) {
		cmake := "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"
		f := Failure{Message: out, Output: out, Phase: "build", Command: cmake}
		for _, tree := range trees {
			env := Env{Platform: debian(t), Plan: defaultPlan(cmake), Files: tree.files(), ReadFile: tree.read}
			for _, r := range rules {
				fix, _ := r.Make(t.Context(), f, env)
				if fix != nil && fix.Plan != nil {
					if err := validate.BuildPlan(fix.Plan); err != nil {
						t.Fatalf("%s made a plan that does not validate: %v\n%+v", r.Name, err, fix.Plan)
					}
				}
			}
		}
	})
}

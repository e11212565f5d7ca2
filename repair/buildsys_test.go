package repair

import (
	"context"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

func TestSecondaryDir(t *testing.T) {
	tests := []struct {
		evidence, dir string
	}{
		{"extra/js/makefile", "extra"},
		{"bindings/python/setup.py", "bindings"},
		{"examples/CMakeLists.txt", "examples"},
		{"test/meson.build", "test"},
		{"doc/Makefile", "doc"},
		{"tools/build/Makefile", "tools"},
		{"contrib/minizip/Makefile", "contrib"},
		{"third_party/zlib/CMakeLists.txt", "third_party"},
		{"build/win32/Makefile", "build/win32"},
		{"src/Python/CMakeLists.txt", "src/Python"},
		// The package's own builds, wherever they are.
		{"CMakeLists.txt", ""},
		{"configure", ""},
		{"build/cmake/CMakeLists.txt", ""},
		{"libraries/liblmdb/Makefile", ""},
		{"src/Makefile", ""},
		{"latest/Makefile", ""},
		{"contest/Makefile", ""},
		{"toolsx/Makefile", ""},
	}
	for _, tt := range tests {
		dir, ok := secondaryDir(tt.evidence)
		if ok != (tt.dir != "") || dir != tt.dir {
			t.Errorf("secondaryDir(%q) = %q, %v; want %q", tt.evidence, dir, ok, tt.dir)
		}
	}
}

// TestNextBuildSystemSecondary runs the rule on immer 0.8.1's real detection: its CMake
// configure stops at find_package(Catch2), and the only other build the tree has is
// the em++ makefile of its JavaScript bindings, which the rule must not switch to.
func TestNextBuildSystemSecondary(t *testing.T) {
	immer := func(alts ...atesor.BuildCandidate) *atesor.Detection {
		return &atesor.Detection{BuildSystem: atesor.BuildCMake, Confidence: 0.95, Evidence: "CMakeLists.txt", Language: "C++", Alternatives: alts}
	}
	tests := []struct {
		name string
		det  *atesor.Detection
		plan string // the new build phase; "" means no fix
		why  string
	}{
		{name: "immer: only extra/js/makefile", det: immer(atesor.BuildCandidate{BuildSystem: atesor.BuildMake, Evidence: "extra/js/makefile", Confidence: 0.2}),
			why: "not switched to the builds of secondary directories: extra/js/makefile (in extra/)"},
		{name: "a secondary build first, the package's own next", det: immer(
			atesor.BuildCandidate{BuildSystem: atesor.BuildMake, Evidence: "examples/Makefile", Confidence: 0.3},
			atesor.BuildCandidate{BuildSystem: atesor.BuildMeson, Evidence: "meson.build", Confidence: 0.9}),
			plan: "meson setup builddir && ninja -C builddir"},
		{name: "a build beside the chosen one in a subdirectory that is the package's", det: immer(
			atesor.BuildCandidate{BuildSystem: atesor.BuildMake, Evidence: "build/Makefile", Confidence: 0.3}),
			plan: "make -C build -j$(nproc)"},
		{name: "a platform makefile beside it is read with -f", det: immer(
			atesor.BuildCandidate{BuildSystem: atesor.BuildMake, Evidence: "makefile.unx", Confidence: 0.8}),
			plan: "make -f makefile.unx -j$(nproc)"},
	}
	p := debian(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := Env{Platform: p, Detection: tt.det, Plan: cmakePlan()}
			fix, why := makeNextBuildSystem(context.Background(), Failure{}, env)
			if tt.plan == "" {
				if fix != nil {
					t.Fatalf("switched: %s (%s)", fix.Strategy, fix.Analysis)
				}
				if !strings.Contains(why, tt.why) {
					t.Errorf("reason %q, want it to say %q", why, tt.why)
				}
				return
			}
			if fix == nil {
				t.Fatalf("no fix: %s", why)
			}
			if got := fix.Plan.Phases[len(fix.Plan.Phases)-1].Commands[0]; got != tt.plan {
				t.Errorf("build phase %q, want %q", got, tt.plan)
			}
		})
	}
}

// TestNextBuildSystemMissingPackages: gstreamermm 1.10's shipped configure failed for
// pkg-config modules it did not find; that is no reason to build with autoreconf of its
// configure.ac instead, while a configure that misses only a program (cmake, for a
// configure that wraps CMake) still switches.
func TestNextBuildSystemMissingPackages(t *testing.T) {
	det := &atesor.Detection{BuildSystem: atesor.BuildAutotools, Evidence: "configure", ShippedConfigure: true,
		Alternatives: []atesor.BuildCandidate{{BuildSystem: atesor.BuildAutotools, Evidence: "configure.ac"}, {BuildSystem: atesor.BuildCMake, Evidence: "CMakeLists.txt"}}}
	env := Env{Platform: debian(t), Detection: det, Plan: defaultPlan("./configure && make -j$(nproc)")}
	missing := readLog(t, "configure-missing-gstreamermm.log")
	if fix, why := makeNextBuildSystem(context.Background(), Failure{Message: missing, Phase: "build"}, env); fix != nil || !strings.Contains(why, "giomm-2.4") {
		t.Fatalf("missing packages: fix %+v, reason %q", fix, why)
	}
	// cdrkit 1.1.11's CMake check names the package itself.
	named := "CMake Error at wodim/CMakeLists.txt:18 (MESSAGE):\n  Error: found a Linux system but no libcap header.  Install libcap-dev.\n\n-- Configuring incomplete, errors occurred!\n"
	cmakeEnv := Env{Platform: debian(t), Plan: defaultPlan("cmake -S . -B build && cmake --build build"),
		Detection: &atesor.Detection{BuildSystem: atesor.BuildCMake, Evidence: "CMakeLists.txt",
			Alternatives: []atesor.BuildCandidate{{BuildSystem: atesor.BuildMake, Evidence: "Makefile"}}}}
	if fix, why := makeNextBuildSystem(context.Background(), Failure{Message: named, Phase: "build"}, cmakeEnv); fix != nil || !strings.Contains(why, "libcap-dev") {
		t.Fatalf("a package the check names: fix %+v, reason %q", fix, why)
	}
	// cdcd 0.6.6's configure gives up on libcdaudio by name (Debian's Build-Depends have
	// libcdaudio-dev): no reason to regenerate its configure.
	cdcd := readLog(t, "configure-cannot-find-cdcd.log")
	if fix, why := makeNextBuildSystem(context.Background(), Failure{Message: cdcd, Phase: "build"}, env); fix != nil || !strings.Contains(why, "libcdaudio") {
		t.Fatalf("a library the configure check names: fix %+v, reason %q", fix, why)
	}
	program := "configure: error: cmake: command not found\n"
	if fix, why := makeNextBuildSystem(context.Background(), Failure{Message: program, Phase: "build"}, env); fix == nil {
		t.Fatalf("a missing program: no switch: %s", why)
	}
}

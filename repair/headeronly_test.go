package repair

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// headerOnlyCase is the real failed verification of easyloggingpp 9.97.1+dfsg (an
// offline port in the riscv64 sandbox, tests off by default): the verify node's error
// record and the build plan at that point.
func headerOnlyCase(t testing.TB) (atesor.ErrorRecord, *atesor.BuildPlan) {
	t.Helper()
	var doc struct {
		Error atesor.ErrorRecord `json:"error"`
		Plan  atesor.BuildPlan   `json:"plan"`
	}
	if err := json.Unmarshal([]byte(readLog(t, "headeronly-easyloggingpp.json")), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Error, &doc.Plan
}

// TestHeaderOnlyTests: the rule turns the tests of a header-only library on, through
// Propose as the fix node calls it on a failed verification, on the real CMakeLists.txt
// files of easyloggingpp, CLI11 and argh and CLI11's meson options; the fix's plan
// passes the validation a model's passes.
func TestHeaderOnlyTests(t *testing.T) {
	rec, elppPlan := headerOnlyCase(t)
	elpp := memTree{"CMakeLists.txt": readLog(t, "cmake/easyloggingpp-9.97.1.txt"), "test/main.cc": ""}
	cli11 := memTree{"CMakeLists.txt": readLog(t, "cmake/cli11-2.4.1.txt"), "tests/CMakeLists.txt": readLog(t, "cmake/cli11-2.4.1-tests.txt"),
		"meson_options.txt": readLog(t, "meson/cli11-2.4.1.options")}
	argh := memTree{"CMakeLists.txt": readLog(t, "cmake/argh-1.3.2.txt")}
	immer := memTree{"CMakeLists.txt": readLog(t, "cmake/immer-0.8.1.txt"), "test/CMakeLists.txt": readLog(t, "cmake/immer-0.8.1-test.txt")}
	meson := memTree{"meson_options.txt": readLog(t, "meson/cli11-2.4.1.options"), "meson.build": "project('x', 'cpp')\n"}
	withLine := func(line string) *atesor.BuildPlan {
		p := defaultPlan(line)
		p.Phases[0].Commands[0] += " cmake"
		return p
	}
	offBySubdir := atesor.FixAttempt{Source: atesor.FixSourceScripted, Rule: "cmake-missing-subdir", Strategy: "configure with -DCLI11_BUILD_TESTS=OFF"}
	tests := []struct {
		name     string
		tree     memTree
		plan     *atesor.BuildPlan
		fixes    []atesor.FixAttempt
		dist     *Distribution
		setup    string // the setup phase's new command ("": unchanged)
		planLine string // the build phase's new command ("": no fix)
		added    string // the build phase's command added after it
		why      string // part of the reason when there is no fix
	}{
		{name: "easyloggingpp: option(test) off by default, GTest required",
			tree: elpp, plan: elppPlan,
			setup:    "apt-get update && apt-get install -y build-essential cmake pkgconf libgtest-dev libgmock-dev",
			planLine: "cmake -Dtest=ON -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"},
		{name: "easyloggingpp: the source's Build-Depends bring the libraries its tests link",
			tree: elpp, plan: elppPlan,
			dist:     &Distribution{Package: "easyloggingpp", Version: "9.97.1+dfsg-1", BuildDepends: []string{"cmake", "libgtest-dev", "doxygen", "libboost-dev"}},
			setup:    "apt-get update && apt-get install -y build-essential cmake pkgconf libgtest-dev libgmock-dev libboost-dev",
			planLine: "cmake -Dtest=ON -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"},
		{name: "easyloggingpp: the plan turned the tests off itself",
			tree: elpp, plan: withLine("cmake -S . -B build -Dtest=OFF && cmake --build build"),
			setup:    "apt-get update && apt-get install -y build-essential cmake libgtest-dev libgmock-dev",
			planLine: "cmake -S . -B build -Dtest=ON && cmake --build build"},
		{name: "easyloggingpp: tests configured on, GTest not installed",
			tree: elpp, plan: withLine("cmake -S . -B build -Dtest=ON && cmake --build build"),
			setup: "apt-get update && apt-get install -y build-essential cmake libgtest-dev libgmock-dev"},
		{name: "easyloggingpp: tests on and GTest installed, yet no test program",
			tree: elpp, plan: &atesor.BuildPlan{Phases: []atesor.Phase{
				{Name: "setup", Commands: []string{"apt-get install -y cmake libgtest-dev libgmock-dev"}},
				{Name: "build", Commands: []string{"cmake -S . -B build -Dtest=ON && cmake --build build"}}}},
			why: "the build-system metadata names no test program"},
		{name: "CLI11: the plan configures its cmake_dependent_option off; Catch2 comes from the distro",
			tree: cli11, plan: withLine("cmake -S . -B build -DCLI11_BUILD_TESTS=OFF && cmake --build build"),
			setup:    "apt-get update && apt-get install -y build-essential cmake catch2",
			planLine: "cmake -S . -B build -DCLI11_BUILD_TESTS=ON && cmake --build build"},
		{name: "CLI11: an earlier fix turned its tests off, which is not undone",
			tree: cli11, plan: withLine("cmake -S . -B build -DCLI11_BUILD_TESTS=OFF && cmake --build build"), fixes: []atesor.FixAttempt{offBySubdir},
			why: "an earlier fix (cmake-missing-subdir) configured -DCLI11_BUILD_TESTS=OFF"},
		{name: "argh: BUILD_TESTS defaults to whether it is the top project",
			tree: argh, plan: withLine("cmake -S . -B build -DBUILD_TESTS=OFF && cmake --build build"),
			planLine: "cmake -S . -B build -DBUILD_TESTS=ON && cmake --build build"},
		{name: "immer: tests on by default but left out of the default target; its tests target builds them",
			tree: immer, plan: withLine("cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"),
			setup: "apt-get update && apt-get install -y build-essential cmake catch2",
			added: "cmake --build build --target tests -j$(nproc)"},
		{name: "immer: the tests target already built, catch2 installed",
			tree: immer, plan: &atesor.BuildPlan{Phases: []atesor.Phase{
				{Name: "setup", Commands: []string{"apt-get install -y cmake catch2"}},
				{Name: "build", Commands: []string{"cmake -S . -B build && cmake --build build", "cmake --build build --target tests -j$(nproc)"}}}},
			why: "the build-system metadata names no test program"},
		{name: "meson: CLI11's tests option, off by default",
			tree: meson, plan: defaultPlan("meson setup build && ninja -C build"),
			planLine: "meson setup -Dtests=true build && ninja -C build"},
		{name: "meson: already on",
			tree: meson, plan: defaultPlan("meson setup build -Dtests=true && ninja -C build"),
			why: "already configures the meson build's test options on"},
		{name: "meson without options", tree: memTree{"meson.build": "project('x')\n"}, plan: defaultPlan("meson setup build && ninja -C build"),
			why: "declares no options"},
		{name: "autotools", tree: memTree{"configure": "#!/bin/sh\n"}, plan: defaultPlan("./configure && make"),
			why: "make check"},
		{name: "no test in the CMake build", tree: memTree{"CMakeLists.txt": "project(x)\ninstall(FILES x.h DESTINATION include)\n"},
			plan: withLine("cmake -S . -B build && cmake --build build"), why: "adds no test directory"},
		{name: "a test gated by a condition no test option sets",
			tree: memTree{"CMakeLists.txt": "project(x)\noption(WITH_GUI \"gui\" OFF)\nif(WITH_GUI)\nadd_subdirectory(tests)\nendif()\n", "tests/CMakeLists.txt": "add_executable(t t.cc)\n"},
			plan: withLine("cmake -S . -B build && cmake --build build"), why: "only when a condition no test option sets holds"},
		{name: "a vendored framework's tests are not the package's",
			tree: memTree{"CMakeLists.txt": "project(x)\nadd_subdirectory(third_party/googletest)\n",
				"third_party/googletest/CMakeLists.txt": "option(gtest_build_tests \"tests\" OFF)\nif(gtest_build_tests)\nadd_test(NAME g COMMAND g)\nendif()\n"},
			plan: withLine("cmake -S . -B build && cmake --build build"), why: "adds no test directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Failure{Category: rec.Category, Message: rec.Message, Phase: PhaseVerify}
			if got := Claims(f, nil); !slices.Equal(got, []string{headerOnlyRuleName}) {
				t.Fatalf("claims %v, want only %s", got, headerOnlyRuleName)
			}
			env := Env{Platform: atesor.Platform{Name: "debian", PackageManager: "apt-get", InstallCommand: "apt-get install -y"},
				Plan: tt.plan, Files: tt.tree.files(), ReadFile: tt.tree.read, Fixes: tt.fixes}
			if tt.dist != nil {
				env.Distribution = distOf(tt.dist)
			}
			fix, notes := Propose(context.Background(), f, env, nil)
			if tt.planLine == "" && tt.setup == "" && tt.added == "" {
				if fix != nil {
					t.Fatalf("fix %+v, want none", fix.Plan)
				}
				if len(notes) != 1 || !strings.Contains(notes[0], tt.why) {
					t.Fatalf("notes %q, want one saying %q", notes, tt.why)
				}
				return
			}
			if fix == nil {
				t.Fatalf("no fix: %v", notes)
			}
			if fix.Rule != headerOnlyRuleName || fix.Plan == nil {
				t.Fatalf("fix %+v", fix)
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("plan refused: %v", err)
			}
			if n := len(fix.Plan.Phases); n != len(tt.plan.Phases) {
				t.Fatalf("plan has %d phases: %+v", n, fix.Plan.Phases)
			}
			if cmds := fix.Plan.Phases[1].Commands; tt.added != "" && (len(cmds) != 2 || cmds[1] != tt.added) {
				t.Errorf("build commands %q, want %q added", cmds, tt.added)
			} else if tt.added == "" && len(cmds) != len(tt.plan.Phases[1].Commands) {
				t.Errorf("build commands %q", cmds)
			}
			wantSetup, wantLine := tt.setup, tt.planLine
			if wantSetup == "" {
				wantSetup = tt.plan.Phases[0].Commands[0]
			}
			if wantLine == "" {
				wantLine = tt.plan.Phases[1].Commands[0]
			}
			if got := fix.Plan.Phases[0].Commands[0]; got != wantSetup {
				t.Errorf("setup %q, want %q", got, wantSetup)
			}
			if got := fix.Plan.Phases[1].Commands[0]; got != wantLine {
				t.Errorf("build %q, want %q", got, wantLine)
			}
			if !strings.Contains(fix.Analysis, "header-only library") || !strings.HasPrefix(fix.Strategy, "build the test programs: ") {
				t.Errorf("analysis %q, strategy %q", fix.Analysis, fix.Strategy)
			}
		})
	}
}

// TestHeaderOnlyClaims: only a failed verification whose one problem is an untested
// header-only library reaches the rule, and no other rule answers a verification
// problem (a hollow port's refusal or a stub is never repaired by turning tests on).
func TestHeaderOnlyClaims(t *testing.T) {
	rec, _ := headerOnlyCase(t)
	tests := []struct {
		name string
		f    Failure
		want []string
	}{
		{"the header-only problem", Failure{Category: rec.Category, Message: rec.Message, Phase: PhaseVerify}, []string{headerOnlyRuleName}},
		{"with a stub too", Failure{Category: rec.Category, Phase: PhaseVerify,
			Message: rec.Message + "; src/x.c: a fix wrote a stub (a new source file defining an entry point, or a build file that compiles nothing); fix the real sources instead"}, nil},
		{"hollow exports", Failure{Category: atesor.CategoryArchitecture, Phase: PhaseVerify, Packaged: true,
			Message: "verification failed: exports incomplete: the primary libraries (build/libz.so) do not define 2 functions the package promises, whose code fixes took away: a, b"}, nil},
		{"a missing library at the smoke run", Failure{Category: atesor.CategoryArchitecture, Phase: PhaseVerify, Packaged: true,
			Message: "verification failed: build/x: smoke run failed: x: error while loading shared libraries: libfoo.so.1: cannot open shared object file: No such file or directory"}, nil},
		{"the same text as a build failure", Failure{Category: rec.Category, Message: rec.Message, Phase: "build"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Claims(tt.f, nil); !slices.Equal(got, tt.want) {
				t.Errorf("claims %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFrameworkDir(t *testing.T) {
	for dir, want := range map[string]string{"googletest": "googletest", "gtest-1.11.0": "googletest", "benchmark-main": "benchmark", "src": "", "tests": ""} {
		got, ok := FrameworkDir(dir)
		if got != want || ok != (want != "") {
			t.Errorf("FrameworkDir(%q) = %q, %v; want %q", dir, got, ok, want)
		}
	}
}

// FuzzHeaderOnlyTests: whatever a package's CMakeLists.txt or meson options say, the
// rule's plan passes the scout's rules and only adds -D switches and packages.
func FuzzHeaderOnlyTests(f *testing.F) {
	f.Add(readLog(f, "cmake/easyloggingpp-9.97.1.txt"), readLog(f, "meson/cli11-2.4.1.options"))
	f.Add(readLog(f, "cmake/argh-1.3.2.txt"), "option('build_tests', type : 'feature', value : 'disabled')\n")
	f.Add("option(X_BUILD_TESTS \"tests\" OFF)\nif(NOT X_SKIP_TESTS AND X_BUILD_TESTS)\nadd_subdirectory(tests)\nendif()\n", "option('$(id)', type: 'boolean')\n")
	rec, _ := headerOnlyCase(f)
	f.Fuzz(func(t *testing.T, cmake, options string) {
		for _, build := range []string{cmakeBuild, "meson setup build && ninja -C build"} {
			tree := memTree{"CMakeLists.txt": cmake, "tests/CMakeLists.txt": cmake, "meson_options.txt": options}
			env := Env{Platform: atesor.Platform{Name: "debian", InstallCommand: "apt-get install -y"}, Plan: defaultPlan(build),
				Files: tree.files(), ReadFile: tree.read}
			fix, _ := makeHeaderOnlyTests(context.Background(), Failure{Message: rec.Message, Phase: PhaseVerify}, env)
			if fix == nil {
				continue
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Fatalf("plan refused: %v", err)
			}
			for _, w := range strings.Fields(fix.Plan.Phases[1].Commands[0]) {
				if !slices.Contains(strings.Fields(build), w) && !testSwitchWord.MatchString(w) {
					t.Fatalf("the line gained %q", w)
				}
			}
		}
	})
}

var testSwitchWord = re(`^-D[A-Za-z_][A-Za-z0-9_.+-]*=(?:ON|OFF|true|enabled)$`)

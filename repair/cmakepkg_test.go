package repair

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go/validate"
)

func notFound(pkg, file string, line int) string {
	return "CMake Error at /usr/share/cmake-3.31/Modules/FindPackageHandleStandardArgs.cmake:233 (message):\n  Could NOT find " + pkg +
		" (missing: " + strings.ToUpper(pkg) + "_LIBRARY)\nCall Stack (most recent call first):\n" +
		"  /usr/share/cmake-3.31/Modules/FindPackageHandleStandardArgs.cmake:603 (_FPHSA_FAILURE_MESSAGE)\n" +
		"  " + file + ":" + strconv.Itoa(line) + " (find_package)\n\n\n-- Configuring incomplete, errors occurred!\n"
}

// TestCMakeOptionalPackageRule runs the rule on uriparser 0.9.8's real configure
// output (Doxygen not found, its stdout and stderr interleaved mid-word as the sandbox
// recorded them) with its real CMakeLists.txt, and on smaller trees.
func TestCMakeOptionalPackageRule(t *testing.T) {
	tests := []struct {
		name, log string
		tree      memTree
		planLine  string
		setup     string
		analysis  string
		none      string
	}{
		{name: "uriparser: the docs off", log: "cmake-notfound-uriparser.log",
			tree:     memTree{"CMakeLists.txt": readLog(t, "cmake/uriparser-0.9.8.txt"), "src/UriParse.c": ""},
			planLine: "cmake -DURIPARSER_BUILD_DOCS=OFF -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			analysis: "CMakeLists.txt:353 requires Doxygen, which find_package() did not find, only when URIPARSER_BUILD_DOCS is on"},
		{name: "uriparser: GTest for the tests is installed, the tests stay", log: notFound("GTest", "CMakeLists.txt", 276),
			tree:     memTree{"CMakeLists.txt": readLog(t, "cmake/uriparser-0.9.8.txt")},
			planLine: cmakeBuild, setup: "apt-get update && apt-get install -y build-essential cmake pkgconf libgtest-dev libgmock-dev",
			analysis: "the distro's copy (libgtest-dev libgmock-dev) is installed"},
		{name: "immer: find_package(Catch2 REQUIRED) finds no configuration file; the framework's package is installed",
			log: "cmake-config-immer.log", tree: memTree{"CMakeLists.txt": readLog(t, "cmake/immer-0.8.1.txt"), "immer/box.hpp": ""},
			planLine: cmakeBuild, setup: "apt-get update && apt-get install -y build-essential cmake pkgconf catch2",
			analysis: "CMakeLists.txt:142 requires Catch2, which find_package() did not find; the distro's copy (catch2) is installed"},
		{name: "CONFIG mode: a gated tool's part off", log: "CMake Error at doc/CMakeLists.txt:3 (find_package):\n  Could not find a package configuration file provided by \"Sphinx\" with\n" +
			"  any of the following names:\n\n    SphinxConfig.cmake\n    sphinx-config.cmake\n\n-- Configuring incomplete, errors occurred!\n",
			tree: memTree{"CMakeLists.txt": "project(p)\noption(P_BUILD_DOCS \"Build the documentation\" ON)\nif(P_BUILD_DOCS)\n  add_subdirectory(doc)\nendif()\n",
				"doc/CMakeLists.txt": "# docs\n\nfind_package(Sphinx CONFIG REQUIRED)\n"},
			planLine: "cmake -DP_BUILD_DOCS=OFF -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			analysis: "CMakeLists.txt:4 adds doc only when P_BUILD_DOCS is on"},
		{name: "CONFIG mode: a library the package needs: no fix", log: "CMake Error at CMakeLists.txt:2 (find_package):\n  By not providing \"Findfmt.cmake\" in CMAKE_MODULE_PATH this project has\n" +
			"  asked CMake to find a package configuration file provided by \"fmt\", but\n  CMake did not find one.\n",
			tree: memTree{"CMakeLists.txt": "project(p)\nfind_package(fmt REQUIRED)\n"}, none: "CMakeLists.txt:2 calls find_package(fmt) unconditionally"},
		{name: "a library the package needs, not a part it can leave out: no fix", log: notFound("ZLIB", "CMakeLists.txt", 2),
			tree: memTree{"CMakeLists.txt": "project(p)\nfind_package(ZLIB REQUIRED)\n"}, none: "unconditionally"},
		{name: "a stack in CMake's own modules only: no fix", log: notFound("ZLIB", "/usr/share/cmake-3.31/Modules/X.cmake", 2),
			tree: memTree{"CMakeLists.txt": "project(p)\n"}, none: "does not say which CMakeLists.txt line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, cmakeBuild)
			if claims := Claims(Failure{Category: f.Category, Message: f.Message}, nil); !slices.Contains(claims, "cmake-optional-package") {
				t.Fatalf("Claims(%q) = %v", f.Message, claims)
			}
			plan := cmakePlan()
			env := Env{Platform: debian(t), Plan: plan, Files: tt.tree.files(), ReadFile: tt.tree.read}
			fix, why := Propose(context.Background(), f, env, nil)
			if tt.none != "" {
				if fix != nil || !slices.ContainsFunc(why, func(n string) bool { return strings.Contains(n, tt.none) }) {
					t.Fatalf("fix %+v, notes %q; want no fix because %q", fix, why, tt.none)
				}
				return
			}
			if fix == nil || fix.Rule != "cmake-optional-package" {
				t.Fatalf("fix %+v, notes %v", fix, why)
			}
			if got := fix.Plan.Phases[1].Commands[0]; got != tt.planLine {
				t.Errorf("build\n got %q\nwant %q", got, tt.planLine)
			}
			setup := plan.Phases[0].Commands[0]
			if tt.setup != "" {
				setup = tt.setup
			}
			if got := fix.Plan.Phases[0].Commands[0]; got != setup {
				t.Errorf("setup\n got %q\nwant %q", got, setup)
			}
			if !strings.Contains(fix.Analysis, tt.analysis) {
				t.Errorf("analysis %q does not say %q", fix.Analysis, tt.analysis)
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the new plan fails the scout's rules: %v", err)
			}
		})
	}
}

package repair

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/validate"
)

const cmakeBuild = "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"

func cmakePlan() *atesor.BuildPlan {
	return &atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: "setup", Commands: []string{"apt-get update && apt-get install -y build-essential cmake pkgconf"}},
		{Name: "build", Commands: []string{cmakeBuild}},
		{Name: "test", Commands: []string{"ctest --test-dir build"}},
	}}
}

// cmakeError is CMake's report of a missing add_subdirectory() as it prints it.
func cmakeError(file string, line int, dir string, noList bool) string {
	if noList {
		return "CMake Error at " + file + ":" + strconv.Itoa(line) + " (add_subdirectory):\n  The source directory\n\n    " + dir +
			"\n\n  does not contain a CMakeLists.txt file.\n\n\n-- Configuring incomplete, errors occurred!\n"
	}
	return "CMake Error at " + file + ":" + strconv.Itoa(line) + " (add_subdirectory):\n  add_subdirectory given source \"" + dir +
		"\" which is not an\n  existing directory.\n\n\n-- Configuring incomplete, errors occurred!\n"
}

// TestCMakeSubdirRule runs the rule through Propose, as the graph does, on the real
// configure output of Debian's repacked leveldb and snappy (their third_party/
// directories are empty) with their real CMakeLists.txt, and on smaller trees for the
// other ways a build gates a vendored directory.
func TestCMakeSubdirRule(t *testing.T) {
	tests := []struct {
		name     string
		log      string // a testdata log, or the output itself
		tree     memTree
		planLine string // the build phase's new command
		setup    string // the setup phase's new command, when it changes
		analysis []string
		none     string // the reason when no fix is made
		platform string // the profile; "" is debian
		create   string // the file the fix writes, if any
	}{
		{name: "leveldb: tests off, and the benchmarks that link the vendored gtest",
			log:  "cmake-subdir-leveldb.log",
			tree: memTree{"CMakeLists.txt": readLog(t, "cmake/leveldb-1.23.txt"), "db/db_impl.cc": ""},
			planLine: "cmake -DLEVELDB_BUILD_TESTS=OFF -DLEVELDB_BUILD_BENCHMARKS=OFF -S . -B build -DCMAKE_BUILD_TYPE=Release && " +
				"cmake --build build -j$(nproc)",
			analysis: []string{"CMakeLists.txt:299 adds third_party/googletest (a vendored googletest)", "LEVELDB_BUILD_TESTS is on",
				"links gmock", "leaves out the package's tests and benchmarks", "no switch for a system copy"}},
		{name: "snappy: tests and benchmarks off",
			log:  "cmake-subdir-snappy.log",
			tree: memTree{"CMakeLists.txt": readLog(t, "cmake/snappy-1.2.2.txt"), "snappy.cc": ""},
			planLine: "cmake -DSNAPPY_BUILD_TESTS=OFF -DSNAPPY_BUILD_BENCHMARKS=OFF -S . -B build -DCMAKE_BUILD_TYPE=Release && " +
				"cmake --build build -j$(nproc)",
			analysis: []string{"CMakeLists.txt:333 adds third_party/googletest", "CMakeLists.txt:379 adds third_party/benchmark (a vendored benchmark)"}},
		{name: "fmtlib: test/ adds the vendored gtest unconditionally; FMT_TEST gates test/ off",
			log: "cmake-subdir-fmtlib.log",
			tree: memTree{"CMakeLists.txt": readLog(t, "cmake/fmtlib-10.1.1.txt"), "test/CMakeLists.txt": readLog(t, "cmake/fmtlib-10.1.1-test.txt"),
				"src/format.cc": ""},
			planLine: "cmake -DFMT_TEST=OFF -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			analysis: []string{"test/CMakeLists.txt:1 adds test/gtest (a vendored googletest), which the tarball lacks, whenever test is built",
				"CMakeLists.txt:410 adds test only when FMT_TEST is on"}},
		{name: "an unconditional vendored directory under a directory that is no test part: the distro's copy imported",
			log: cmakeError("src/CMakeLists.txt", 1, "/workspace/p/src/gtest", false),
			tree: memTree{"CMakeLists.txt": "project(p)\noption(P_TESTS \"tests\" ON)\nif(P_TESTS)\n add_subdirectory(src)\nendif()\n",
				"src/CMakeLists.txt": "add_subdirectory(gtest)\n"},
			planLine: cmakeBuild, setup: "apt-get update && apt-get install -y build-essential cmake pkgconf libgtest-dev libgmock-dev",
			create: "src/gtest/CMakeLists.txt"},
		{name: "an unconditional vendored framework the distro packages on another platform: no fix",
			log: cmakeError("src/CMakeLists.txt", 1, "/workspace/p/src/gtest", false), platform: "alpine",
			tree: memTree{"CMakeLists.txt": "project(p)\noption(P_TESTS \"tests\" ON)\nif(P_TESTS)\n add_subdirectory(src)\nendif()\n",
				"src/CMakeLists.txt": "add_subdirectory(gtest)\n"},
			none: "src/CMakeLists.txt:1 calls add_subdirectory(src/gtest) unconditionally"},
		{name: "assembly-stats: gtest-1.7.0 added on line 7, gated by nothing: the distro's googletest imported",
			log:      "cmake-subdir-assembly-stats.log",
			tree:     memTree{"CMakeLists.txt": readLog(t, "cmake/assembly-stats-1.0.1.txt"), "assembly-stats.cpp": "", "test_files/a.fa": ""},
			planLine: cmakeBuild, setup: "apt-get update && apt-get install -y build-essential cmake pkgconf libgtest-dev libgmock-dev",
			create: "gtest-1.7.0/CMakeLists.txt",
			analysis: []string{"CMakeLists.txt:7 adds gtest-1.7.0 (a vendored googletest), which the tarball lacks, and no option of the build leaves it out; " +
				"gtest-1.7.0/CMakeLists.txt imports the distro's copy (libgtest-dev libgmock-dev) under the vendored build's target names (gtest, gtest_main, gmock, gmock_main)."}},
		{name: "a framework directory that has a CMakeLists.txt already: no import",
			log:  cmakeError("CMakeLists.txt", 2, "/workspace/p/gtest", true),
			tree: memTree{"CMakeLists.txt": "project(p)\nadd_subdirectory(gtest)\n", "gtest/CMakeLists.txt": "project(gtest)\n"},
			none: "calls add_subdirectory(gtest) unconditionally"},
		{name: "an unconditional vendored library that is no framework: no fix",
			log:  cmakeError("CMakeLists.txt", 2, "/workspace/p/third_party/zlib", true),
			tree: memTree{"CMakeLists.txt": "project(p)\nadd_subdirectory(third_party/zlib)\n"},
			none: "calls add_subdirectory(third_party/zlib) unconditionally"},
		{name: "jsonnet: its configure-time googletest download, offline: the system gtest switch",
			log:      "cmake-download-jsonnet.log",
			tree:     memTree{"CMakeLists.txt": readLog(t, "cmake/jsonnet-0.20.0.txt"), "core/vm.cpp": ""},
			planLine: "cmake -DUSE_SYSTEM_GTEST=ON -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			setup:    "apt-get update && apt-get install -y build-essential cmake pkgconf libgtest-dev libgmock-dev",
			analysis: []string{"CMakeLists.txt:75 reports that the build could not download googletest (a vendored googletest)", "USE_SYSTEM_GTEST=ON selects the distro's copy"}},
		{name: "cli11: tests/ downloads catch.hpp when find_package(Catch2 CONFIG) finds nothing: the distro's catch2",
			log: "cmake-download-cli11.log",
			tree: memTree{"CMakeLists.txt": readLog(t, "cmake/cli11-2.4.1.txt"), "tests/CMakeLists.txt": readLog(t, "cmake/cli11-2.4.1-tests.txt"),
				"include/CLI/CLI.hpp": ""},
			planLine: cmakeBuild,
			setup:    "apt-get update && apt-get install -y build-essential cmake pkgconf catch2",
			analysis: []string{"tests/CMakeLists.txt:91 downloads https://github.com/philsquared/Catch/releases/download/v2.13.10/catch.hpp (catch2's) " +
				"only when find_package() finds no installed copy; the distro's (catch2) is installed."}},
		{name: "cli11 where the distro has no catch2 package: CLI11_BUILD_TESTS gates tests/ off",
			log: "cmake-download-cli11.log", platform: "alpine",
			tree: memTree{"CMakeLists.txt": readLog(t, "cmake/cli11-2.4.1.txt"), "tests/CMakeLists.txt": readLog(t, "cmake/cli11-2.4.1-tests.txt"),
				"include/CLI/CLI.hpp": ""},
			planLine: "cmake -DCLI11_BUILD_TESTS=OFF -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			analysis: []string{"tests/CMakeLists.txt:91 downloads https://github.com/philsquared/Catch/releases/download/v2.13.10/catch.hpp (catch2's), " +
				"which the offline sandbox cannot fetch, whenever tests is built; CMakeLists.txt:184 adds tests only when CLI11_BUILD_TESTS is on",
				"leaves out the package's tests"}},
		{name: "a download that is no framework's: no claim on the file",
			log:  "CMake Error at CMakeLists.txt:3 (file):\n  file DOWNLOAD cannot compute hash on failed download\n\n    status: [6;\"Could not resolve hostname\"]\n",
			tree: memTree{"CMakeLists.txt": "project(p)\nset(url https://example.org/data/model.bin)\nfile(DOWNLOAD ${url} model.bin EXPECTED_HASH SHA256=00)\n"},
			none: "does not say which CMakeLists.txt line failed"},
		{name: "a system googletest switch in a subdirectory's CMakeLists.txt",
			log: cmakeError("test/CMakeLists.txt", 6, "/workspace/yaml/test/gtest-1.11.0", false),
			tree: memTree{
				"CMakeLists.txt": "project(yaml CXX)\noption(YAML_BUILD_TESTS \"Enable testing\" ON)\n" +
					"option(YAML_USE_SYSTEM_GTEST \"Use system googletest if found\" OFF)\nif(YAML_BUILD_TESTS)\n  add_subdirectory(test)\nendif()\n",
				"test/CMakeLists.txt": "# tests\nif (YAML_USE_SYSTEM_GTEST)\n  find_package(GTest)\n  # a comment (with parens\n" +
					"else()\n  add_subdirectory(\n    \"${CMAKE_CURRENT_SOURCE_DIR}/gtest-1.11.0\" [[bin]])\nendif()\n",
				"src/a.cpp": ""},
			planLine: "cmake -DYAML_USE_SYSTEM_GTEST=ON -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			setup:    "apt-get update && apt-get install -y build-essential cmake pkgconf libgtest-dev libgmock-dev",
			analysis: []string{"test/CMakeLists.txt:6 adds test/gtest-1.11.0 (a vendored googletest)", "YAML_USE_SYSTEM_GTEST=ON selects the distro's copy"}},
		{name: "a find_package fallback: the distro's package alone",
			log: cmakeError("CMakeLists.txt", 5, "/workspace/p/third_party/benchmark", true),
			tree: memTree{"CMakeLists.txt": "project(p)\nfind_package(benchmark QUIET)\noption(P_BENCH \"benchmarks\" ON)\n" +
				"if(P_BENCH AND NOT benchmark_FOUND)\n  add_subdirectory(third_party/benchmark)\nendif()\n"},
			planLine: cmakeBuild,
			setup:    "apt-get update && apt-get install -y build-essential cmake pkgconf libbenchmark-dev",
			analysis: []string{"only when find_package() finds no installed copy"}},
		{name: "nested ifs, else branch, cmake_dependent_option: the innermost gate",
			log: cmakeError("CMakeLists.txt", 10, "/workspace/p/examples", false),
			tree: memTree{"CMakeLists.txt": "project(p)\ninclude(CMakeDependentOption)\noption(P_EXTRAS \"extras\" ON)\n" +
				"cmake_dependent_option(P_BUILD_EXAMPLES \"Build the examples\" ON \"P_EXTRAS\" OFF)\n" +
				"if(WIN32)\n  message(STATUS win)\nelseif(P_EXTRAS)\n  if(NOT P_BUILD_EXAMPLES)\n  else()\n add_subdirectory(${PROJECT_SOURCE_DIR}/examples)\n  endif()\nendif()\n"},
			planLine: "cmake -DP_BUILD_EXAMPLES=OFF -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			analysis: []string{"adds examples, which the tarball lacks, only when P_BUILD_EXAMPLES is on", "leaves out the package's examples"}},
		{name: "BUILD_TESTING from CTest",
			log:      cmakeError("CMakeLists.txt", 3, "/workspace/p/tests", false),
			tree:     memTree{"CMakeLists.txt": "project(p)\ninclude(CTest)\nif(BUILD_TESTING) add_subdirectory(tests) endif()\n"},
			planLine: "cmake -DBUILD_TESTING=OFF -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"},
		{name: "a vendored library, not tests: no fix",
			log: cmakeError("CMakeLists.txt", 3, "/workspace/p/third_party/zlib", false),
			tree: memTree{"CMakeLists.txt": "project(p)\noption(P_WITH_ZLIB \"compression\" ON)\n" +
				"if(P_WITH_ZLIB) add_subdirectory(third_party/zlib) endif()\n"},
			none: "no option of CMakeLists.txt gates CMakeLists.txt:3 (third_party/zlib) off"},
		{name: "benchmark not gated at all: the distro's copy imported",
			log:      cmakeError("CMakeLists.txt", 2, "/workspace/p/third_party/benchmark", true),
			tree:     memTree{"CMakeLists.txt": "project(p)\nadd_subdirectory(third_party/benchmark)\n"},
			planLine: cmakeBuild, setup: "apt-get update && apt-get install -y build-essential cmake pkgconf libbenchmark-dev",
			create: "third_party/benchmark/CMakeLists.txt"},
		{name: "a plain variable, not an option: no fix",
			log:  cmakeError("CMakeLists.txt", 3, "/workspace/p/tests", false),
			tree: memTree{"CMakeLists.txt": "project(p)\nset(P_TESTS ON)\nif(P_TESTS) add_subdirectory(tests) endif()\n"},
			none: "no option"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := debian(t)
			if tt.platform != "" {
				var err error
				if p, err = knowledge.Profile(tt.platform); err != nil {
					t.Fatal(err)
				}
			}
			f := buildFailure(t, tt.log, cmakeBuild)
			if claims := Claims(Failure{Category: f.Category, Message: f.Message}, nil); !slices.Contains(claims, "cmake-missing-subdir") {
				t.Fatalf("Claims(%q) = %v, want cmake-missing-subdir", f.Message, claims)
			}
			plan := cmakePlan()
			env := Env{Platform: p, Plan: plan, Files: tt.tree.files(), ReadFile: tt.tree.read}
			fix, why := makeCMakeSubdir(context.Background(), f, env)
			if tt.none != "" {
				if fix != nil {
					t.Fatalf("fix %+v, want none", fix)
				}
				if !strings.Contains(why, tt.none) {
					t.Errorf("reason %q, want it to say %q", why, tt.none)
				}
				return
			}
			if fix == nil {
				t.Fatalf("no fix: %s", why)
			}
			if got := fix.Plan.Phases[1].Commands[0]; got != tt.planLine {
				t.Errorf("build phase\n got %q\nwant %q", got, tt.planLine)
			}
			setup := plan.Phases[0].Commands[0]
			if tt.setup != "" {
				setup = tt.setup
			}
			if got := fix.Plan.Phases[0].Commands[0]; got != setup {
				t.Errorf("setup phase\n got %q\nwant %q", got, setup)
			}
			for _, w := range tt.analysis {
				if !strings.Contains(fix.Analysis, w) {
					t.Errorf("analysis %q\ndoes not say %q", fix.Analysis, w)
				}
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the new plan fails the scout's rules: %v", err)
			}
			checkCreated(t, fix, tt.create)
			if plan.Phases[1].Commands[0] != cmakeBuild {
				t.Error("the rule changed the caller's plan in place")
			}
			// Through Propose, the rule is the one that answers, once per error.
			got, notes := Propose(context.Background(), f, env, nil)
			if got == nil || got.Rule != "cmake-missing-subdir" {
				t.Fatalf("Propose = %+v, notes %v", got, notes)
			}
			// The new plan's configure line run again is not changed a second time, and
			// a file written is not written again.
			env.Plan = fix.Plan
			if tt.create != "" {
				tree := memTree{tt.create: fix.Actions[0].Content}
				for k, v := range tt.tree {
					tree[k] = v
				}
				env.Files, env.ReadFile = tree.files(), tree.read
			}
			if again, _ := makeCMakeSubdir(context.Background(), f, env); again != nil {
				t.Errorf("the fixed plan gets another fix: %s", again.Strategy)
			}
		})
	}
}

// checkCreated checks the file a fix writes: none when want is "", else one create_file
// action at want whose content the stub check takes for a framework import, and that
// a model's strategy with the same actions passes validation.
func checkCreated(t *testing.T, fix *Fix, want string) {
	t.Helper()
	if want == "" {
		if len(fix.Actions) > 0 {
			t.Errorf("unexpected actions %+v", fix.Actions)
		}
		return
	}
	if len(fix.Actions) != 1 || fix.Actions[0].Type != atesor.ActionCreateFile || fix.Actions[0].Path != want {
		t.Fatalf("actions %+v, want one create_file of %s", fix.Actions, want)
	}
	if !IsFrameworkImport(want, fix.Actions[0].Content, true) {
		t.Errorf("the written file is not a framework import:\n%s", fix.Actions[0].Content)
	}
	if !strings.Contains(fix.Strategy, "write "+want) {
		t.Errorf("strategy %q does not say it writes %s", fix.Strategy, want)
	}
	if err := check(fix, "/workspace/p"); err != nil {
		t.Errorf("the fix fails validation: %v", err)
	}
}

// TestCMakeExpansionBounded: variables set to references to themselves (a hostile
// CMakeLists.txt) expand to a bounded URL or directory, not without end.
func TestCMakeExpansionBounded(t *testing.T) {
	refs := strings.Repeat("${a}", 20000)
	src := "set(a " + refs + ")\nfile(DOWNLOAD ${a} x)\nadd_subdirectory(${a})\n"
	s, err := readCMakeScript("CMakeLists.txt", src)
	if err != nil {
		t.Fatal(err)
	}
	if url, ok := s.download(s.cmds[1]); ok && len(url) > maxExpanded {
		t.Errorf("download URL of %d bytes", len(url))
	}
	if dir, ok := s.subdir(s.cmds[2], "."); ok {
		t.Errorf("subdir %d bytes long", len(dir))
	}
}

package repair

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// fetchError is CMake 3.31's report of a FetchContent population whose sub-build's
// download failed, as it prints it, with the package's frames at the bottom of the
// call stack.
func fetchError(name string, frames ...string) string {
	return "CMake Error at /usr/share/cmake-3.31/Modules/FetchContent.cmake:1918 (message):\n  Build step for " + name + " failed: 2\n" +
		"Call Stack (most recent call first):\n  /usr/share/cmake-3.31/Modules/FetchContent.cmake:1609 (__FetchContent_populateSubbuild)\n" +
		"  /usr/share/cmake-3.31/Modules/FetchContent.cmake:2384 (__FetchContent_Populate)\n  " + strings.Join(frames, "\n  ") +
		"\n\n\n-- Configuring incomplete, errors occurred!\n"
}

// TestCMakeFetchContent runs cmake-missing-subdir on failed FetchContent populations: the
// real configure output of Debian's libsimpleini 4.22+dfsg with its CMakeLists.txt
// files, and smaller trees for the three ways out (the build's system switch, the
// distribution's copy through FetchContent's own settings, an option gating the tests
// off) and for the calls the rule must not take.
func TestCMakeFetchContent(t *testing.T) {
	top := readLog(t, "cmake/simpleini-4.22.txt")
	tests := readLog(t, "cmake/simpleini-4.22-tests.txt")
	// The same tests/CMakeLists.txt without its system switch: only FetchContent.
	unswitched := strings.Replace(strings.Replace(tests, "if(SIMPLEINI_USE_SYSTEM_GTEST)\n\tfind_package(GTest REQUIRED)\nelse()\n", "\n\n\n", 1),
		"\tFetchContent_MakeAvailable(googletest)\nendif()\n", "\tFetchContent_MakeAvailable(googletest)\n\n", 1)
	if unswitched == tests || !strings.Contains(unswitched, "FetchContent_MakeAvailable(googletest)\n") {
		t.Fatal("the switch was not cut out of tests/CMakeLists.txt")
	}
	const declare = "include(FetchContent)\nFetchContent_Declare(%s URL https://example.invalid/x.zip)\n"
	decl := func(name string) string { return strings.Replace(declare, "%s", name, 1) }
	for _, tt := range []struct {
		name     string
		log      string // a testdata log, or the output itself
		tree     memTree
		platform string // a profile other than debian
		planLine string
		setup    string // the setup phase's new command, when it changes
		analysis []string
		none     string
	}{
		{name: "libsimpleini: the build's system switch, with the distribution's gtest",
			log:      "cmake-fetch-simpleini.log",
			tree:     memTree{"CMakeLists.txt": top, "tests/CMakeLists.txt": tests, "SimpleIni.h": ""},
			planLine: "cmake -DSIMPLEINI_USE_SYSTEM_GTEST=ON -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			setup:    "apt-get update && apt-get install -y build-essential cmake pkgconf libgtest-dev libgmock-dev",
			analysis: []string{"tests/CMakeLists.txt:10 fetches googletest, which the offline sandbox cannot download",
				"SIMPLEINI_USE_SYSTEM_GTEST=ON selects the distro's copy (libgtest-dev libgmock-dev)"}},
		{name: "libsimpleini without the switch: FetchContent populates the distribution's googletest sources",
			log:      "cmake-fetch-simpleini.log",
			tree:     memTree{"CMakeLists.txt": top, "tests/CMakeLists.txt": unswitched},
			planLine: "cmake -DFETCHCONTENT_SOURCE_DIR_GOOGLETEST=/usr/src/googletest -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			setup:    "apt-get update && apt-get install -y build-essential cmake pkgconf googletest",
			analysis: []string{"FETCHCONTENT_SOURCE_DIR_GOOGLETEST=/usr/src/googletest selects the distro's copy (googletest)"}},
		{name: "Catch2 by its CMake package, from a helper file the top level includes",
			log: fetchError("Catch2", "cmake/deps.cmake:3 (FetchContent_MakeAvailable)", "CMakeLists.txt:2 (include)"),
			tree: memTree{"CMakeLists.txt": "project(p CXX)\ninclude(cmake/deps.cmake)\n",
				"cmake/deps.cmake": decl("Catch2") + "FetchContent_MakeAvailable(Catch2)\n"},
			planLine: "cmake -DFETCHCONTENT_TRY_FIND_PACKAGE_MODE=ALWAYS -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			setup:    "apt-get update && apt-get install -y build-essential cmake pkgconf catch2",
			analysis: []string{"cmake/deps.cmake:3 fetches Catch2"}},
		{name: "the failing one of several names, the call written in capitals",
			log: fetchError("googletest", "CMakeLists.txt:6 (FETCHCONTENT_MAKEAVAILABLE)"),
			tree: memTree{"CMakeLists.txt": "project(p CXX)\n" + decl("fmt") + decl("googletest") +
				"FETCHCONTENT_MAKEAVAILABLE(fmt googletest)\n"},
			planLine: "cmake -DFETCHCONTENT_SOURCE_DIR_GOOGLETEST=/usr/src/googletest -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"},
		{name: "a population in the configuring process (CMP0168): the download script names it",
			log:      "cmake-fetch-direct.log",
			tree:     memTree{"CMakeLists.txt": readLog(t, "cmake/fetch-direct.txt")},
			planLine: "cmake -DFETCHCONTENT_TRY_FIND_PACKAGE_MODE=ALWAYS -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			setup:    "apt-get update && apt-get install -y build-essential cmake pkgconf doctest-dev"},
		{name: "in the configuring process, of two names: the one the download script names",
			log: "cmake-fetch-direct.log",
			tree: memTree{"CMakeLists.txt": "cmake_minimum_required(VERSION 3.30)\nproject(p CXX)\ninclude(FetchContent)\n" +
				"FetchContent_Declare(doctest URL https://example.invalid/doctest-2.4.11.zip)\nFetchContent_MakeAvailable(fmt doctest)\n"},
			planLine: "cmake -DFETCHCONTENT_TRY_FIND_PACKAGE_MODE=ALWAYS -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			setup:    "apt-get update && apt-get install -y build-essential cmake pkgconf doctest-dev",
			analysis: []string{"CMakeLists.txt:5 fetches doctest"}},
		{name: "FetchContent_Populate of googletest: its sources",
			log: fetchError("googletest", "test/CMakeLists.txt:5 (FetchContent_Populate)"),
			tree: memTree{"CMakeLists.txt": "project(p CXX)\nadd_subdirectory(test)\n",
				"test/CMakeLists.txt": decl("googletest") + "FetchContent_GetProperties(googletest)\nif(NOT googletest_POPULATED)\n  FetchContent_Populate(googletest)\n" +
					"  add_subdirectory(${googletest_SOURCE_DIR} ${googletest_BINARY_DIR})\nendif()\n"},
			planLine: "cmake -DFETCHCONTENT_SOURCE_DIR_GOOGLETEST=/usr/src/googletest -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"},
		{name: "FetchContent_Populate of benchmark (no sources to point at): the option gating it off",
			log: fetchError("benchmark", "CMakeLists.txt:6 (FetchContent_Populate)"),
			tree: memTree{"CMakeLists.txt": "project(p CXX)\noption(P_BUILD_BENCHMARKS \"Build the benchmarks\" ON)\nif(P_BUILD_BENCHMARKS)\n" +
				decl("benchmark") + "FetchContent_Populate(benchmark)\nendif()\n"},
			planLine: "cmake -DP_BUILD_BENCHMARKS=OFF -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			analysis: []string{"CMakeLists.txt:6 fetches benchmark, which the offline sandbox cannot download, only when P_BUILD_BENCHMARKS is on",
				"leaves out the package's benchmarks"}},
		{name: "a dependency the distribution's copies do not include, fetched for the tests: the tests off",
			log: fetchError("rapidcheck", "tests/CMakeLists.txt:3 (FetchContent_MakeAvailable)"),
			tree: memTree{"CMakeLists.txt": "project(p CXX)\ninclude(CTest)\nif(BUILD_TESTING)\n  add_subdirectory(tests)\nendif()\n",
				"tests/CMakeLists.txt": decl("rapidcheck") + "FetchContent_MakeAvailable(rapidcheck)\n"},
			planLine: "cmake -DBUILD_TESTING=OFF -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			analysis: []string{"tests/CMakeLists.txt:3 fetches rapidcheck, which the offline sandbox cannot download, whenever tests is built",
				"CMakeLists.txt:4 adds tests only when BUILD_TESTING is on"}},
		{name: "googletest on a distribution without Debian's packages: the option gating the tests off",
			log:      fetchError("googletest", "CMakeLists.txt:4 (FetchContent_MakeAvailable)"),
			platform: "alpine",
			tree: memTree{"CMakeLists.txt": "project(p CXX)\noption(P_TESTS \"Build the tests\" ON)\nif(P_TESTS)\n" + "FetchContent_MakeAvailable(googletest)\nendif()\n" +
				decl("googletest")},
			planLine: "cmake -DP_TESTS=OFF -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"},
		{name: "googletest declared under another name, by its GIT_REPOSITORY",
			log: fetchError("gtest_ext", "test/CMakeLists.txt:3 (FetchContent_MakeAvailable)"),
			tree: memTree{"CMakeLists.txt": "project(p CXX)\nadd_subdirectory(test)\n",
				"test/CMakeLists.txt": "include(FetchContent)\nFetchContent_Declare(gtest_ext GIT_REPOSITORY https://example.invalid/google/googletest.git GIT_TAG v1.14.0)\n" +
					"FetchContent_MakeAvailable(gtest_ext)\n"},
			planLine: "cmake -DFETCHCONTENT_SOURCE_DIR_GTEST_EXT=/usr/src/googletest -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			analysis: []string{"test/CMakeLists.txt:3 fetches gtest_ext"}},
		{name: "Catch2 declared under another name, by its URL: the build's system switch",
			log: fetchError("catch_ext", "CMakeLists.txt:8 (FetchContent_MakeAvailable)"),
			tree: memTree{"CMakeLists.txt": "project(p CXX)\noption(P_USE_SYSTEM_CATCH2 \"Use an installed Catch2\" OFF)\nif(P_USE_SYSTEM_CATCH2)\n" +
				"  find_package(Catch2 3 REQUIRED)\nelse()\n  include(FetchContent)\n" +
				"  FetchContent_Declare(catch_ext URL https://example.invalid/catchorg/Catch2/archive/v3.7.1.tar.gz)\n  FetchContent_MakeAvailable(catch_ext)\nendif()\n"},
			planLine: "cmake -DP_USE_SYSTEM_CATCH2=ON -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			setup:    "apt-get update && apt-get install -y build-essential cmake pkgconf catch2"},
		{name: "a declaration's URL beyond the bound is not read",
			log: fetchError("gtest_ext", "CMakeLists.txt:3 (FetchContent_MakeAvailable)"),
			tree: memTree{"CMakeLists.txt": "project(p CXX)\nFetchContent_Declare(gtest_ext URL https://example.invalid/" + strings.Repeat("a/", 4096) +
				"googletest.zip)\nFetchContent_MakeAvailable(gtest_ext)\n"},
			none: "unconditionally"},
		{name: "a library the package needs, ungated: no fix",
			log:  fetchError("zlib", "CMakeLists.txt:4 (FetchContent_MakeAvailable)"),
			tree: memTree{"CMakeLists.txt": "project(p C)\n" + decl("zlib") + "FetchContent_MakeAvailable(zlib)\n"},
			none: "CMakeLists.txt:4 calls fetchcontent_makeavailable(zlib) unconditionally"},
		{name: "nlohmann_json declared by another name than its package's: no fix",
			log:  fetchError("json", "CMakeLists.txt:4 (FetchContent_MakeAvailable)"),
			tree: memTree{"CMakeLists.txt": "project(p CXX)\n" + decl("json") + "FetchContent_MakeAvailable(json)\n"},
			none: "unconditionally"},
		{name: "a stack with no frame in the package's files: no fix",
			log:  fetchError("googletest", "/usr/share/cmake-3.31/Modules/FetchContent.cmake:2384 (FetchContent_MakeAvailable)"),
			tree: memTree{"CMakeLists.txt": "project(p CXX)\n" + decl("googletest") + "FetchContent_MakeAvailable(googletest)\n"},
			none: "does not say which CMakeLists.txt line failed"},
		{name: "a frame naming a line with no FetchContent call: no fix",
			log:  fetchError("googletest", "CMakeLists.txt:1 (FetchContent_MakeAvailable)"),
			tree: memTree{"CMakeLists.txt": "project(p CXX)\n" + decl("googletest") + "FetchContent_MakeAvailable(googletest)\n"},
			none: "does not say which CMakeLists.txt line failed"},
		{name: "a frame outside the tree: no fix",
			log:  fetchError("googletest", "../../../etc/CMakeLists.txt:4 (FetchContent_MakeAvailable)"),
			tree: memTree{"CMakeLists.txt": "project(p CXX)\n" + decl("googletest") + "FetchContent_MakeAvailable(googletest)\n"},
			none: "does not say which CMakeLists.txt line failed"},
		{name: "the error names a dependency the call does not: no fix",
			log:  fetchError("googletest", "CMakeLists.txt:4 (FetchContent_MakeAvailable)"),
			tree: memTree{"CMakeLists.txt": "project(p CXX)\n" + decl("gtest") + "FetchContent_MakeAvailable(gtest)\n"},
			none: "does not say which CMakeLists.txt line failed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, cmakeBuild)
			if claims := Claims(Failure{Category: f.Category, Message: f.Message}, nil); !slices.Contains(claims, "cmake-missing-subdir") {
				t.Fatalf("Claims(%q) = %v, want cmake-missing-subdir", f.Message, claims)
			}
			p := debian(t)
			if tt.platform != "" {
				p = platform(t, tt.platform)
			}
			plan := cmakePlan()
			env := Env{Platform: p, Plan: plan, Files: tt.tree.files(), ReadFile: tt.tree.read}
			fix, why := makeCMakeSubdir(context.Background(), f, env)
			if tt.none != "" {
				if fix != nil {
					t.Fatalf("fix %s (%s), want none", fix.Strategy, fix.Analysis)
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
			if tt.setup != "" {
				if got := fix.Plan.Phases[0].Commands[0]; got != tt.setup {
					t.Errorf("setup phase\n got %q\nwant %q", got, tt.setup)
				}
			}
			for _, w := range tt.analysis {
				if !strings.Contains(fix.Analysis, w) {
					t.Errorf("analysis %q\ndoes not say %q", fix.Analysis, w)
				}
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the new plan fails the scout's rules: %v", err)
			}
			if plan.Phases[1].Commands[0] != cmakeBuild {
				t.Error("the rule changed the caller's plan in place")
			}
			if got, notes := Propose(context.Background(), f, env, nil); got == nil || got.Rule != "cmake-missing-subdir" {
				t.Fatalf("Propose = %+v, notes %v", got, notes)
			}
			env.Plan = fix.Plan
			if again, _ := makeCMakeSubdir(context.Background(), f, env); again != nil {
				t.Errorf("the fixed plan gets another fix: %s", again.Strategy)
			}
		})
	}
}

func platform(t *testing.T, name string) atesor.Platform {
	t.Helper()
	p := debian(t)
	p.Name, p.PackageManager = name, "apk"
	return p
}

// TestFetchContentAttack feeds the rule a hostile output: thousands of module errors
// with deep call stacks, each pointing at FetchContent calls of a tree full of them. The
// reader's match bound and the files' bounds keep it quick, and nothing but the tree's
// own FetchContent calls is taken.
func TestFetchContentAttack(t *testing.T) {
	var src, out strings.Builder
	src.WriteString("project(p CXX)\noption(P_TESTS \"tests\" ON)\nif(P_TESTS)\n")
	for i := range 3000 {
		src.WriteString("FetchContent_MakeAvailable(googletest dep" + strconv.Itoa(i) + ")\n")
	}
	src.WriteString("endif()\n")
	for i := range 3000 {
		frames := strings.Repeat("  /usr/share/cmake/Modules/FetchContent.cmake:1 (x)\n", 31)
		out.WriteString("CMake Error at /usr/share/cmake/Modules/FetchContent.cmake:1 (message):\n" + strings.Repeat("  filler\n", 39) +
			"  Build step for googletest failed\nCall Stack (most recent call first):\n" + frames +
			"  CMakeLists.txt:" + strconv.Itoa(4+i) + " (FetchContent_MakeAvailable)\n")
	}
	tree := memTree{"CMakeLists.txt": src.String()}
	f := Failure{Message: out.String(), Output: out.String(), Phase: "build"}
	start := time.Now()
	fix, why := makeCMakeSubdir(context.Background(), f, Env{Platform: debian(t), Plan: cmakePlan(), Files: tree.files(), ReadFile: tree.read})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
	if fix == nil {
		t.Fatalf("no fix: %s", why)
	}
	if !strings.Contains(fix.Strategy, "-DFETCHCONTENT_SOURCE_DIR_GOOGLETEST=/usr/src/googletest") {
		t.Errorf("strategy %q", fix.Strategy)
	}
	t.Logf("%d bytes of output in %s: %s", out.Len(), time.Since(start), fix.Strategy)
}

// FuzzFetchesIn checks that any configure output reads without a panic, and that what
// the rule takes from it is a FetchContent call of the tree whose argument it names.
func FuzzFetchesIn(f *testing.F) {
	f.Add(readLog(f, "cmake-fetch-simpleini.log"))
	f.Add(fetchError("googletest", "CMakeLists.txt:2 (FetchContent_MakeAvailable)"))
	f.Add(readLog(f, "cmake-fetch-direct.log"))
	tree := memTree{"CMakeLists.txt": "project(p)\nFetchContent_MakeAvailable(googletest fmt)\nFetchContent_Populate(Catch2 QUIET)\nFetchContent_MakeAvailable(\"${X}\")\n"}
	f.Fuzz(func(t *testing.T, text string) {
		r := subdirReader{ctx: context.Background(), env: Env{Files: tree.files(), ReadFile: tree.read}, scripts: map[string]*cmakeScript{}}
		for _, sub := range fetchesIn(&r, text) {
			if sub.file != "CMakeLists.txt" || !isFetch(sub.cmd) || !cmakeVarName.MatchString(sub.dir) {
				t.Fatalf("took %+v", sub)
			}
			c := r.scripts[sub.file].cmds[r.scripts[sub.file].at(sub.cmd, sub.line)]
			if !slices.ContainsFunc(c.Args, func(a cmakeArg) bool { return a.Text == sub.dir }) {
				t.Fatalf("%+v is not an argument of %+v", sub, c)
			}
		}
	})
}

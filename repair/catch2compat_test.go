package repair

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// catch2Installed is the sandbox with trixie's Catch2 3 installed: libcatch2-dev owns
// its headers, and catch2 is the package that depends on it.
func catch2Installed(installed ...string) *fakeIncludes {
	return &fakeIncludes{installed: installed, files: map[string]string{
		"/usr/include/catch2/catch_all.hpp":  "libcatch2-dev",
		"/usr/include/catch2/catch_test.hpp": "libcatch2-dev",
	}}
}

// cppzmqTree is the part of cppzmq 4.10.0's tarball the rule reads: its tests/
// CMakeLists.txt unchanged, and the first lines of two of its test sources.
func cppzmqTree(t *testing.T) memTree {
	t.Helper()
	return memTree{
		"CMakeLists.txt":       "project(cppzmq VERSION 4.10.0)\nadd_subdirectory(tests)\n",
		"zmq.hpp":              "",
		"tests/CMakeLists.txt": readLog(t, "cmake/cppzmq-4.10.0-tests.txt"),
		"tests/buffer.cpp":     "#include <catch2/catch.hpp>\n#include <zmq.hpp>\n\nTEST_CASE(\"buffer default ctor\", \"[buffer]\") { CHECK(true); }\n",
		"tests/message.cpp":    "#define CATCH_CONFIG_MAIN\n#include <catch2/catch.hpp>\n#include <zmq.hpp>\n",
		"tests/testutil.hpp":   "#pragma once\n\n#include <catch2/catch.hpp>\n",
	}
}

func cppzmqPlan(setup string) *atesor.BuildPlan {
	return &atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: "setup", Commands: []string{setup}},
		{Name: "build", Commands: []string{"cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"}}}}
}

func TestCatch2Compat(t *testing.T) {
	cppzmqLog := readLog(t, "catch2-cppzmq.log")
	immerTree := memTree{
		"CMakeLists.txt":             readLog(t, "cmake/immer-0.8.1.txt"),
		"test/CMakeLists.txt":        readLog(t, "cmake/immer-0.8.1-test.txt"),
		"test/vector/default.cpp":    "#include \"generic.ipp\"\n",
		"test/vector/generic.ipp":    "#include <catch2/catch.hpp>\n\nTEST_CASE(\"instantiation\") { CHECK(1 == Approx(1.0)); }\n",
		"test/flex_vector/gc.cpp":    "#include <catch2/catch.hpp>\n",
		"immer/vector.hpp":           "",
		"test/oss-fuzz/data/a/input": "",
	}
	immerLog := "[ 12%] Building CXX object test/CMakeFiles/test-vector-default.dir/vector/default.cpp.o\n" +
		"In file included from /workspace/immer/test/vector/default.cpp:15:\n" +
		"/workspace/immer/test/vector/generic.ipp:11:10: fatal error: catch2/catch.hpp: No such file or directory\n" +
		"   11 | #include <catch2/catch.hpp>\n      |          ^~~~~~~~~~~~~~~~~~\ncompilation terminated.\n"
	const catch2Setup = "apt-get update && apt-get install -y build-essential cmake pkgconf libzmq3-dev catch2"
	tests := []struct {
		name    string
		log     string
		tree    memTree
		plan    *atesor.BuildPlan
		inc     *fakeIncludes
		dist    *Distribution
		repo    string
		files   []string // the files the fix writes, in order
		setup   string   // the setup phase after the fix ("" unchanged)
		cpath   string   // the CPATH the build line exports
		says    []string // parts of the analysis
		none    string   // part of the reason when no fix
		install []string // what the rule installed to look
	}{
		{name: "cppzmq 4.10.0: <catch2/catch.hpp> with Catch2 3 installed, main from message.cpp's CATCH_CONFIG_MAIN",
			log: cppzmqLog, tree: cppzmqTree(t), plan: cppzmqPlan(catch2Setup), inc: catch2Installed("libcatch2-dev"), repo: "/workspace/cppzmq",
			files: []string{".atesor-compat/catch2/catch.hpp"}, cpath: "/workspace/cppzmq/.atesor-compat",
			says: []string{"catch2/catch.hpp (tests/buffer.cpp:1, tests/message.cpp:2)", "Catch2 3 (/usr/include/catch2/catch_all.hpp, of libcatch2-dev)",
				"CATCH_CONFIG_MAIN (tests/message.cpp:1)", "weak", "Catch2::Catch2, Catch2 3's library without main"}},
		{name: "immer 0.8.1: CATCH_CONFIG_MAIN a compile definition, Catch2 named by the Build-Depends only, Approx used",
			log: immerLog, tree: immerTree, plan: cppzmqPlan("apt-get update && apt-get install -y build-essential cmake libboost-dev"),
			// The fake installs only the packages it is given: apt's catch2 brings libcatch2-dev.
			inc:  &fakeIncludes{files: map[string]string{"/usr/include/catch2/catch_all.hpp": "catch2"}},
			dist: &Distribution{Package: "immer", BuildDepends: []string{"cmake", "catch2", "libboost-dev"}}, repo: "/workspace/immer",
			files: []string{".atesor-compat/catch2/catch.hpp"}, cpath: "/workspace/immer/.atesor-compat",
			setup:   "apt-get update && apt-get install -y build-essential cmake libboost-dev catch2",
			install: []string{"catch2"},
			says: []string{"(test/vector/generic.ipp:11)", "test/CMakeLists.txt:19, a compile definition", "Approx back in the global namespace",
				"The plan installs catch2, which the build names"}},
		{name: "catch.hpp included the v2 way, beside the tests, which do not have it",
			log:  "/workspace/p/test/main.cpp:2:10: fatal error: catch.hpp: No such file or directory\n",
			tree: memTree{"test/main.cpp": "#define CATCH_CONFIG_RUNNER\n#include \"catch.hpp\"\nint main(int argc, char** argv) { return Catch::Session().run(argc, argv); }\n"},
			plan: cppzmqPlan(catch2Setup), inc: catch2Installed("libcatch2-dev"), repo: "/workspace/p",
			files: []string{".atesor-compat/catch2/catch.hpp", ".atesor-compat/catch.hpp"}, cpath: "/workspace/p/.atesor-compat",
			says: []string{"no main(): the tests define CATCH_CONFIG_RUNNER (test/main.cpp:1)", "forwards the v2-style include"}},
		{name: "clang's words, Catch2WithMain linked beside a CATCH_CONFIG_MAIN unit",
			log: "/workspace/p/t/a.cpp:1:10: fatal error: 'catch2/catch.hpp' file not found\n",
			tree: memTree{"t/a.cpp": "#define CATCH_CONFIG_MAIN\n#include <catch2/catch.hpp>\n",
				"t/CMakeLists.txt": "add_executable(a a.cpp)\ntarget_link_libraries(a Catch2::Catch2WithMain)\n"},
			plan: cppzmqPlan(catch2Setup), inc: catch2Installed("libcatch2-dev"), repo: "/workspace/p",
			files: []string{".atesor-compat/catch2/catch.hpp"}, cpath: "/workspace/p/.atesor-compat",
			says: []string{"t/CMakeLists.txt's Catch2::Catch2WithMain"}},
		{name: "a vendored copy in the tree: its include directory is what is missing",
			log: cppzmqLog, tree: memTree{"tests/buffer.cpp": "", "third_party/catch2/catch.hpp": ""}, plan: cppzmqPlan(catch2Setup),
			inc: catch2Installed("libcatch2-dev"), repo: "/workspace/cppzmq", none: "the tree has its own catch2/catch.hpp (third_party/catch2/catch.hpp): a vendored Catch2"},
		{name: "the compat header already written, still missed",
			log: cppzmqLog, tree: memTree{"tests/buffer.cpp": "", ".atesor-compat/catch2/catch.hpp": catch2Shim}, plan: cppzmqPlan(catch2Setup),
			inc: catch2Installed("libcatch2-dev"), repo: "/workspace/cppzmq", none: "the compat header .atesor-compat/catch2/catch.hpp is in the tree, yet the compiler still misses"},
		{name: "no Catch2 installed or named",
			log: cppzmqLog, tree: cppzmqTree(t), plan: cppzmqPlan("apt-get update && apt-get install -y cmake"), inc: catch2Installed(),
			dist: &Distribution{BuildDepends: []string{"cmake"}}, repo: "/workspace/cppzmq", none: "Catch2 3 (catch2/catch_all.hpp) is not installed"},
		{name: "the named Catch2 package is Catch2 2's (no catch_all.hpp)",
			log: cppzmqLog, tree: cppzmqTree(t), plan: cppzmqPlan("apt-get update && apt-get install -y cmake catch2"),
			inc: &fakeIncludes{files: map[string]string{"/usr/include/catch2/catch_reporter_tap.hpp": "catch2"}}, repo: "/workspace/cppzmq",
			none: "catch2 installs no catch2/catch_all.hpp: it is not Catch2 3", install: []string{"catch2"}},
		{name: "matchers named as members of Catch, as Catch2 2 had them",
			log: cppzmqLog, tree: memTree{"tests/buffer.cpp": "#define CATCH_CONFIG_MAIN\n#include <catch2/catch.hpp>\nTEST_CASE(\"s\") { REQUIRE_THAT(s(), Catch::Equals(\"a\") && Catch::StartsWith(\"b\")); }\n"},
			plan: cppzmqPlan(catch2Setup), inc: catch2Installed("libcatch2-dev"), repo: "/workspace/cppzmq",
			files: []string{".atesor-compat/catch2/catch.hpp"}, cpath: "/workspace/cppzmq/.atesor-compat",
			says: []string{"Catch::MatcherBase), where Catch2 2 had them, which the tests use"}},
		{name: "Catch2 2's string Contains matcher: refused",
			log: cppzmqLog, tree: memTree{"tests/buffer.cpp": "#include <catch2/catch.hpp>\nTEST_CASE(\"s\") {\n  CHECK_THAT(name(),\n    Catch::Contains(\"ell\"));\n}\n"},
			plan: cppzmqPlan(catch2Setup), inc: catch2Installed("libcatch2-dev"), repo: "/workspace/cppzmq",
			none: "tests/buffer.cpp:3: Catch2 2's Contains matcher, which Catch2 3 renamed ContainsSubstring"},
		{name: "a v2 listener: refused",
			log: cppzmqLog, tree: memTree{"tests/buffer.cpp": "#include <catch2/catch.hpp>\n",
				"tests/listener.cpp": "#include <catch2/catch.hpp>\nstruct L : Catch::TestEventListenerBase {\n  using TestEventListenerBase::TestEventListenerBase;\n};\n"},
			plan: cppzmqPlan(catch2Setup), inc: catch2Installed("libcatch2-dev"), repo: "/workspace/cppzmq",
			none: "tests/listener.cpp:2: a reporter or listener written against Catch2 2's interfaces"},
		// CMake 3.31's words in the riscv64 sandbox for find_package(Catch2 2 REQUIRED) on
		// line 3 of a CMakeLists.txt, with trixie's Catch2 3.7.1 installed.
		{name: "find_package(Catch2 2) against Catch2 3: refused with the file and the versions",
			log: "CMake Error at tests/CMakeLists.txt:3 (find_package):\n  Could not find a configuration file for package \"Catch2\" that is compatible\n" +
				"  with requested version \"2\".\n\n  The following configuration files were considered but not accepted:\n\n" +
				"    /usr/lib/cmake/Catch2/Catch2Config.cmake, version: 3.7.1\n    /lib/cmake/Catch2/Catch2Config.cmake, version: 3.7.1\n\n\n\n-- Configuring incomplete, errors occurred!\n",
			tree: memTree{}, plan: cppzmqPlan(catch2Setup), inc: catch2Installed("libcatch2-dev"), repo: "/workspace/p",
			none: "tests/CMakeLists.txt:3's find_package() asks for Catch2 2 and the installed Catch2 3 (3.7.1)'s CMake package accepts only its own major version"},
		{name: "the repository's directory unknown",
			log: cppzmqLog, tree: cppzmqTree(t), plan: cppzmqPlan(catch2Setup), inc: catch2Installed("libcatch2-dev"),
			none: "plain absolute path, which CPATH needs"},
		{name: "a directory with a space is not put on a command line",
			log: cppzmqLog, tree: cppzmqTree(t), plan: cppzmqPlan(catch2Setup), inc: catch2Installed("libcatch2-dev"), repo: "/workspace/a b",
			none: "plain absolute path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Failure{Category: atesor.ClassifyError(tt.log), Message: tt.log, Phase: "build", Command: tt.plan.Phases[len(tt.plan.Phases)-1].Commands[0]}
			if !catch2CompatRule().claims(f) {
				t.Fatalf("the rule does not claim %q", tt.log)
			}
			var dist DistributionFunc
			if tt.dist != nil {
				dist = distOf(tt.dist)
			}
			env := Env{Platform: debian(t), Plan: tt.plan, Files: tt.tree.files(), ReadFile: tt.tree.read, Locate: tt.inc.locate, Distribution: dist, RepoDir: tt.repo}
			fix, why := makeCatch2Compat(context.Background(), f, env)
			if got := slices.Concat(tt.inc.installs...); !slices.Equal(got, tt.install) {
				t.Errorf("installed %v to look, want %v", got, tt.install)
			}
			if tt.none != "" {
				if fix != nil {
					t.Fatalf("fix %+v, want none", fix)
				}
				if !strings.Contains(why, tt.none) {
					t.Errorf("reason %q\nwant it to say %q", why, tt.none)
				}
				return
			}
			if fix == nil {
				t.Fatalf("no fix: %s", why)
			}
			var files []string
			for _, a := range fix.Actions {
				if a.Type != atesor.ActionCreateFile {
					t.Fatalf("action %+v, want only created files", a)
				}
				files = append(files, a.Path)
			}
			if !slices.Equal(files, tt.files) {
				t.Errorf("files %v, want %v", files, tt.files)
			}
			shim := fix.Actions[0].Content
			for _, want := range []string{"#include <catch2/catch_all.hpp>", "using Catch::Approx;", "#pragma GCC system_header",
				"#if defined(CATCH_CONFIG_MAIN) && !defined(CATCH_CONFIG_RUNNER)", "__attribute__((weak))", "return Catch::Session().run(argc, argv);",
				"using Matchers::Equals;", "using MatcherBase = Matchers::MatcherBase<T>;"} {
				if !strings.Contains(shim, want) {
					t.Errorf("the compat header lacks %q:\n%s", want, shim)
				}
			}
			if strings.Count(shim, "int main(") != 2 { // the weak declaration and the definition
				t.Errorf("the compat header declares main %d times:\n%s", strings.Count(shim, "int main("), shim)
			}
			if len(fix.Actions) > 1 && fix.Actions[1].Content != catch2Forward {
				t.Errorf("catch.hpp is %q", fix.Actions[1].Content)
			}
			build := fix.Plan.Phases[len(fix.Plan.Phases)-1].Commands[0]
			if want := "export CPATH=" + tt.cpath + " && cmake -S . -B build"; !strings.HasPrefix(build, want) {
				t.Errorf("build line %q, want it to start %q", build, want)
			}
			if setup := fix.Plan.Phases[0].Commands[0]; tt.setup != "" && setup != tt.setup || tt.setup == "" && setup != tt.plan.Phases[0].Commands[0] {
				t.Errorf("setup line %q, want %q", setup, tt.setup)
			}
			for _, s := range tt.says {
				if !strings.Contains(fix.Analysis, s) {
					t.Errorf("analysis %q\nwant it to say %q", fix.Analysis, s)
				}
			}
			fix.Rule = catch2CompatRuleName
			if err := check(fix, tt.repo); err != nil {
				t.Errorf("the fix fails the validation a model's fix passes: %v", err)
			}
		})
	}
}

// TestCatch2CompatProposed runs cppzmq's real log through the rule table as the graph
// does: catch2-compat answers it before the rules that look the header up in the
// archive and the include directories, which cannot find Catch2 2's header in trixie.
func TestCatch2CompatProposed(t *testing.T) {
	log := readLog(t, "catch2-cppzmq.log")
	f := Failure{Category: atesor.ClassifyError(log), Message: "/workspace/cppzmq/tests/buffer.cpp:1:10: fatal error: catch2/catch.hpp: No such file or directory",
		Output: log, Phase: "build"}
	tree := cppzmqTree(t)
	env := Env{Platform: debian(t), Plan: cppzmqPlan("apt-get update && apt-get install -y build-essential cmake pkgconf libzmq3-dev catch2"),
		Files: tree.files(), ReadFile: tree.read, Locate: catch2Installed("libcatch2-dev").locate, RepoDir: "/workspace/cppzmq"}
	fix, notes := Propose(context.Background(), f, env, nil)
	if fix == nil || fix.Rule != catch2CompatRuleName {
		t.Fatalf("Propose = %+v, notes %v", fix, notes)
	}
	if want := "write .atesor-compat/catch2/catch.hpp for Catch2 3 and add /workspace/cppzmq/.atesor-compat to CPATH"; fix.Strategy != want {
		t.Errorf("strategy %q, want %q", fix.Strategy, want)
	}
	if got := PlanIncludePath(fix.Plan); got != "/workspace/cppzmq/.atesor-compat" {
		t.Errorf("PlanIncludePath = %q: the package's tests, run again outside the plan, would miss the compat header", got)
	}
}

// TestCatch2CompatSearchFails: a sandbox whose include directories cannot be searched
// gives a reason, not a fix that assumes Catch2 3.
func TestCatch2CompatSearchFails(t *testing.T) {
	log := readLog(t, "catch2-cppzmq.log")
	tree := cppzmqTree(t)
	env := Env{Platform: debian(t), Plan: cppzmqPlan("apt-get install -y catch2"), Files: tree.files(), ReadFile: tree.read, RepoDir: "/workspace/cppzmq",
		Locate: func(context.Context, string, []string) ([]HeaderFile, error) { return nil, errors.New("sandbox gone") }}
	fix, why := makeCatch2Compat(context.Background(), Failure{Message: log}, env)
	if fix != nil || !strings.Contains(why, "could not be searched for catch2/catch_all.hpp: sandbox gone") {
		t.Errorf("fix %v, reason %q", fix, why)
	}
}

// FuzzCatch2Compat feeds the rule a hostile log and a hostile test source: it must not
// panic, and a fix writes only the compat headers, with a plain CPATH directory.
func FuzzCatch2Compat(f *testing.F) {
	f.Add(readLog(f, "catch2-cppzmq.log"), "#define CATCH_CONFIG_MAIN\n#include <catch2/catch.hpp>\n")
	f.Add("x.cpp:1:1: fatal error: catch.hpp: No such file or directory\n:2: fatal error: catch2/catch.hpp: No such file or directory", "Approx\n#define CATCH_CONFIG_RUNNER")
	f.Add("CMake Error at a:1 (find_package):\n Could not find a configuration file for package \"Catch2\" that is compatible with requested version \"2\"", "")
	f.Fuzz(func(t *testing.T, log, src string) {
		tree := memTree{"tests/buffer.cpp": src, "tests/CMakeLists.txt": src, "x.cpp": src}
		env := Env{Platform: debian(t), Plan: cppzmqPlan("apt-get install -y catch2"), Files: tree.files(), ReadFile: tree.read,
			Locate: catch2Installed("libcatch2-dev").locate, RepoDir: "/workspace/p"}
		fix, why := makeCatch2Compat(context.Background(), Failure{Message: log, Output: log}, env)
		if fix == nil {
			if why == "" {
				t.Fatal("no fix and no reason")
			}
			return
		}
		for _, a := range fix.Actions {
			if a.Type != atesor.ActionCreateFile || a.Path != ".atesor-compat/catch2/catch.hpp" && a.Path != ".atesor-compat/catch.hpp" {
				t.Fatalf("action %+v", a)
			}
		}
		if got := PlanIncludePath(fix.Plan); got != "/workspace/p/.atesor-compat" {
			t.Fatalf("CPATH %q", got)
		}
	})
}

package repair

import (
	"context"
	"os"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// anomalyTree is the part of anomaly 1.1.0's tarball the rule reads: its top-level
// CMakeLists.txt and templates, unchanged, and the file that includes commit.h.
func anomalyTree(t *testing.T) memTree {
	t.Helper()
	top, err := os.ReadFile("testdata/cmake/anomaly-1.1.0.txt")
	if err != nil {
		t.Fatal(err)
	}
	return memTree{
		"CMakeLists.txt":     string(top),
		"commit.h.in":        "/* commit.h.in. Creates commit.h during a cmake run */\n\n/* git information */\n#define COMMIT \"${COMMIT}\"\n",
		"cmake.h.in":         "/* cmake.h.in. Creates cmake.h during a build */\n#define VERSION \"${VERSION}\"\n#cmakedefine HAVE_COMMIT\n",
		"src/CMakeLists.txt": "include_directories (${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR})\nadd_executable(anomaly anomaly.cpp Detector.cpp Detector.h)\n",
		"src/anomaly.cpp":    "#include <cmake.h>\n#include <commit.h>\n",
		"src/Detector.h":     "class Detector {};\n",
	}
}

func TestTemplateHeader(t *testing.T) {
	log, err := os.ReadFile("testdata/template-header-anomaly.log")
	if err != nil {
		t.Fatal(err)
	}
	mesonBuild := "project('tool', 'c', version : '2.3.1')\nversion_h = vcs_tag(input : 'src/version.h.in', output : 'version.h')\n"
	cmakeBar := "cmake_minimum_required(VERSION 3.10)\nproject(bar VERSION 1.2.3 LANGUAGES C)\nset(HAVE_FOO ON)\nset(BAR_LABEL \"${PROJECT_NAME}-${PROJECT_VERSION}\")\n" +
		"if(BAR_EXTRA)\n  set(HAVE_BAR ON)\nendif()\nfind_package(Git)\nif(GIT_FOUND)\n  configure_file(include/bar/config.h.cmake.in include/bar/config.h)\nendif()\n"
	tests := []struct {
		name    string
		message string
		tree    memTree
		path    string   // the header created
		want    []string // lines the header holds, in order
		says    []string // parts of the analysis
		none    string   // part of the reason when no fix
	}{
		{name: "anomaly: commit.h from commit.h.in, configured only in a git checkout", message: string(log), tree: anomalyTree(t),
			path: "commit.h", want: []string{"/* git information */", `#define COMMIT ""`},
			says: []string{"template commit.h.in", "CMakeLists.txt:34 configures into ${CMAKE_SOURCE_DIR}/commit.h",
				"EXISTS ${CMAKE_SOURCE_DIR}/.git/index", "only in a git checkout", "where the configure_file() writes it", "COMMIT empty"}},
		{name: "meson vcs_tag: @VCS_TAG@ is the project's version, ${} left alone",
			message: "../src/main.c:3:10: fatal error: version.h: No such file or directory",
			tree: memTree{"meson.build": mesonBuild, "src/main.c": "#include \"version.h\"\n",
				"src/version.h.in": "#define TOOL_VERSION \"@VCS_TAG@\"\n#define TOOL_NAME \"@PROJECT_NAME@\"\n#define SHELLISH \"${HOME}\"\n"},
			path: "src/version.h", want: []string{`#define TOOL_VERSION "2.3.1"`, `#define TOOL_NAME "tool"`, `#define SHELLISH "${HOME}"`},
			says: []string{`VCS_TAG="2.3.1"`, "meson.build:2 names it", "meson.build's project()"}},
		{name: "cmakedefine and project() version components, an include with a directory",
			message: "/workspace/bar/src/bar.c:1:10: fatal error: bar/config.h: No such file or directory",
			tree: memTree{"CMakeLists.txt": cmakeBar, "src/bar.c": "#include <bar/config.h>\n",
				"include/bar/config.h.cmake.in": "#cmakedefine HAVE_FOO\n#cmakedefine HAVE_BAR\n#cmakedefine01 HAVE_FOO\n#cmakedefine01 HAVE_BAR\n" +
					"#define BAR_MAJOR @PROJECT_VERSION_MAJOR@\n#define BAR_LABEL \"${BAR_LABEL}\"\n/* from @GIT_REV@ */\n#cmakedefine HAVE_FOO_LEVEL @bar_VERSION_MINOR@\n"},
			path: "include/bar/config.h",
			want: []string{"#define HAVE_FOO", "/* #undef HAVE_BAR */", "#define HAVE_FOO 1", "#define HAVE_BAR 0", "#define BAR_MAJOR 1",
				`#define BAR_LABEL "bar-1.2.3"`, "/* from  */", "/* #undef HAVE_FOO_LEVEL */"},
			says: []string{"only under if (GIT_FOUND)", `PROJECT_VERSION_MAJOR="1"`, "HAVE_BAR empty"}},
		{name: "X.in.h beside the file that includes it, before another in the tree",
			message: "lib/a/x.c:2:10: fatal error: gitrev.h: No such file or directory",
			tree:    memTree{"lib/a/x.c": "#include \"gitrev.h\"\n", "lib/a/gitrev.in.h": "#define REV \"@REV@\" /* ' */\n", "gitrev.h.in": "#define REV 1\n"},
			path:    "lib/a/gitrev.h", want: []string{`#define REV "" /* ' */`}},
		{name: "configure_file's own output in the source tree, the template found by its base name",
			message: "/workspace/p/src/a.c:1:10: fatal error: p/version.h: No such file or directory",
			tree: memTree{"src/a.c": "#include <p/version.h>\n", "cmake/version.h.in": "#define P_VERSION \"@PROJECT_VERSION@\"\n#define P_SHELL \"${SHELL}\"\n",
				"CMakeLists.txt": "project(p VERSION 0.9)\nif(EXISTS \"${PROJECT_SOURCE_DIR}/.git\")\n  configure_file(cmake/version.h.in ${PROJECT_SOURCE_DIR}/include/p/version.h @ONLY)\nendif()\n"},
			path: "include/p/version.h", want: []string{`#define P_VERSION "0.9"`, `#define P_SHELL "${SHELL}"`},
			says: []string{"where the configure_file() writes it", `PROJECT_VERSION="0.9" (from CMakeLists.txt's project() and set())`}},
		{name: "found by its base name, no configure_file(): refused",
			message: "src/a.c:1:10: fatal error: p/version.h: No such file or directory",
			tree:    memTree{"src/a.c": "#include <p/version.h>\n", "cmake/version.h.in": "#define V \"\"\n"}, none: "no configure_file() of the tree writes it"},
		{name: "a quoted include: beside the including file",
			message: "src/main.c:2:10: fatal error: build_info.h: No such file or directory\n    2 | #include \"build_info.h\"\n",
			tree:    memTree{"src/main.c": "#include \"build_info.h\"\n", "cmake/build_info.h.in": "#define BUILD_REV \"@GIT_REV@\"\n"},
			path:    "src/build_info.h", want: []string{`#define BUILD_REV ""`},
			says: []string{"beside the file that includes it with quotes", "GIT_REV empty (unknown outside a checkout"}},
		{name: "configure.ac generates it: refused", message: "src/a.c:1:10: fatal error: version.h: No such file or directory",
			tree: memTree{"src/a.c": "", "src/version.h.in": "#define V \"@VERSION@\"\n", "configure.ac": "AC_INIT([p], [1])\nAC_CONFIG_FILES([Makefile\n  src/version.h])\nAC_OUTPUT\n"},
			none: "configure.ac generates src/version.h"},
		{name: "autoheader config.h.in: refused", message: "x.c:1:10: fatal error: config.h: No such file or directory",
			tree: memTree{"x.c": "", "config.h.in": "/* config.h.in.  Generated from configure.ac by autoheader.  */\n#undef HAVE_UNISTD_H\n#undef VERSION\n"},
			none: "autoheader template"},
		{name: "an unknown value outside a string literal: refused", message: "x.c:1:10: fatal error: rev.h: No such file or directory",
			tree: memTree{"x.c": "", "rev.h.in": "/* \"a quote in a comment\" */\n#define REV_COUNT ${GIT_COUNT}\n"},
			none: "rev.h.in:2: ${GIT_COUNT} sits outside a string literal"},
		{name: "a value in a #if: refused", message: "x.c:1:10: fatal error: rev.h: No such file or directory",
			tree: memTree{"x.c": "", "rev.h.in": "#if @DIRTY@\n#endif\n"}, none: "@DIRTY@ sits outside"},
		{name: "after a string, a value in code: refused", message: "x.c:1:10: fatal error: rev.h: No such file or directory",
			tree: memTree{"x.c": "", "rev.h.in": "#define A \"x\\\"\" @N@\n"}, none: "@N@ sits outside"},
		{name: "the header in the tree: refused", message: "x.c:1:10: fatal error: rev.h: No such file or directory",
			tree: memTree{"x.c": "", "rev.h.in": "#define R \"\"\n", "inc/rev.h": "#define R 1\n"}, none: "is in the tree at inc/rev.h"},
		{name: "no template: no fix", message: "x.c:1:10: fatal error: popt.h: No such file or directory",
			tree: memTree{"x.c": ""}, none: "no template of popt.h"},
		{name: "configured in every configuration: refused",
			message: "x.c:1:10: fatal error: ver.h: No such file or directory",
			tree:    memTree{"x.c": "", "ver.h.in": "#define V \"${V}\"\n", "CMakeLists.txt": "project(p)\nconfigure_file(ver.h.in ${CMAKE_BINARY_DIR}/ver.h)\n"},
			none:    "the build generates ver.h itself"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Failure{Category: atesor.CategoryDependency, Message: tt.message, Phase: "build"}
			if !templateHeaderRule().claims(f) {
				t.Fatal("the rule does not claim the failure")
			}
			fix, why := makeTemplateHeader(context.Background(), f, Env{Files: tt.tree.files(), ReadFile: tt.tree.read})
			if tt.path == "" {
				if fix != nil || !strings.Contains(why, tt.none) {
					t.Fatalf("fix = %+v, reason %q; want no fix with %q", fix, why, tt.none)
				}
				return
			}
			if fix == nil || len(fix.Actions) != 1 {
				t.Fatalf("fix = %+v, reason %q", fix, why)
			}
			a := fix.Actions[0]
			if a.Type != atesor.ActionCreateFile || a.Path != tt.path {
				t.Fatalf("action = %+v, want create_file %s", a, tt.path)
			}
			lines := strings.Split(a.Content, "\n")
			at := 0
			for _, w := range tt.want {
				for at < len(lines) && lines[at] != w {
					at++
				}
				if at == len(lines) {
					t.Fatalf("header:\n%s\nwant the line %q (in order)", a.Content, w)
				}
			}
			for _, s := range tt.says {
				if !strings.Contains(fix.Analysis, s) {
					t.Errorf("analysis %q does not say %q", fix.Analysis, s)
				}
			}
		})
	}
}

// TestTemplateHeaderPropose checks that on anomaly's real log the rule table reaches
// this rule: the rules before it that claim a missing header make no fix offline.
func TestTemplateHeaderPropose(t *testing.T) {
	log, err := os.ReadFile("testdata/template-header-anomaly.log")
	if err != nil {
		t.Fatal(err)
	}
	tree := anomalyTree(t)
	f := Failure{Category: atesor.CategoryDependency, Message: string(log), Phase: "build", Packaged: true}
	env := Env{Platform: debian(t), Files: tree.files(), ReadFile: tree.read, Plan: defaultPlan("cmake -S . -B build && cmake --build build")}
	fix, notes := Propose(context.Background(), f, env, nil)
	if fix == nil || fix.Rule != templateHeaderRuleName {
		t.Fatalf("fix = %+v, notes %q; want %s", fix, notes, templateHeaderRuleName)
	}
}

func TestIsAutoheader(t *testing.T) {
	for src, want := range map[string]bool{
		"#undef HAVE_X\n":                             true,
		"/* c */\n# undef  PACKAGE_VERSION \n":        true,
		"#cmakedefine HAVE_X\n#undef OTHER\n":         false,
		"#define V \"@V@\"\n#undef V2\n":              false,
		"#define X 1\n":                               false,
		"#ifdef A\n#undef A /* not a bare undef */\n": false,
	} {
		if got := isAutoheader(src); got != want {
			t.Errorf("isAutoheader(%q) = %v, want %v", src, got, want)
		}
	}
}

// FuzzRenderTemplate feeds template text the package controls to the renderer: it must
// not panic, a template without substitutions comes back unchanged, and a rendered one
// keeps its lines.
func FuzzRenderTemplate(f *testing.F) {
	for _, s := range []string{"#define COMMIT \"${COMMIT}\"\n", "#cmakedefine A @B@\r\n#cmakedefine01 C\n", "/* @X@\n ${Y} */ \"\\\"${Z}\"\n",
		"#mesondefine M\n'@Q@'\n", "@@ ${} ${a b} @1@ //${C}\n", "#if ${K}\n"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	vals := map[string]string{"B": "b", "K": "1", "PROJECT_VERSION": "1.0"}
	f.Fuzz(func(t *testing.T, src string, cmake bool) {
		out, used, why := renderTemplate("t.h.in", src, vals, cmake)
		if why != "" {
			return
		}
		if len(used) == 0 && out != src {
			t.Fatalf("no substitution, yet %q became %q", src, out)
		}
		if strings.Count(out, "\n") != strings.Count(src, "\n") {
			t.Fatalf("%q became %q, with another number of lines", src, out)
		}
	})
}

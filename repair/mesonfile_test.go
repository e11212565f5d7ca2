package repair

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go/validate"
)

// grimTree is Debian's grim 1.4.0+ds tarball as the rule sees it: its meson files
// unchanged, its other files by name (write_jpg.c and include/write_jpg.h stripped).
func grimTree(t *testing.T) memTree {
	tree := memTree{
		"meson.build":                     readLog(t, "meson/grim-1.4.0.build"),
		"meson_options.txt":               readLog(t, "meson/grim-1.4.0.options"),
		"contrib/completions/meson.build": readLog(t, "meson/grim-1.4.0-completions.build"),
		"protocol/meson.build":            readLog(t, "meson/grim-1.4.0-protocol.build"),
	}
	for _, f := range []string{"LICENSE", "README.md", "box.c", "buffer.c", "main.c", "output-layout.c", "render.c", "write_png.c", "write_ppm.c",
		"grim.1.scd", "include/box.h", "include/buffer.h", "include/grim.h", "include/output-layout.h", "include/render.h", "include/write_png.h",
		"include/write_ppm.h", "contrib/completions/bash/grim.bash", "contrib/completions/fish/grim.fish", "protocol/wlr-screencopy-unstable-v1.xml"} {
		tree[f] = ""
	}
	return tree
}

// TestMesonMissingFileRule runs the rule on the real meson setup output of Debian's
// grim 1.4.0+ds (the repack strips write_jpg.c, which meson.build adds to the sources
// when libjpeg, required: get_option('jpeg'), is found) with its real meson files, and
// on smaller trees for the other gates and the cases it refuses.
func TestMesonMissingFileRule(t *testing.T) {
	opts := "option('extras', type: 'boolean', value: true, description: 'Build the extra tools')\n" +
		"option('system-zlib', type: 'boolean', value: false)\n" +
		"option('gl', type: 'feature', value: 'auto', description: 'Enable OpenGL output')\n" +
		"option('mode', type: 'combo', choices: ['a', 'b'], value: 'a')\n" +
		"option('tests', type: 'boolean', value: true, description: 'Build the tests')\n"
	stopIn := func(file string, line int, name string) string {
		return fmt.Sprintf("Program wayland-scanner found: YES\n\n%s:%d:0: ERROR: File %s does not exist.\n", file, line, name)
	}
	stop := func(line int, name string) string {
		return fmt.Sprintf("Program wayland-scanner found: YES\n\nmeson.build:%d:0: ERROR: File %s does not exist.\n\nA full log can be found at /workspace/p/builddir/meson-logs/meson-log.txt\n", line, name)
	}
	tree := func(build string, more ...string) memTree {
		m := memTree{"meson.build": build, "meson_options.txt": opts, "main.c": ""}
		for i := 0; i+1 < len(more); i += 2 {
			m[more[i]] = more[i+1]
		}
		return m
	}
	tests := []struct {
		name     string
		log      string
		tree     memTree
		planLine string
		analysis []string
		none     string
	}{
		{name: "grim: write_jpg.c stripped, -Djpeg=disabled", log: "meson-file-grim.log", tree: grimTree(t),
			planLine: "meson setup -Djpeg=disabled builddir && ninja -C builddir",
			analysis: []string{"meson.build:60 stops at write_jpg.c", "meson.build:54 names it only when libjpeg is found (meson.build:17 looks it up with required: get_option('jpeg'))",
				"leaves out the package's JPEG support (option jpeg), whose source file write_jpg.c the tarball does not have"}},
		{name: "a boolean option's if block",
			log:      stop(5, "tools/extra.c"),
			tree:     tree("project('p', 'c')\nsrcs = ['main.c']\nif get_option('extras')\n  srcs += 'tools/extra.c'\nendif\nexecutable('p', files(srcs))\n"),
			planLine: "meson setup -Dextras=false builddir && ninja -C builddir",
			analysis: []string{"meson.build:4 names it only when the extras option is true", "the package's extra tools (option extras)"}},
		{name: "the else branch of a boolean option: the vendored copy the repack strips",
			log: stop(8, "zlib/inflate.c"),
			tree: tree("project('p', 'c')\nif get_option('system-zlib')\n  z = dependency('zlib')\n  srcs = []\nelse\n  z = []\n  srcs = ['zlib/inflate.c']\nendif\n" +
				"executable('p', 'main.c', srcs, dependencies: z)\n"),
			planLine: "meson setup -Dsystem-zlib=true builddir && ninja -C builddir",
			analysis: []string{"only when the system-zlib option is false", "what option system-zlib turns on"}},
		{name: "a feature option read with .enabled() around an unswitchable inner if",
			log:      stop(6, "gl.c"),
			tree:     tree("project('p', 'c')\nif get_option('gl').enabled()\n  if host_machine.system() == 'linux'\n    srcs = ['gl.c']\n  endif\nendif\nexecutable('p', srcs)\n"),
			planLine: "meson setup -Dgl=disabled builddir && ninja -C builddir",
			analysis: []string{"only when the gl option is enabled", "the package's OpenGL output (option gl)"}},
		{name: "not found(): the fallback source of a missing library",
			log:      stop(5, "compat/strlcpy.c"),
			tree:     tree("project('p', 'c')\nbsd = dependency('libbsd', required: get_option('gl'))\nif not bsd.found()\n  srcs = files('compat/strlcpy.c')\nendif\n"),
			planLine: "meson setup -Dgl=enabled builddir && ninja -C builddir",
			analysis: []string{"only when libbsd is not found"}},
		{name: "a compiler's find_library",
			log:      stop(5, "gl.c"),
			tree:     tree("project('p', 'c')\ncc = meson.get_compiler('c')\ngl = cc.find_library('GL', required: get_option('gl'))\nif gl.found()\n  executable('glp', 'gl.c')\nendif\n"),
			planLine: "meson setup -Dgl=disabled builddir && ninja -C builddir"},
		{name: "a mention in a subdir's meson.build, relative to it",
			log:      stop(3, "src/extra.c"),
			tree:     tree("project('p', 'c')\nsubdir('src')\nexecutable('p', srcs)\n", "src/meson.build", "srcs = ['src/main.c']\nif get_option('extras')\n  srcs += 'extra.c'\nendif\n", "src/main.c", ""),
			planLine: "meson setup -Dextras=false builddir && ninja -C builddir",
			analysis: []string{"src/meson.build:3 names it"}},
		{name: "a subdir's meson.build that its parent reads only under an option",
			log:      stopIn("tests/meson.build", 1, "test_io.c"),
			tree:     tree("project('p', 'c')\nexecutable('p', 'main.c')\nif get_option('tests')\n  subdir('tests')\nendif\n", "tests/meson.build", "test('io', executable('t', 'test_io.c'))\n"),
			planLine: "meson setup -Dtests=false builddir && ninja -C builddir",
			analysis: []string{"tests/meson.build:1 stops at test_io.c", "tests/meson.build:1 names it only when the tests option is true", "the package's tests (option tests)"}},
		{name: "a found() variable of the parent read in a subdir",
			log: stopIn("src/meson.build", 5, "gl.c"),
			tree: tree("project('p', 'c')\ngl = dependency('gl', required: get_option('gl'))\nsubdir('src')\n", "src/meson.build",
				"srcs = ['main.c']\nif gl.found()\n  srcs += 'gl.c'\nendif\nexecutable('p', srcs)\n", "src/main.c", ""),
			planLine: "meson setup -Dgl=disabled builddir && ninja -C builddir",
			analysis: []string{"only when gl is found (meson.build:2 looks it up with required: get_option('gl'))"}},
		{name: "a mention in a subdir the top level reads under an option",
			log:      stop(4, "extras/x.c"),
			tree:     tree("project('p', 'c')\nsrcs = ['main.c']\nif get_option('extras')\n  subdir('extras')\nendif\nexecutable('p', srcs)\n", "extras/meson.build", "srcs += 'x.c'\n"),
			planLine: "meson setup -Dextras=false builddir && ninja -C builddir"},
		{name: "a subdir read unconditionally: the file is needed",
			log:  stopIn("tests/meson.build", 1, "test_io.c"),
			tree: tree("project('p', 'c')\nsubdir('tests')\n", "tests/meson.build", "test('io', executable('t', 'test_io.c'))\n"),
			none: "tests/meson.build:1 names test_io.c outside any if block"},
		{name: "an unconditional mention: the file is needed",
			log:  stop(2, "util.c"),
			tree: tree("project('p', 'c')\nexecutable('p', 'main.c', 'util.c')\n"),
			none: "meson.build:2 names util.c outside any if block: the build needs the file"},
		{name: "one mention gated, another not",
			log:  stop(6, "util.c"),
			tree: tree("project('p', 'c')\nif get_option('extras')\n  x = ['util.c']\nendif\nlib = files('util.c')\nexecutable('p', x)\n"),
			none: "meson.build:5 names util.c outside any if block"},
		{name: "a condition the rule cannot switch",
			log:  stop(4, "x86.c"),
			tree: tree("project('p', 'c')\nif host_machine.cpu_family() == 'x86_64'\n  s = ['x86.c']\nendif\nexecutable('p', s)\n"),
			none: "a condition the rule cannot switch"},
		{name: "a dependency whose required: is not the option alone",
			log:  stop(5, "gl.c"),
			tree: tree("project('p', 'c')\ngl = dependency('gl', required: get_option('gl').disable_auto_if(true))\nif gl.found()\n  s = ['gl.c']\nendif\n"),
			none: "a condition the rule cannot switch"},
		{name: "a found() variable assigned again",
			log:  stop(6, "gl.c"),
			tree: tree("project('p', 'c')\ngl = dependency('gl', required: get_option('gl'))\ngl = dependency('', required: false)\nif gl.found()\n  s = ['gl.c']\nendif\n"),
			none: "a condition the rule cannot switch"},
		{name: "two options gate the file",
			log:  stop(8, "gl.c"),
			tree: tree("project('p', 'c')\nif get_option('extras')\n  a = ['gl.c']\nendif\nif get_option('gl').allowed()\n  b = ['gl.c']\nendif\nexecutable('p', a, b)\n"),
			none: "no one option leaves the file out"},
		{name: "a combo option",
			log:  stop(4, "b.c"),
			tree: tree("project('p', 'c')\nif get_option('mode') == 'b'\n  s = ['b.c']\nendif\n"),
			none: "a condition the rule cannot switch"},
		{name: "an option the project does not declare",
			log:  stop(4, "b.c"),
			tree: tree("project('p', 'c')\nif get_option('nosuch')\n  s = ['b.c']\nendif\n"),
			none: "do not declare"},
		{name: "a file of the system, not of the tree (a package's data file, which another rule installs)",
			log:  stop(24, "/usr/share/hwdata/pnp.ids"),
			tree: tree("project('p', 'c')\nif get_option('extras')\n  x = files('/usr/share/hwdata/pnp.ids')\nendif\n"),
			none: "outside the source tree"},
		{name: "the file is in the tree",
			log:  stop(2, "main.c"),
			tree: tree("project('p', 'c')\nif get_option('extras')\n  executable('p', 'main.c')\nendif\n"),
			none: "the tree has main.c"},
		{name: "named by no meson.build",
			log:  stop(3, "gen.c"),
			tree: tree("project('p', 'c')\nsubdir('src')\n", "src/meson.build", "x = 1\n"),
			none: "no meson.build of . or its subdir()s names as a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, mesonBuild)
			if claims := Claims(Failure{Category: f.Category, Message: f.Message}, nil); !slices.Contains(claims, "meson-missing-file") {
				t.Fatalf("Claims(%q) = %v", f.Message, claims)
			}
			env := Env{Platform: debian(t), Plan: mesonPlan(), Files: tt.tree.files(), ReadFile: tt.tree.read}
			fix, why := makeMesonMissingFile(context.Background(), f, env)
			if tt.none != "" {
				if fix != nil || !strings.Contains(why, tt.none) {
					t.Fatalf("fix %+v, reason %q; want no fix because %q", fix, why, tt.none)
				}
				return
			}
			if fix == nil {
				t.Fatalf("no fix: %s", why)
			}
			if got := fix.Plan.Phases[0].Commands[0]; got != mesonPlan().Phases[0].Commands[0] {
				t.Errorf("setup changed to %q", got)
			}
			if got := fix.Plan.Phases[1].Commands[0]; got != tt.planLine {
				t.Errorf("build\n got %q\nwant %q", got, tt.planLine)
			}
			for _, a := range tt.analysis {
				if !strings.Contains(fix.Analysis, a) {
					t.Errorf("analysis %q does not say %q", fix.Analysis, a)
				}
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the new plan fails the scout's rules: %v", err)
			}
			env.Plan = fix.Plan
			if again, why := makeMesonMissingFile(context.Background(), f, env); again != nil || !strings.Contains(why, "already configures") {
				t.Errorf("the fixed plan gets another fix %+v (%s)", again, why)
			}
		})
	}
}

// TestMesonMissingFileThroughPropose: grim's failure reaches this rule through the
// rule table, and no rule before it answers it.
func TestMesonMissingFileThroughPropose(t *testing.T) {
	tree := grimTree(t)
	f := buildFailure(t, "meson-file-grim.log", mesonBuild)
	fix, notes := Propose(context.Background(), f, Env{Platform: debian(t), Plan: mesonPlan(), Files: tree.files(), ReadFile: tree.read}, nil)
	if fix == nil || fix.Rule != "meson-missing-file" {
		t.Fatalf("fix %+v, notes %v", fix, notes)
	}
}

func TestMesonWalkFoundGates(t *testing.T) {
	src := "a = dependency('x', required: get_option('ax'))\nb = find_program('y', required : get_option('by'))\n" +
		"if true\n  c = dependency('z', required: get_option('cz'))\nendif\nd = dependency('w', required: get_option('dw'))\nd += []\n" +
		"if a.found()\n  s = 'A'\nelse\n  s = 'notA'\nendif\nif not b.found()\n  s = 'notB'\nendif\n" +
		"if c.found()\n  s = 'C'\nendif\nif d.found()\n  s = 'D'\nendif\nif a.found() and b.found()\n  s = 'AB'\nendif\n"
	toks, err := lexMeson(src)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]mesonGate{
		"A":    {{Option: "ax", Want: true, Feature: true, Dep: "x", Line: 1}},
		"notA": {{Option: "ax", Want: false, Feature: true, Dep: "x", Line: 1}},
		"notB": {{Option: "by", Want: false, Feature: true, Dep: "y", Line: 2}},
		"C":    {{}},
		"D":    {{}},
		"AB":   {{}},
	}
	got := map[string][]mesonGate{}
	mesonWalk(toks, func(i int, gates []mesonGate) {
		if _, ok := want[toks[i].text]; ok && toks[i].kind == 's' {
			got[toks[i].text] = slices.Clone(gates)
		}
	})
	for k, w := range want {
		if !slices.Equal(got[k], w) {
			t.Errorf("%s: gates %+v, want %+v", k, got[k], w)
		}
	}
}

// FuzzMesonMentions checks that any meson.build reads through the mention search
// without a panic, each mention on a line of the text and its gates within the nesting
// bound.
func FuzzMesonMentions(f *testing.F) {
	f.Add(readLog(f, "meson/grim-1.4.0.build"), "write_jpg.c")
	f.Add("x = dependency('a', required: get_option('o'))\nif not x.found()\nelse\n  s = ['f.c']\nendif\n", "f.c")
	f.Add("a = cc.find_library('m', required: get_option('m'))\nif a.found()\n subdir('s')\nendif\n", "s/f.c")
	f.Fuzz(func(t *testing.T, src, name string) {
		tree := memTree{"meson.build": src, "s/meson.build": src}
		ms, _ := mesonMentions(context.Background(), Env{Files: tree.files(), ReadFile: tree.read}, "meson.build", name)
		lines := strings.Count(src, "\n") + 1
		for _, m := range ms {
			if m.Line < 1 || m.Line > lines || len(m.Gates) > maxMesonNesting {
				t.Fatalf("mention %+v of %d lines", m, lines)
			}
		}
	})
}

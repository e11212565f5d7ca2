package repair

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/validate"
)

const mesonBuild = "meson setup builddir && ninja -C builddir"

func mesonPlan() *atesor.BuildPlan {
	return &atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: "setup", Commands: []string{"apt-get update && apt-get install -y build-essential meson ninja-build pkgconf"}},
		{Name: "build", Commands: []string{mesonBuild}},
	}}
}

// pcFinder is a package index for the rule's logic: pkg-config module -> package.
type pcFinder map[string]string

func (f pcFinder) Providers(kind FileKind, name string) []string {
	if p, ok := f[name]; ok && kind == KindPkgConfig {
		return []string{p}
	}
	return nil
}

// TestMesonSubprojectRule runs the rule on the real configure output of Debian's
// opentype-sanitizer 8.2.1 (meson wants to download the google-woff2 wrap, the
// sandbox is offline) with its real meson.build, and on smaller trees for a stripped
// subprojects/ directory gated by an option.
func TestMesonSubprojectRule(t *testing.T) {
	ots := memTree{"meson.build": readLog(t, "meson/ots-8.2.1.build"), "meson_options.txt": readLog(t, "meson/ots-8.2.1.options"),
		"subprojects/google-woff2.wrap": "[wrap-file]\ndirectory = woff2\n"}
	gated := "project('p', 'c')\nif get_option('tests')\n  # the tests\n  cmocka = dependency('cmocka', fallback: ['cmocka', 'cmocka_dep'])\nendif\n"
	feature := "project('p', 'c')\nif not get_option('docs').allowed()\nelse\n  hotdoc = subproject('hotdoc')\nendif\n"
	tests := []struct {
		name     string
		log      string
		tree     memTree
		index    pcFinder
		setup    string
		planLine string
		analysis string
		none     string
	}{
		{name: "opentype-sanitizer: the distro's woff2 instead of the wrap download", log: "meson-subproject-ots.log", tree: ots,
			index: pcFinder{"libwoff2dec": "libwoff-dev"},
			setup: "apt-get update && apt-get install -y build-essential meson ninja-build pkgconf libwoff-dev", planLine: mesonBuild,
			analysis: "meson.build:125 asks for dependency libwoff2dec"},
		{name: "opentype-sanitizer without an index: no fix", log: "meson-subproject-ots.log", tree: ots,
			none: "no Contents index to look up (and no distro package known to provide) libwoff2dec"},
		{name: "the test framework wrap of opentype-sanitizer: googletest by name",
			log:   "meson.build:247:8: ERROR: Neither a subproject directory nor a gtest.wrap file was found.\n",
			tree:  ots,
			setup: "apt-get update && apt-get install -y build-essential meson ninja-build pkgconf libgtest-dev", planLine: mesonBuild},
		{name: "a boolean tests option gates it off",
			log:      "meson.build:4:11: ERROR: Subproject directory not found and cmocka.wrap file not found\n",
			tree:     memTree{"meson.build": gated, "meson_options.txt": "option('tests', type : 'boolean', value : true)\n"},
			setup:    mesonPlan().Phases[0].Commands[0],
			planLine: "meson setup -Dtests=false builddir && ninja -C builddir", analysis: "leaves out the package's tests"},
		{name: "a feature docs option in an else branch",
			log:      "meson.build:4:11: ERROR: Subproject directory not found and hotdoc.wrap file not found\n",
			tree:     memTree{"meson.build": feature, "meson.options": "option('docs', type: 'feature', value: 'auto')\n"},
			setup:    mesonPlan().Phases[0].Commands[0],
			planLine: "meson setup -Ddocs=disabled builddir && ninja -C builddir"},
		{name: "ungated and unpackaged: no fix",
			log:  "meson.build:2:6: ERROR: Neither a subproject directory nor a foo.wrap file was found.\n",
			tree: memTree{"meson.build": "project('p')\nfoo = subproject('foo')\n"},
			none: "provide) foo, and no tests"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, mesonBuild)
			if claims := Claims(Failure{Category: f.Category, Message: f.Message}, nil); !slices.Contains(claims, "meson-missing-subproject") {
				t.Fatalf("Claims(%q) = %v", f.Message, claims)
			}
			env := Env{Platform: debian(t), Plan: mesonPlan(), Files: tt.tree.files(), ReadFile: tt.tree.read}
			if tt.index != nil {
				env.Packages = tt.index
			}
			fix, why := makeMesonSubproject(context.Background(), f, env)
			if tt.none != "" {
				if fix != nil || !strings.Contains(why, tt.none) {
					t.Fatalf("fix %+v, reason %q; want no fix because %q", fix, why, tt.none)
				}
				return
			}
			if fix == nil {
				t.Fatalf("no fix: %s", why)
			}
			if got := fix.Plan.Phases[0].Commands[0]; got != tt.setup {
				t.Errorf("setup\n got %q\nwant %q", got, tt.setup)
			}
			if got := fix.Plan.Phases[1].Commands[0]; got != tt.planLine {
				t.Errorf("build\n got %q\nwant %q", got, tt.planLine)
			}
			if !strings.Contains(fix.Analysis, tt.analysis) {
				t.Errorf("analysis %q does not say %q", fix.Analysis, tt.analysis)
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the new plan fails the scout's rules: %v", err)
			}
			env.Plan = fix.Plan
			if again, _ := makeMesonSubproject(context.Background(), f, env); again != nil {
				t.Errorf("the fixed plan gets another fix: %s", again.Strategy)
			}
		})
	}
}

func TestMesonCalls(t *testing.T) {
	src := "# c\nx = dependency('a', 'b',\n  fallback : ['s', 'dep'], # (\n  required: get_option('t'))\nif get_option('bench')\n  if cc.has_header('x.h')\n" +
		"    y = subproject('''multi\nline''')\n  endif\nelse\n  z = dependency(f'q')\nendif\n"
	toks, err := lexMeson(src)
	if err != nil {
		t.Fatal(err)
	}
	calls := mesonCalls(toks, "dependency", "subproject")
	if len(calls) != 3 {
		t.Fatalf("calls = %+v", calls)
	}
	if c := calls[0]; c.Line != 2 || !slices.Equal(c.Args, []string{"a", "b"}) || len(c.Kw["fallback"]) == 0 || len(c.Gates) != 0 {
		t.Errorf("first call %+v", c)
	}
	if c := calls[1]; c.Line != 7 || c.Args[0] != "multi\nline" || len(c.Gates) != 2 || c.Gates[0] != (mesonGate{Option: "bench", Want: true}) || c.Gates[1].Option != "" {
		t.Errorf("second call %+v", c)
	}
	if c := calls[2]; c.Line != 11 || c.Args[0] != "q" || len(c.Gates) != 1 || c.Gates[0] != (mesonGate{Option: "bench", Want: false}) {
		t.Errorf("third call %+v", c)
	}
}

// TestMesonReaderAttacks: what a hostile meson.build could hold ends quickly.
func TestMesonReaderAttacks(t *testing.T) {
	for name, src := range map[string]string{
		"too large":         strings.Repeat("x = 1\n", maxMesonBytes/6+1),
		"nested brackets":   "x = " + strings.Repeat("[", 100000),
		"unclosed strings":  strings.Repeat("'abc\n", 200000),
		"unclosed triple":   "'''" + strings.Repeat("x", 1<<20),
		"many ifs":          strings.Repeat("if get_option('tests')\n", 100000) + "dependency('x')\n",
		"odd bytes":         "\x00\xff\xfe dependency(\x01'a'\x02)\n",
		"many tokens":       strings.Repeat("a,", 300000),
		"unbalanced blocks": "endif\nelse\nelif x\nendif\ndependency('a')\n",
	} {
		start := time.Now()
		toks, err := lexMeson(src)
		if err == nil {
			_ = mesonCalls(toks, "dependency", "subproject", "option")
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %s", name, d)
		}
	}
}

// FuzzMesonBuild checks that any meson.build text reads without a panic and that the
// calls found are on lines of the text.
func FuzzMesonBuild(f *testing.F) {
	f.Add(readLog(f, "meson/ots-8.2.1.build"))
	f.Add("if not get_option('docs').allowed()\nelse\n  subproject('''x''')\nendif\n")
	f.Add("d = dependency('a', fallback : ['b', 'c'], required: false) # x\n")
	f.Fuzz(func(t *testing.T, src string) {
		toks, err := lexMeson(src)
		if err != nil {
			return
		}
		lines := strings.Count(src, "\n") + 1
		for _, c := range mesonCalls(toks, "dependency", "subproject", "option") {
			if c.Line < 1 || c.Line > lines {
				t.Fatalf("call at line %d of %d", c.Line, lines)
			}
		}
	})
}

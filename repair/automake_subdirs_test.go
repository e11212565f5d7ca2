package repair

import (
	"context"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/buildlog"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// applyLineDiff applies a diff of changedLinesDiff's form (hunks of one removed and one
// added line, no context) to src, failing the test when a removed line does not match.
func applyLineDiff(t testing.TB, src, diff string) string {
	t.Helper()
	lines := strings.SplitAfter(src, "\n")
	dl := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	for i := 2; i < len(dl); i++ {
		if !strings.HasPrefix(dl[i], "@@ -") {
			continue
		}
		n, err := strconv.Atoi(strings.Fields(dl[i])[1][1:])
		if err != nil || n < 1 || n > len(lines) || i+2 >= len(dl) {
			t.Fatalf("bad hunk %q in\n%s", dl[i], diff)
		}
		old, nl := strings.CutSuffix(lines[n-1], "\n")
		if "-"+old != dl[i+1] {
			t.Fatalf("hunk %q removes %q, the file has %q", dl[i], dl[i+1], old)
		}
		add := dl[i+2]
		if strings.HasPrefix(add, `\`) && i+3 < len(dl) {
			add = dl[i+3]
		}
		lines[n-1] = strings.TrimPrefix(add, "+")
		if nl {
			lines[n-1] += "\n"
		}
	}
	return strings.Join(lines, "")
}

const (
	shippedConfigure = "./configure && make -j$(nproc)"
	autoreconfBuild  = "autoreconf -fi && ./configure && make -j$(nproc)"
)

func autotoolsPlan(build string) *atesor.BuildPlan {
	return &atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: "setup", Commands: []string{"apt-get update && apt-get install -y build-essential pkgconf automake"}},
		{Name: "build", Commands: []string{build}},
	}}
}

// TestAutomakeSubdirRule runs the rule, through Propose as the graph does, on the real
// output of Debian's repacked readosm (its tests/ stripped, configure shipped) and pngnq
// (freegetopt/ stripped, SUBDIRS through a conditional variable, no configure) with
// their real configure.ac and Makefile.am, and on smaller trees for the other forms.
func TestAutomakeSubdirRule(t *testing.T) {
	tests := []struct {
		name  string
		log   string // a testdata log, or the output itself
		tree  memTree
		build string
		want  map[string]string // the patched files' new content; nil: no fix
		plan  string            // the build phase's new command; "": unchanged
		words []string          // the analysis says these
		none  string
	}{
		{name: "readosm: tests/ stripped, shipped configure",
			log: "automake-subdir-readosm.log",
			tree: memTree{"configure.ac": readLog(t, "autotools/readosm-1.1.0a.configure.ac"), "Makefile.am": readLog(t, "autotools/readosm-1.1.0a.Makefile.am"),
				"configure": "", "Makefile.in": "", "src/Makefile.am": "", "headers/Makefile.am": "", "examples/Makefile.am": ""},
			build: shippedConfigure,
			want: map[string]string{
				"configure.ac": strings.Replace(readLog(t, "autotools/readosm-1.1.0a.configure.ac"), "\t\ttests/Makefile \\\n", "\t\t\\\n", 1),
				"Makefile.am":  strings.Replace(readLog(t, "autotools/readosm-1.1.0a.Makefile.am"), "SUBDIRS = headers src tests examples", "SUBDIRS = headers src examples", 1),
			},
			plan: autoreconfBuild,
			words: []string{"lacks tests", "configure.ac:55 AC_CONFIG_FILES lists tests/Makefile", "Makefile.am's SUBDIRS names tests",
				"leaves out the package's tests"}},
		{name: "pngnq: freegetopt/ stripped, SUBDIRS through a conditional variable, autoreconf already in the plan",
			log: "automake-subdir-pngnq.log",
			tree: memTree{"configure.ac": readLog(t, "autotools/pngnq-1.1.configure.ac"), "Makefile.am": readLog(t, "autotools/pngnq-1.1.Makefile.am"),
				"src/Makefile.am": "", "src/pngnq.c": ""},
			build: autoreconfBuild,
			want: map[string]string{
				"configure.ac": strings.Replace(readLog(t, "autotools/pngnq-1.1.configure.ac"), "src/Makefile freegetopt/Makefile]", "src/Makefile]", 1),
				"Makefile.am":  strings.Replace(readLog(t, "autotools/pngnq-1.1.Makefile.am"), "MAYBE_FREEGETOPT = freegetopt", "MAYBE_FREEGETOPT =", 1),
			},
			words: []string{"lacks freegetopt", "Makefile.am's MAYBE_FREEGETOPT names freegetopt", "whatever they held is not built"}},
		{name: "AC_CONFIG_SUBDIRS, DIST_SUBDIRS, += under a conditional, OUTPUT:INPUT, a nested Makefile.am",
			log: "config.status: creating Makefile\nconfig.status: error: cannot find input file: `gtest/Makefile.in'\n" +
				"config.status: error: cannot find input file: `src/bench/Makefile.in'\n",
			tree: memTree{
				"configure.ac": "AC_INIT([p], [1])\ndnl AC_CONFIG_FILES([gtest/Makefile])\nAC_CONFIG_SUBDIRS([gtest])\n" +
					"AS_IF([test x = x], [AC_CONFIG_FILES([gtest/Makefile])])\n" +
					"AC_CONFIG_FILES([Makefile src/Makefile src/bench/Makefile:src/bench/Makefile.in gtestdir/Makefile $foo/Makefile])\nAC_OUTPUT\n",
				"Makefile.am": "# SUBDIRS = gtest\nSUBDIRS = src\nif WITH_TESTS\n\tSUBDIRS += gtest\nendif\nDIST_SUBDIRS = src \\\n  gtest/ \\\n  gtestdir\n" +
					"check-local:\n\tcd gtest && SUBDIRS= $(MAKE) gtest\n",
				"src/Makefile.am": "SUBDIRS = . bench # benchmarks\n", "src/a.c": "", "gtestdir/Makefile.am": ""},
			build: "cd . && ./configure --prefix=/usr && make",
			want: map[string]string{
				"configure.ac": "AC_INIT([p], [1])\ndnl AC_CONFIG_FILES([gtest/Makefile])\nAC_CONFIG_SUBDIRS([])\n" +
					"AS_IF([test x = x], [AC_CONFIG_FILES([])])\n" +
					"AC_CONFIG_FILES([Makefile src/Makefile gtestdir/Makefile $foo/Makefile])\nAC_OUTPUT\n",
				"Makefile.am": "# SUBDIRS = gtest\nSUBDIRS = src\nif WITH_TESTS\n\tSUBDIRS +=\nendif\nDIST_SUBDIRS = src \\\n  \\\n  gtestdir\n" +
					"check-local:\n\tcd gtest && SUBDIRS= $(MAKE) gtest\n",
				"src/Makefile.am": "SUBDIRS = . # benchmarks\n",
			},
			plan:  "cd . && autoreconf -fi && ./configure --prefix=/usr && make",
			words: []string{"lacks gtest, src/bench", "AC_CONFIG_SUBDIRS lists gtest", "src/Makefile.am's SUBDIRS names bench", "Makefile.am's SUBDIRS and DIST_SUBDIRS names gtest"}},
		{name: "automake's own helper file: the autoreconf rule's",
			log:   "configure.ac:11: error: required file './compile' not found\n",
			tree:  memTree{"configure.ac": "AC_INIT([p], [1])\n", "Makefile.am": "SUBDIRS = src\n", "src/Makefile.am": ""},
			build: autoreconfBuild,
			none:  "are in the tree"},
		{name: "the directory holds files: no fix",
			log:   "config.status: error: cannot find input file: `src/Makefile.in'\n",
			tree:  memTree{"configure.ac": "AC_CONFIG_FILES([src/Makefile])\n", "Makefile.am": "SUBDIRS = src\n", "src/a.c": ""},
			build: shippedConfigure,
			none:  "are in the tree"},
		{name: "missing, but named only through shell syntax: no fix",
			log:   "config.status: error: cannot find input file: `tests/Makefile.in'\n",
			tree:  memTree{"configure.ac": "AC_CONFIG_FILES([${t}/Makefile])\n", "Makefile.am": "SUBDIRS = @TESTS@\n", "src/a.c": ""},
			build: shippedConfigure,
			none:  "no AC_CONFIG_FILES, AC_CONFIG_SUBDIRS or SUBDIRS entry the rule can edit"},
		{name: "a path outside the tree: no fix",
			log:   "config.status: error: cannot find input file: `../x/Makefile.in'\n",
			tree:  memTree{"configure.ac": "AC_CONFIG_FILES([../x/Makefile])\n", "Makefile.am": "SUBDIRS = ../x\n"},
			build: shippedConfigure,
			none:  "are in the tree"},
		{name: "no ./configure in the plan: no fix",
			log:   "config.status: error: cannot find input file: `tests/Makefile.in'\n",
			tree:  memTree{"configure.ac": "AC_CONFIG_FILES([tests/Makefile])\n", "Makefile.am": "SUBDIRS = tests\n", "src/a.c": ""},
			build: "make",
			none:  "no ./configure command in the plan"},
	}
	p := debian(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, tt.build)
			if claims := Claims(Failure{Category: f.Category, Message: f.Message}, nil); !slices.Contains(claims, "automake-missing-subdir") {
				t.Fatalf("Claims(%q) = %v, want automake-missing-subdir", f.Message, claims)
			}
			plan := autotoolsPlan(tt.build)
			env := Env{Platform: p, Plan: plan, Files: tt.tree.files(), ReadFile: tt.tree.read}
			fix, why := makeAutomakeSubdir(context.Background(), f, env)
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			patched := wantPatched(t, fix, tt.tree, tt.want)
			wantSays(t, fix.Analysis, tt.words)
			if tt.plan == "" {
				if fix.Plan != nil {
					t.Errorf("plan changed to %+v, want it unchanged", fix.Plan.Phases)
				}
			} else {
				if fix.Plan == nil {
					t.Fatal("no new plan")
				}
				if got := fix.Plan.Phases[1].Commands[0]; got != tt.plan {
					t.Errorf("build phase\n got %q\nwant %q", got, tt.plan)
				}
				if setup := fix.Plan.Phases[0].Commands[0]; !strings.Contains(setup, " autoconf") || !strings.Contains(setup, " libtool") {
					t.Errorf("setup %q does not install the autotools", setup)
				}
				if err := validate.BuildPlan(fix.Plan); err != nil {
					t.Errorf("the new plan fails the scout's rules: %v", err)
				}
				if plan.Phases[1].Commands[0] != tt.build {
					t.Error("the rule changed the caller's plan in place")
				}
			}
			// Through Propose, this rule answers (before the autoreconf rule), and its
			// fix passes the validation a model's fix passes.
			fx, notes := Propose(context.Background(), f, env, nil)
			if fx == nil || fx.Rule != "automake-missing-subdir" {
				t.Fatalf("Propose = %+v, notes %v", fx, notes)
			}
			if err := check(fx, "/workspace/p"); err != nil {
				t.Errorf("the fix fails validation: %v", err)
			}
			// The patched tree gets no second fix for the same directories.
			env.Files, env.ReadFile = patched.files(), patched.read
			if again, _ := makeAutomakeSubdir(context.Background(), f, env); again != nil {
				t.Errorf("the patched tree gets another fix: %s", again.Strategy)
			}
		})
	}
}

// TestAutoreconfStillAnswersHelperFiles checks that, with this rule before it, the
// autoreconf rule still answers automake's missing helper files (mpack's real log).
func TestAutoreconfStillAnswersHelperFiles(t *testing.T) {
	out := readLog(t, "automake-missing.log")
	ev := buildlog.Extract(out)
	f := Failure{Category: ev.Category(), Message: ev.Text, Output: out, Phase: "build", Command: "make"}
	tree := memTree{"configure.ac": "AC_INIT([mpack], [1.6])\n", "Makefile.am": "bin_PROGRAMS = mpack\n", "unixpk.c": ""}
	env := Env{Platform: debian(t), Plan: autotoolsPlan(shippedConfigure), Files: tree.files(), ReadFile: tree.read}
	fix, notes := Propose(context.Background(), f, env, nil)
	if fix == nil || fix.Rule != "autoreconf" {
		t.Fatalf("Propose = %+v, notes %v, want the autoreconf rule", fix, notes)
	}
}

// FuzzAutomakeSubdirEdit checks the readers of configure.ac and Makefile.am on any
// text: no panic, every word dropped names the directory, and the diff applied to the
// text gives the edited text with the same lines.
func FuzzAutomakeSubdirEdit(f *testing.F) {
	f.Add(readLog(f, "autotools/readosm-1.1.0a.configure.ac")+readLog(f, "autotools/readosm-1.1.0a.Makefile.am"), "tests")
	f.Add(readLog(f, "autotools/pngnq-1.1.configure.ac")+readLog(f, "autotools/pngnq-1.1.Makefile.am"), "freegetopt")
	f.Add("AC_CONFIG_FILES([a/b:a/b.in:c]\nAC_CONFIG_SUBDIRS(a\nSUBDIRS = a \\\n  $(X)\nX += a # a\n\tSUBDIRS = a\n", "a")
	f.Add("dnl\nAC_OUTPUT([x/Makefile])#\nSUBDIRS=x\\", "x")
	f.Fuzz(func(t *testing.T, src, dir string) {
		if len(src) > 1<<16 || dir == "" || strings.ContainsAny(dir, " \t\r\n") {
			return
		}
		dir = path.Clean(dir)
		var drop []span
		for _, m := range m4ListMacros(src) {
			for _, w := range m.words {
				if w.at.start < 0 || w.at.end > len(src) || src[w.at.start:w.at.end] != w.text {
					t.Fatalf("word %q at %v is not the text there", w.text, w.at)
				}
				if configFileUnder(w.text, dir) {
					drop = append(drop, w.at)
				}
			}
		}
		amSpans, _ := subdirWords(src, dir)
		for _, s := range amSpans {
			if w := src[s.start:s.end]; path.Clean(strings.TrimSuffix(w, "/")) != dir {
				t.Fatalf("dropping %q, which does not name %q", w, dir)
			}
		}
		for _, spans := range [][]span{drop, amSpans} {
			next := dropSpans(src, spans)
			if strings.Count(next, "\n") != strings.Count(src, "\n") {
				t.Fatalf("the edit changed the number of lines:\n%q\n%q", src, next)
			}
			diff, ok := changedLinesDiff("f", src, next)
			if ok != (next != src) {
				t.Fatalf("diff reported %v for a change %v", ok, next != src)
			}
			if ok {
				if got := applyLineDiff(t, src, diff); got != next {
					t.Fatalf("the diff applied gives\n%q\nwant\n%q", got, next)
				}
			}
		}
	})
}

// wantPatched checks that a fix is recorded patches only and that they turn tree's
// files into want's, no more files and no fewer; it returns the tree patched.
func wantPatched(t *testing.T, fix *Fix, tree memTree, want map[string]string) memTree {
	t.Helper()
	got := map[string]string{}
	for _, a := range fix.Actions {
		if a.Type != atesor.ActionPatch {
			t.Fatalf("action %+v, want patches only", a)
		}
		got[a.File] = applyLineDiff(t, tree[a.File], a.Diff)
	}
	for file, w := range want {
		if got[file] != w {
			t.Errorf("%s patched\n%s\nwant\n%s", file, got[file], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("patched %d files, want %d", len(got), len(want))
	}
	patched := maps.Clone(tree)
	maps.Copy(patched, got)
	return patched
}

// wantSays checks that a fix's analysis says each of words.
func wantSays(t *testing.T, analysis string, words []string) {
	t.Helper()
	for _, w := range words {
		if !strings.Contains(analysis, w) {
			t.Errorf("analysis %q\ndoes not say %q", analysis, w)
		}
	}
}

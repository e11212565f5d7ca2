package repair

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/buildlog"
	"github.com/eclipse-atesor/atesor-go/validate"
	"github.com/google/go-cmp/cmp"
)

func readPatch(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "distpatches", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLocalName(t *testing.T) {
	tests := map[string]bool{
		"src/a.c": true, "a": true, "a/./b.c": true,
		"": false, "/etc/passwd": false, "..": false, "../x": false, "a/../../x": false,
		"a\nb": false, "a\x00b": false,
	}
	for p, want := range tests {
		if got := localName(p); got != want {
			t.Errorf("localName(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestNormalizedPatch(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		level     int
		wantFiles []string
		wantHdrs  []string // the ---/+++ lines of the result
		wantWhy   string
	}{
		{"quilt's Index: and .orig names (gengetopt)", readPatch(t, "gengetopt-9001-dfsg.patch"), 1,
			[]string{"Makefile.am", "configure.ac"},
			[]string{"--- a/Makefile.am", "+++ b/Makefile.am", "--- a/configure.ac", "+++ b/configure.ac"}, ""},
		{"level 0", "--- src/x.c\t2020-01-01\n+++ src/x.c\t2020-01-02\n@@ -1 +1 @@\n-a\n+b\n", 0,
			[]string{"src/x.c"}, []string{"--- a/src/x.c", "+++ b/src/x.c"}, ""},
		{"level 2", "--- x/y/src/x.c\n+++ x/y/src/x.c\n@@ -1 +1 @@\n-a\n+b\n", 2,
			[]string{"src/x.c"}, []string{"--- a/src/x.c", "+++ b/src/x.c"}, ""},
		{"a new file", "--- /dev/null\n+++ b/src/new.h\n@@ -0,0 +1,2 @@\n+#pragma once\n+int f(void);\n", 1,
			[]string{"src/new.h"}, []string{"--- /dev/null", "+++ b/src/new.h"}, ""},
		{"a removed line that reads like a header stays in its hunk",
			"--- a/db.sql\n+++ b/db.sql\n@@ -1,3 +1,2 @@\n--- a/comment\n+++ b/kept\n x\n", 1,
			[]string{"db.sql"}, []string{"--- a/db.sql", "+++ b/db.sql", "--- a/comment", "+++ b/kept"}, ""},
		{"out of the tree", "--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n", 1, nil, nil, "outside the tree"},
		{"the packaging itself", "--- a/debian/rules\n+++ b/debian/rules\n@@ -1 +1 @@\n-a\n+b\n", 1, nil, nil, "packaging"},
		{"too few components", "--- x.c\n+++ x.c\n@@ -1 +1 @@\n-a\n+b\n", 1, nil, nil, "fewer than 2"},
		{"binary", "diff --git a/x.png b/x.png\nGIT binary patch\nliteral 1\n", 1, nil, nil, "binary"},
		{"no diff", "Description: only words\n", 1, nil, nil, "no file diff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, files, why := normalizedPatch(tt.text, tt.level)
			if tt.wantWhy != "" {
				if !strings.Contains(why, tt.wantWhy) {
					t.Fatalf("why %q, want it to say %q", why, tt.wantWhy)
				}
				return
			}
			if why != "" {
				t.Fatal(why)
			}
			if diff := cmp.Diff(tt.wantFiles, files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			var hdrs []string
			for _, l := range strings.Split(got, "\n") {
				if strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ") {
					hdrs = append(hdrs, l)
				}
			}
			if diff := cmp.Diff(tt.wantHdrs, hdrs); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
			if err := validate.FixProposal(&atesor.FixProposal{Analysis: "a", RecommendedStrategyID: "1", Strategies: []atesor.Strategy{{ID: "1", Description: "d",
				Actions: []atesor.Action{{Type: atesor.ActionPatch, File: files[0], Diff: got}}}}}, "/workspace/x"); err != nil {
				t.Errorf("the normalized patch fails validation: %v", err)
			}
		})
	}
}

func FuzzNormalizedPatch(f *testing.F) {
	f.Add(readPatch(f, "gengetopt-9001-dfsg.patch"), 1)
	f.Add("--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n-a\n-b\n+c\n", 0)
	f.Add("--- /dev/null\n+++ /dev/null\n", 3)
	f.Fuzz(func(t *testing.T, text string, level int) {
		if level < 0 || level > 9 {
			return
		}
		_, files, why := normalizedPatch(text, level)
		if why == "" && len(files) == 0 {
			t.Fatal("no file and no reason")
		}
		for _, p := range files {
			if !localName(p) || strings.HasPrefix(p, "debian/") {
				t.Fatalf("file %q", p)
			}
		}
	})
}

// gengetoptDist is Debian's gengetopt 2.23+dfsg1-1: its series drops the doc directory
// the repack strips (9001-dfsg.patch) after a manual page fix.
func gengetoptDist(t testing.TB) *Distribution {
	return &Distribution{Package: "gengetopt", Version: "2.23+dfsg1-1", Patches: []DistributionPatch{
		{Name: "01man.patch", Level: 1, Diff: readPatch(t, "gengetopt-01man.patch")},
		{Name: "9001-dfsg.patch", Level: 1, Diff: readPatch(t, "gengetopt-9001-dfsg.patch")},
	}}
}

func TestDistributionPatchesRule(t *testing.T) {
	out := readLog(t, "distpatches/gengetopt.log")
	ev := buildlog.Extract(out)
	f := Failure{Category: ev.Category(), Message: ev.Text, Output: out, Phase: "build", Packaged: true}
	plan := defaultPlan("./configure && make -j$(nproc)")
	applied := atesor.FixAttempt{Source: atesor.FixSourceScripted, Rule: distPatchesRuleName}
	tests := []struct {
		name  string
		phase string
		dist  DistributionFunc
		fixes []atesor.FixAttempt
		none  string
	}{
		{name: "gengetopt: the series, then autoreconf for its Makefile.am and configure.ac", dist: distOf(gengetoptDist(t))},
		{name: "no counterpart", none: "no counterpart"},
		{name: "the lookup finds none", dist: distOf(nil), none: "no counterpart"},
		{name: "the packaging cannot be read", dist: func(context.Context) (*Distribution, error) { return nil, errors.New("404 Not Found") },
			none: "could not be read: 404"},
		{name: "a series that cannot be read", dist: distOf(&Distribution{Package: "x", Version: "1-1", PatchesUnread: "the series names gone.patch"}),
			none: "series could not be read: the series names gone.patch"},
		{name: "no series", dist: distOf(&Distribution{Package: "x", Version: "1-1"}), none: "carries no patch series"},
		{name: "only patches of the packaging", dist: distOf(&Distribution{Package: "x", Version: "1-1", Patches: []DistributionPatch{
			{Name: "rules.patch", Level: 1, Diff: "--- a/debian/rules\n+++ b/debian/rules\n@@ -1 +1 @@\n-a\n+b\n"}}}), none: "rules.patch (it changes the packaging"},
		{name: "once per run", dist: distOf(gengetoptDist(t)), fixes: []atesor.FixAttempt{applied}, none: "already applied"},
		{name: "a failed setup", phase: "setup", dist: distOf(gengetoptDist(t)), none: "setup phase"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := f
			if tt.phase != "" {
				f.Phase = tt.phase
			}
			env := Env{Platform: debian(t), Plan: plan, Distribution: tt.dist, Fixes: tt.fixes}
			fix, why := makeDistributionPatches(context.Background(), f, env)
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			var files []string
			for _, a := range fix.Actions {
				if a.Type != atesor.ActionPatch {
					t.Fatalf("action %+v, want a patch", a)
				}
				files = append(files, a.File)
			}
			if diff := cmp.Diff([]string{"doc/gengetopt.1", "Makefile.am"}, files); diff != "" {
				t.Errorf("patched files (-want +got):\n%s", diff)
			}
			if fix.Plan == nil || !strings.Contains(fix.Plan.Phases[1].Commands[0], "autoreconf -fi && ./configure") {
				t.Fatalf("plan %+v, want autoreconf before ./configure", fix.Plan)
			}
			if !strings.Contains(fix.Strategy, "01man.patch 9001-dfsg.patch") || !strings.Contains(fix.Analysis, "gengetopt 2.23+dfsg1-1") {
				t.Errorf("strategy %q, analysis %q", fix.Strategy, fix.Analysis)
			}
			if err := check(fix, "/workspace/gengetopt"); err != nil {
				t.Errorf("the fix fails validation: %v", err)
			}
		})
	}
	// Through Propose: with every other rule declining or tried, the series is the answer.
	env := Env{Platform: debian(t), Plan: plan, Distribution: distOf(gengetoptDist(t))}
	tried := func(rule, key string) bool { return rule != distPatchesRuleName }
	if fix, notes := Propose(context.Background(), f, env, tried); fix == nil || fix.Rule != distPatchesRuleName {
		t.Fatalf("Propose = %+v, notes %v", fix, notes)
	}
}

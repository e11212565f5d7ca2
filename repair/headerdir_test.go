package repair

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/buildlog"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// fakeIncludes is a sandbox's include directories: the files each package installs,
// and the packages installed. Its locate installs what it is asked to (an unknown
// package fails, as apt-get does) and finds files by their path's end.
type fakeIncludes struct {
	files     map[string]string // path -> package ("" for a file no package owns)
	installed []string
	installs  [][]string // the install lists locate was given
	failWith  error
}

func (fi *fakeIncludes) locate(_ context.Context, name string, install []string) ([]HeaderFile, error) {
	if len(install) > 0 {
		fi.installs = append(fi.installs, install)
		if fi.failWith != nil {
			return nil, fi.failWith
		}
		fi.installed = append(fi.installed, install...)
	}
	var out []HeaderFile
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for p := range fi.files {
			if !yield(p) {
				return
			}
		}
	}) {
		pkg := fi.files[p]
		if !strings.HasSuffix(p, "/"+name) || pkg != "" && !slices.Contains(fi.installed, pkg) {
			continue
		}
		h := HeaderFile{Path: p}
		if pkg != "" {
			h.Packages = []string{pkg}
		}
		out = append(out, h)
	}
	return out, nil
}

// trixieIncludes are where trixie's packages put the headers of these tests.
func trixieIncludes(installed ...string) *fakeIncludes {
	return &fakeIncludes{installed: append([]string{"libc6-dev", "libx11-dev"}, installed...), files: map[string]string{
		"/usr/include/doctest/doctest.h":             "doctest-dev",
		"/usr/include/nlohmann/json.hpp":             "nlohmann-json3-dev",
		"/usr/include/nlohmann/json_fwd.hpp":         "nlohmann-json3-dev",
		"/usr/include/eigen3/Eigen/Dense":            "libeigen3-dev",
		"/usr/include/utf8cpp/utf8.h":                "libutfcpp-dev",
		"/usr/include/stb/stb_image.h":               "libstb-dev",
		"/usr/include/cxxopts.hpp":                   "libcxxopts-dev",
		"/usr/include/stdio.h":                       "libc6-dev",
		"/usr/include/riscv64-linux-gnu/sys/cdefs.h": "libc6-dev",
		"/usr/include/X11/config.h":                  "libx11-dev",
		"/usr/include/fast_float/fast_float.h":       "libfast-float-dev",
		"/usr/local/include/orphan/orphan.h":         "",
		"/usr/include/utf8proc-like/utf8.h":          "libutf8-other-dev",
		"/usr/include/doctest/parts/doctest.h":       "",
	}}
}

const arghSetup = "apt-get update && apt-get install -y build-essential cmake pkgconf"

func arghPlan(setup string) *atesor.BuildPlan {
	return &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{setup}}, {Name: "build", Commands: []string{cmakeBuild}},
		{Name: "test", Commands: []string{"ctest --test-dir build"}}}}
}

// TestHeaderDirRule runs the rule on the real log of Debian's repacked argh 1.3.2+ds
// (its tarball dropped the doctest.h its tests include by that name; doctest-dev puts it
// in /usr/include/doctest), and on compiler messages of the same shape.
func TestHeaderDirRule(t *testing.T) {
	argh := readLog(t, "headerdir-argh.log")
	arghDist := distOf(&Distribution{Package: "argh", Version: "1.3.2+ds-1", BuildDepends: []string{"cmake", "doctest-dev"}})
	tests := []struct {
		name     string
		output   string
		plan     *atesor.BuildPlan
		inc      *fakeIncludes
		dist     DistributionFunc
		tree     memTree
		setup    string   // the setup line of the new plan
		build    string   // the build line of the new plan
		installs []string // what the rule installed to look
		analysis []string
		none     string
	}{
		{name: "argh: doctest-dev from the framework table, its directory on CPATH",
			output: argh, plan: arghPlan(arghSetup), inc: trixieIncludes(), dist: arghDist,
			setup: arghSetup + " doctest-dev", build: "export CPATH=/usr/include/doctest && " + cmakeBuild, installs: []string{"doctest-dev"},
			analysis: []string{"could not find doctest.h, which is /usr/include/doctest/doctest.h (doctest-dev, a build dependency of the source in the distribution)", "CPATH"}},
		{name: "argh after the distribution's build dependencies were installed: CPATH only",
			output: argh, plan: arghPlan(arghSetup + " doctest-dev"), inc: trixieIncludes("doctest-dev"),
			setup: arghSetup + " doctest-dev", build: "export CPATH=/usr/include/doctest && " + cmakeBuild,
			analysis: []string{"(doctest-dev, the package the header is known by)"}},
		{name: "argh with no distribution counterpart: the table's package",
			output: argh, plan: arghPlan(arghSetup), inc: trixieIncludes(),
			setup: arghSetup + " doctest-dev", build: "export CPATH=/usr/include/doctest && " + cmakeBuild, installs: []string{"doctest-dev"}},
		{name: "clang's words, a header of the package map",
			output: "src/cfg.cpp:3:10: fatal error: 'json.hpp' file not found\n#include <json.hpp>\n", plan: arghPlan(arghSetup), inc: trixieIncludes(),
			setup: arghSetup + " nlohmann-json3-dev", build: "export CPATH=/usr/include/nlohmann && " + cmakeBuild, installs: []string{"nlohmann-json3-dev"}},
		{name: "an include with a path component",
			output: "/w/p/solve.cc:12:10: fatal error: Eigen/Dense: No such file or directory\n", plan: arghPlan(arghSetup), inc: trixieIncludes(),
			setup: arghSetup + " libeigen3-dev", build: "export CPATH=/usr/include/eigen3 && " + cmakeBuild, installs: []string{"libeigen3-dev"}},
		{name: "a header no table knows: the source's build dependencies",
			output: "num.cpp:2:10: fatal error: fast_float.h: No such file or directory\n", plan: arghPlan(arghSetup), inc: trixieIncludes(),
			dist:  distOf(&Distribution{Package: "p", Version: "1", BuildDepends: []string{"cmake", "libfast-float-dev"}}),
			setup: arghSetup + " libfast-float-dev", build: "export CPATH=/usr/include/fast_float && " + cmakeBuild, installs: []string{"cmake", "libfast-float-dev"}},
		{name: "two candidates: the build dependency's wins over the table's",
			output: "u.cpp:1:10: fatal error: utf8.h: No such file or directory\n", plan: arghPlan(arghSetup), inc: trixieIncludes("libutf8-other-dev"),
			dist:  distOf(&Distribution{Package: "p", Version: "1", BuildDepends: []string{"libutf8-other-dev"}}),
			setup: arghSetup + " libutf8-other-dev", build: "export CPATH=/usr/include/utf8proc-like && " + cmakeBuild},
		{name: "a package that installs the header on the default path: installed, no CPATH",
			output: "main.cpp:5:10: fatal error: cxxopts.hpp: No such file or directory\n", plan: arghPlan(arghSetup), inc: trixieIncludes(),
			dist:  distOf(&Distribution{Package: "p", Version: "1", BuildDepends: []string{"libcxxopts-dev"}}),
			setup: arghSetup + " libcxxopts-dev", build: cmakeBuild, installs: []string{"libcxxopts-dev"}, analysis: []string{"on the compiler's default path once installed"}},
		{name: "a second header joins the first on CPATH",
			output: "t.cpp:2:10: fatal error: json.hpp: No such file or directory\n",
			plan: &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{arghSetup + " doctest-dev"}},
				{Name: "build", Commands: []string{"export CPATH=/usr/include/doctest && " + cmakeBuild}}}},
			inc: trixieIncludes("doctest-dev"), setup: arghSetup + " doctest-dev nlohmann-json3-dev",
			build: "export CPATH=/usr/include/doctest:/usr/include/nlohmann && " + cmakeBuild, installs: []string{"nlohmann-json3-dev"}},
		{name: "a common name of an unrelated package is not taken",
			output: "a.c:1:10: fatal error: config.h: No such file or directory\n", plan: arghPlan(arghSetup), inc: trixieIncludes(),
			dist: distOf(&Distribution{Package: "p", Version: "1", BuildDepends: []string{"libfoo-dev"}}),
			none: "config.h is /usr/include/X11/config.h (libx11-dev), of no package the source is known to need"},
		{name: "no package known and no distribution",
			output: "a.c:1:10: fatal error: config.h: No such file or directory\n", plan: arghPlan(arghSetup), inc: trixieIncludes(),
			none: "config.h is /usr/include/X11/config.h (libx11-dev), of no package"},
		{name: "a header of no package at all",
			output: "a.c:1:10: fatal error: nothere.h: No such file or directory\n", plan: arghPlan(arghSetup), inc: trixieIncludes(),
			none: "no package is known to install nothere.h"},
		{name: "an unowned header under /usr/local is not taken",
			output: "a.c:1:10: fatal error: orphan.h: No such file or directory\n", plan: arghPlan(arghSetup), inc: trixieIncludes(),
			none: "orphan.h is /usr/local/include/orphan/orphan.h, of no package"},
		{name: "the header is on the default path already",
			output: "a.c:1:10: fatal error: stdio.h: No such file or directory\n", plan: arghPlan(arghSetup + " libc6-dev"), inc: trixieIncludes(),
			none: "on the compiler's default path"},
		{name: "a multiarch header is on the default path too",
			output: "a.c:1:10: fatal error: sys/cdefs.h: No such file or directory\n", plan: arghPlan(arghSetup + " libc6-dev"), inc: trixieIncludes(),
			none: "sys/cdefs.h is /usr/include/riscv64-linux-gnu/sys/cdefs.h, on the compiler's default path"},
		{name: "the source tree has the header",
			output: argh, plan: arghPlan(arghSetup), inc: trixieIncludes(), tree: memTree{"tests/doctest.h": ""},
			none: "the source tree has doctest.h (tests/doctest.h)"},
		{name: "the table's package does not install it",
			output: argh, plan: arghPlan(arghSetup), inc: &fakeIncludes{files: map[string]string{}},
			none: "doctest.h is nowhere below /usr/include and /usr/local/include after installing doctest-dev"},
		{name: "the install fails",
			output: argh, plan: arghPlan(arghSetup), inc: &fakeIncludes{failWith: errors.New("E: Unable to locate package doctest-dev")},
			none: "installing doctest-dev (the package the header is known by) failed: E: Unable to locate package"},
		{name: "the plan has it all already",
			output: argh, inc: trixieIncludes("doctest-dev"),
			plan: &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{arghSetup + " doctest-dev"}},
				{Name: "build", Commands: []string{"export CPATH=/usr/include/doctest && " + cmakeBuild}}}},
			none: "the plan already installs"},
		{name: "cc1 missing a source file is no include",
			output: "cc1: fatal error: main.c: No such file or directory\ncompilation terminated.\n", plan: arghPlan(arghSetup), inc: trixieIncludes(),
			none: "no missing include named"},
	}
	p := debian(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := buildlog.Extract(tt.output)
			f := Failure{Category: ev.Category(), Message: ev.Text, Output: tt.output, Phase: "build", Packaged: tt.dist != nil}
			env := Env{Platform: p, Plan: tt.plan, Files: tt.tree.files(), ReadFile: tt.tree.read, Distribution: tt.dist, Locate: tt.inc.locate}
			before := slices.Clone(tt.plan.Phases[1].Commands)
			fix, why := makeHeaderDir(context.Background(), f, env)
			if tt.none != "" {
				if fix != nil {
					t.Fatalf("fix %+v, want none", fix.Plan)
				}
				if !strings.Contains(why, tt.none) {
					t.Errorf("reason %q\nwant it to say %q", why, tt.none)
				}
				return
			}
			if fix == nil {
				t.Fatalf("no fix: %s", why)
			}
			if got := fix.Plan.Phases[0].Commands[0]; got != tt.setup {
				t.Errorf("setup line\n got %q\nwant %q", got, tt.setup)
			}
			if got := fix.Plan.Phases[1].Commands[0]; got != tt.build {
				t.Errorf("build line\n got %q\nwant %q", got, tt.build)
			}
			if len(fix.Plan.Phases) > 2 && strings.Contains(tt.build, "CPATH") && !strings.HasPrefix(fix.Plan.Phases[2].Commands[0], "export CPATH=") {
				t.Errorf("the test phase does not search the directory: %q", fix.Plan.Phases[2].Commands[0])
			}
			var installs []string
			for _, in := range tt.inc.installs {
				installs = append(installs, in...)
			}
			if !slices.Equal(installs, tt.installs) {
				t.Errorf("installed %v to look, want %v", installs, tt.installs)
			}
			for _, w := range tt.analysis {
				if !strings.Contains(fix.Analysis, w) {
					t.Errorf("analysis %q\ndoes not say %q", fix.Analysis, w)
				}
			}
			if err := check(fix, "/workspace/argh"); err != nil {
				t.Errorf("the fix fails validation: %v", err)
			}
			if !slices.Equal(tt.plan.Phases[1].Commands, before) {
				t.Error("the rule changed the caller's plan in place")
			}
			env.Plan = fix.Plan
			if again, why := makeHeaderDir(context.Background(), f, env); again != nil || !strings.Contains(why, "already") && !strings.Contains(why, "default path") {
				t.Errorf("the fixed plan gets another fix: %+v (%s)", again, why)
			}
		})
	}
}

// TestHeaderDirThroughPropose: on argh's real log, with no Contents index (the mirror's
// did not match its signed size), the missing-package rule finds no package for the
// header and this rule answers before the serial rerun and the distribution's
// configuration, which installed doctest-dev and looped on the same error.
func TestHeaderDirThroughPropose(t *testing.T) {
	out := readLog(t, "headerdir-argh.log")
	ev := buildlog.Extract(out)
	f := Failure{Category: ev.Category(), Message: ev.Text, Output: out, Phase: "build", Packaged: true}
	claims := Claims(Failure{Category: f.Category, Message: f.Message, Phase: "build", Packaged: true}, nil)
	if i, j := slices.Index(claims, headerDirRuleName), slices.Index(claims, distRuleName); i < 0 || j < 0 || i > j {
		t.Fatalf("Claims = %v, want %s before %s", claims, headerDirRuleName, distRuleName)
	}
	inc := trixieIncludes()
	env := Env{Platform: debian(t), Plan: arghPlan(arghSetup), Locate: inc.locate,
		Distribution: distOf(&Distribution{Package: "argh", Version: "1.3.2+ds-1", BuildDepends: []string{"cmake", "doctest-dev"}})}
	fix, notes := Propose(context.Background(), f, env, nil)
	if fix == nil || fix.Rule != headerDirRuleName {
		t.Fatalf("Propose = %+v, notes %v", fix, notes)
	}
	if fix.Strategy != "install doctest-dev and add /usr/include/doctest to CPATH" {
		t.Errorf("strategy %q", fix.Strategy)
	}
	if err := validate.BuildPlan(fix.Plan); err != nil {
		t.Errorf("the new plan fails the scout's rules: %v", err)
	}
}

func TestMissingIncludes(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"/w/a.cpp:4:10: fatal error: doctest.h: No such file or directory", []string{"doctest.h"}},
		{"a.c:4: fatal error: sys/x.h: No such file or directory", []string{"sys/x.h"}},
		{"a.cpp:1:10: fatal error: 'catch2/catch.hpp' file not found", []string{"catch2/catch.hpp"}},
		{"a.c:1:2: fatal error: b.h: No such file or directory\nc.c:1:2: fatal error: a.h: No such file or directory\n" +
			"d.c:1:2: fatal error: b.h: No such file or directory", []string{"b.h", "a.h"}},
		{"a.c:1:2: fatal error: ../up.h: No such file or directory", nil},
		{"a.c:1:2: fatal error: .hidden/x.h: No such file or directory", nil},
		{"cc1plus: fatal error: src/main.cpp: No such file or directory", nil},
		{"a.c:1:2: fatal error: 'x.h;rm' file not found", nil},
	}
	for _, tt := range tests {
		if got := missingIncludes(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("missingIncludes(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestWithIncludeDirs: every line that compiles gets the directory, install lines not.
func TestWithIncludeDirs(t *testing.T) {
	plan := atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: "setup", Commands: []string{arghSetup}},
		{Name: "configure", Commands: []string{"./configure --prefix=/usr"}},
		{Name: "build", Commands: []string{"export CPATH=/usr/include/a && make -j2", "make -C tests"}},
		{Name: "test", Commands: []string{"make check"}},
	}}
	got := withIncludeDirs(plan, "apt-get install -y", []string{"/usr/include/a", "/usr/include/b"})
	want := [][]string{{arghSetup}, {"export CPATH=/usr/include/a:/usr/include/b && ./configure --prefix=/usr"},
		{"export CPATH=/usr/include/a:/usr/include/b && make -j2", "export CPATH=/usr/include/a:/usr/include/b && make -C tests"},
		{"export CPATH=/usr/include/a:/usr/include/b && make check"}}
	for i, ph := range got.Phases {
		if !slices.Equal(ph.Commands, want[i]) {
			t.Errorf("phase %s: %q, want %q", ph.Name, ph.Commands, want[i])
		}
	}
	if plan.Phases[2].Commands[0] != "export CPATH=/usr/include/a && make -j2" {
		t.Error("the caller's plan was changed")
	}
}

func TestPlanIncludePath(t *testing.T) {
	plan := &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{arghSetup}},
		{Name: "build", Commands: []string{"export CPATH=/usr/include/a:/usr/include/b && make", "export CPATH=/usr/include/b:/usr/include/c && make -C t"}},
		{Name: "test", Commands: []string{"CPATH=/x make check", "make install; export CPATH=/y && make"}}}}
	if got := PlanIncludePath(plan); got != "/usr/include/a:/usr/include/b:/usr/include/c" {
		t.Errorf("PlanIncludePath = %q", got)
	}
	if got := PlanIncludePath(arghPlan(arghSetup)); got != "" {
		t.Errorf("a plan without CPATH: %q", got)
	}
	if got := PlanIncludePath(nil); got != "" {
		t.Errorf("no plan: %q", got)
	}
}

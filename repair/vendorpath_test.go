package repair

import (
	"context"
	"slices"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/buildlog"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// vendorTree is a repacked tree whose include/lib/external lost its bundled rapidjson
// but kept the project's other bundled file.
var vendorTree = memTree{"include/lib/archives/json.hpp": "", "include/lib/external/base64.hpp": "", "CMakeLists.txt": ""}

// vendorIncludes are the sandbox's include directories with rapidjson-dev's files.
func vendorIncludes(installed ...string) *fakeIncludes {
	fi := trixieIncludes(installed...)
	fi.files["/usr/include/rapidjson/prettywriter.h"] = "rapidjson-dev"
	fi.files["/usr/include/rapidjson/error/en.h"] = "rapidjson-dev"
	fi.files["/usr/include/other/rapidjson/prettywriter.h"] = "libother-dev"
	return fi
}

func TestSplitVendored(t *testing.T) {
	tests := []struct {
		name string
		want vendoredPath
		ok   bool
	}{
		{"lib/external/rapidjson/prettywriter.h", vendoredPath{"lib/external", "rapidjson", "prettywriter.h"}, true},
		{"third_party/fmt/core.h", vendoredPath{"third_party", "fmt", "core.h"}, true},
		{"a/3rdparty/zlib/contrib/minizip/unzip.h", vendoredPath{"a/3rdparty/zlib/contrib", "minizip", "unzip.h"}, true},
		{"deps/rapidjson/error/en.h", vendoredPath{"deps", "rapidjson", "error/en.h"}, true},
		{"external/prettywriter.h", vendoredPath{}, false},
		{"lib/external/rapidjson", vendoredPath{}, false},
		{"rapidjson/prettywriter.h", vendoredPath{}, false},
		{"../external/rapidjson/x.h", vendoredPath{}, false},
		{"/usr/include/external/rapidjson/x.h", vendoredPath{}, false},
		{"external/../../etc/passwd", vendoredPath{}, false},
		{"external/.hidden/x.h", vendoredPath{}, false},
		{"external/rapidjson/" + strings.Repeat("a", 200) + ".h", vendoredPath{}, false},
	}
	for _, tt := range tests {
		got, ok := splitVendored(tt.name)
		if got != tt.want || ok != tt.ok {
			t.Errorf("splitVendored(%q) = %+v, %v; want %+v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// TestVendorLink runs header-subdir on the real log of a Debian repack whose tarball
// removed the bundled rapidjson its headers include by the bundled path, with a fake
// sandbox search.
func TestVendorLink(t *testing.T) {
	log := strings.ReplaceAll(readLog(t, "vendorpath-cereal.log"), "cereal", "lib")
	const link = "rmdir include/lib/external/rapidjson 2>/dev/null; mkdir -p include/lib/external && ln -sfn /usr/include/rapidjson include/lib/external/rapidjson"
	withDep := distOf(&Distribution{Package: "p", Version: "1+dfsg-1", BuildDepends: []string{"cmake", "rapidjson-dev"}})
	tests := []struct {
		name     string
		output   string
		plan     *atesor.BuildPlan
		inc      *fakeIncludes
		dist     DistributionFunc
		tree     memTree
		setup    []string
		installs []string
		none     string
	}{
		{name: "the build dependency installed, the bundled directory linked to it",
			output: log, plan: arghPlan(arghSetup), inc: vendorIncludes(), dist: withDep, tree: vendorTree,
			setup: []string{arghSetup + " rapidjson-dev", link}, installs: []string{"cmake", "rapidjson-dev"}},
		{name: "the package installed already: only the link",
			output: log, plan: arghPlan(arghSetup + " rapidjson-dev"), inc: vendorIncludes("rapidjson-dev"), dist: withDep, tree: vendorTree,
			setup: []string{arghSetup + " rapidjson-dev", link}},
		{name: "the whole vendored directory stripped: its parent holds it",
			output: log, plan: arghPlan(arghSetup), inc: vendorIncludes(), dist: withDep, tree: memTree{"include/lib/archives/json.hpp": ""},
			setup: []string{arghSetup + " rapidjson-dev", link}},
		{name: "a file below the project's directory",
			output: "src/a.cpp:3:10: fatal error: lib/external/rapidjson/error/en.h: No such file or directory\n",
			plan:   arghPlan(arghSetup), inc: vendorIncludes(), dist: withDep, tree: vendorTree,
			setup: []string{arghSetup + " rapidjson-dev", link}},
		{name: "the link is there already",
			output: log, plan: &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{arghSetup + " rapidjson-dev", link}},
				{Name: "build", Commands: []string{cmakeBuild}}}},
			inc: vendorIncludes("rapidjson-dev"), dist: withDep, tree: vendorTree, none: "the plan already installs"},
		{name: "the bundled copy still has files: not replaced",
			output: log, plan: arghPlan(arghSetup), inc: vendorIncludes(), dist: withDep,
			tree: memTree{"include/lib/external/base64.hpp": "", "include/lib/external/rapidjson/reader.h": ""},
			none: "still holds files (include/lib/external/rapidjson/reader.h)"},
		{name: "no package the source needs has it",
			output: log, plan: arghPlan(arghSetup), inc: vendorIncludes("libother-dev"), tree: vendorTree,
			dist: distOf(&Distribution{Package: "p", Version: "1", BuildDepends: []string{"cmake"}}),
			none: "rapidjson/prettywriter.h is /usr/include/other/rapidjson/prettywriter.h (libother-dev), of no package"},
		{name: "no home for the vendored directory in the tree",
			output: log, plan: arghPlan(arghSetup), inc: vendorIncludes(), dist: withDep, tree: memTree{"src/main.cpp": ""},
			none: "the source tree has no directory lib/external"},
		{name: "two homes are ambiguous",
			output: log, plan: arghPlan(arghSetup), inc: vendorIncludes(), dist: withDep,
			tree: memTree{"a/lib/external/x.h": "", "b/lib/external/y.h": ""},
			none: "several directories lib/external (a/lib/external, b/lib/external)"},
		{name: "a home a command line would need to quote",
			output: log, plan: arghPlan(arghSetup), inc: vendorIncludes(), dist: withDep,
			tree: memTree{"we ird/lib/external/x.h": ""}, none: "a path a command line would need to quote"},
		{name: "a hostile include with .. is not taken",
			output: "a.cpp:1:10: fatal error: lib/external/../../../../usr/include/rapidjson/prettywriter.h: No such file or directory\n",
			plan:   arghPlan(arghSetup), inc: vendorIncludes(), dist: withDep, tree: vendorTree, none: "no missing include named"},
		{name: "a hostile absolute include is not taken",
			output: "a.cpp:1:10: fatal error: /etc/external/rapidjson/prettywriter.h: No such file or directory\n",
			plan:   arghPlan(arghSetup), inc: vendorIncludes(), dist: withDep, tree: vendorTree, none: "no missing include named"},
		{name: "a hostile long include is not taken",
			output: "a.cpp:1:10: fatal error: lib/external/rapidjson/" + strings.Repeat("x", 300) + ".h: No such file or directory\n",
			plan:   arghPlan(arghSetup), inc: vendorIncludes(), dist: withDep, tree: vendorTree, none: "is nowhere below"},
		{name: "a hostile include with shell characters is not taken",
			output: "a.cpp:1:10: fatal error: lib/external/$(id)/x.h: No such file or directory\n",
			plan:   arghPlan(arghSetup), inc: vendorIncludes(), dist: withDep, tree: vendorTree, none: "no missing include named"},
	}
	p := debian(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := buildlog.Extract(tt.output)
			f := Failure{Category: ev.Category(), Message: ev.Text, Output: tt.output, Phase: "build", Packaged: tt.dist != nil}
			env := Env{Platform: p, Plan: tt.plan, Files: tt.tree.files(), ReadFile: tt.tree.read, Distribution: tt.dist, Locate: tt.inc.locate}
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
			if got := fix.Plan.Phases[0].Commands; !slices.Equal(got, tt.setup) {
				t.Errorf("setup phase\n got %q\nwant %q", got, tt.setup)
			}
			if got := fix.Plan.Phases[1].Commands[0]; got != cmakeBuild {
				t.Errorf("build line %q, want it unchanged (no CPATH for a linked copy)", got)
			}
			if tt.installs != nil && !slices.ContainsFunc(tt.inc.installs, func(i []string) bool { return slices.Equal(i, tt.installs) }) {
				t.Errorf("installed %q to look, want %q", tt.inc.installs, tt.installs)
			}
			for _, w := range []string{"include/lib/external/rapidjson to /usr/include/rapidjson", "rapidjson-dev"} {
				if !strings.Contains(fix.Strategy+fix.Analysis, w) {
					t.Errorf("strategy %q, analysis %q: want %q", fix.Strategy, fix.Analysis, w)
				}
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the fixed plan does not validate: %v", err)
			}
		})
	}
}

// TestVendorLinkPlanWithoutInstall: a plan with no install line gains a setup phase
// that makes the link.
func TestVendorLinkPlanWithoutInstall(t *testing.T) {
	plan := atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: []string{cmakeBuild}}}}
	l := vendorLink{tree: "include/lib/external/rapidjson", system: "/usr/include/rapidjson"}
	got := withVendorLinks(plan, "apt-get install -y", []vendorLink{l, l})
	if len(got.Phases) != 2 || got.Phases[0].Name != "setup" || !slices.Equal(got.Phases[0].Commands, []string{l.line()}) {
		t.Fatalf("phases %+v", got.Phases)
	}
	if again := withVendorLinks(got, "apt-get install -y", []vendorLink{l}); !samePlan(again, got) {
		t.Errorf("the link was added twice: %+v", again.Phases)
	}
}

// FuzzVendorLink feeds compiler logs and tree paths to the vendored-copy search: any
// link it makes is inside the repository, points below an include root, and its line
// passes the plan's validation.
func FuzzVendorLink(f *testing.F) {
	f.Add(readLog(f, "vendorpath-cereal.log"), "include/lib/external/base64.hpp")
	f.Add("a.c:1:10: fatal error: x/third_party/zlib/zlib.h: No such file or directory\n", "x/third_party/README")
	f.Add("a.c:1:10: fatal error: external/../rapidjson/x.h: No such file or directory\n", "../external/x")
	f.Fuzz(func(t *testing.T, log, file string) {
		if len(log) > 1<<14 {
			return
		}
		inc := &fakeIncludes{files: map[string]string{}}
		for _, name := range missingIncludes(log) {
			if v, ok := splitVendored(name); ok {
				inc.files["/usr/include/"+v.dir+"/"+v.file] = "rapidjson-dev"
			}
		}
		s := &headerSearch{env: Env{Files: []string{file}, Locate: inc.locate,
			Distribution: distOf(&Distribution{Package: "p", Version: "1", BuildDepends: []string{"rapidjson-dev"}})}}
		for _, name := range missingIncludes(log) {
			l, _, _ := s.vendorLink(context.Background(), name)
			if l == nil {
				continue
			}
			if strings.HasPrefix(l.tree, "/") || slices.Contains(strings.Split(l.tree, "/"), "..") || !strings.HasPrefix(l.system, "/usr/include/") {
				t.Fatalf("link %q -> %q", l.tree, l.system)
			}
			if err := validate.PlanLine(l.line()); err != nil {
				t.Fatalf("link line %q: %v", l.line(), err)
			}
		}
	})
}

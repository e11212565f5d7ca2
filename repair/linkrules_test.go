package repair

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/buildlog"
)

const wrapped = "-Wl,--push-state,--no-as-needed,-latomic,--pop-state"

// TestLinkRules runs the libatomic and Go sanitizer rules on real riscv64 build output,
// through Propose as the graph does, with the plan of each build system: before is the
// failing log, after the fix's plan line and actions, which pass the validation a
// model's fix passes.
func TestLinkRules(t *testing.T) {
	p := debian(t)
	raceMakefile := "RACE ?= -race\n\nbuild:\n\tgo build $(RACE) -o bin/raceprobe .\n\ntest:\n\tgo test -race ./...\n"
	tests := []struct {
		name     string
		log      string
		build    string // the plan's build phase
		tree     memTree
		rule     string
		planLine string   // the build phase after the fix; "" when the plan is not changed
		actions  []string // "patch FILE" for each edit
		strategy string   // a part of the fix's strategy
	}{
		{name: "CMake shared library with 16-byte atomics", log: "libatomic-cmake.log",
			build: "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)", rule: "libatomic",
			planLine: "cmake -DCMAKE_EXE_LINKER_FLAGS=" + wrapped + " -DCMAKE_SHARED_LINKER_FLAGS=" + wrapped + " -DCMAKE_MODULE_LINKER_FLAGS=" + wrapped +
				" -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)",
			strategy: "CMAKE_EXE_LINKER_FLAGS"},
		{name: "autotools, sub-word atomics", log: "libatomic-subword.log", build: "./configure && make -j$(nproc)", rule: "libatomic",
			planLine: "LIBS=-latomic ./configure && make -j$(nproc)", strategy: "LIBS at configure time"},
		{name: "autotools with LIBS already set", log: "libatomic-subword.log", build: "LIBS=-lm ./configure && make", rule: "libatomic",
			planLine: "LIBS='-lm -latomic' ./configure && make"},
		{name: "meson C++ project", log: "libatomic-generic-cxx.log", build: "meson setup builddir && ninja -C builddir",
			tree: memTree{"meson.build": "project('pairs', 'cpp', version: '1.0')\n"}, rule: "libatomic",
			planLine: "meson setup -Dc_link_args=" + wrapped + " -Dcpp_link_args=" + wrapped + " builddir && ninja -C builddir"},
		{name: "meson C project", log: "libatomic-meson.log", build: "meson setup builddir && ninja -C builddir",
			tree: memTree{"meson.build": "project('big', 'c')\n"}, rule: "libatomic",
			planLine: "meson setup -Dc_link_args=" + wrapped + " builddir && ninja -C builddir"},
		{name: "meson C project linking another library already", log: "libatomic-meson.log",
			build: "meson setup -Dc_link_args=-lpolylib64 builddir && ninja -C builddir", tree: memTree{"meson.build": "project('big', 'c')\n"}, rule: "libatomic",
			planLine: "meson setup -Dc_link_args='-lpolylib64 " + wrapped + "' builddir && ninja -C builddir"},
		{name: "plain make, built-in link rule", log: "libatomic-generic-cxx.log", build: "make -j$(nproc)",
			tree: memTree{"Makefile": "all: agen\nagen: agen.o\n"}, rule: "libatomic", planLine: "LDLIBS=-latomic make -j$(nproc)"},
		{name: "plain make assigning LIBS", log: "libatomic-subword.log", build: "make -j$(nproc)",
			tree: memTree{"Makefile": "LIBS = -lpthread\nprog: a1.o\n\t$(CC) -o $@ $^ $(LIBS)\n"}, rule: "libatomic",
			planLine: "make LIBS='-lpthread -latomic' -j$(nproc)", strategy: "the Makefile's value"},
		{name: "CMake, lld", log: "libatomic-lld.log", build: "cmake -S . -B build && cmake --build build", rule: "libatomic",
			planLine: "cmake -DCMAKE_EXE_LINKER_FLAGS=" + wrapped + " -DCMAKE_SHARED_LINKER_FLAGS=" + wrapped + " -DCMAKE_MODULE_LINKER_FLAGS=" + wrapped +
				" -S . -B build && cmake --build build"},
		{name: "CMake with linker flags of its own, mold", log: "libatomic-mold.log",
			build: "cmake -S . -B build -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=mold && cmake --build build", rule: "libatomic",
			planLine: "cmake -DCMAKE_SHARED_LINKER_FLAGS=" + wrapped + " -DCMAKE_MODULE_LINKER_FLAGS=" + wrapped +
				" -S . -B build -DCMAKE_EXE_LINKER_FLAGS='-fuse-ld=mold " + wrapped + "' && cmake --build build"},
		{name: "autotools, clang++", log: "libatomic-clang.log", build: "CXX=clang++ ./configure && make", rule: "libatomic",
			planLine: "CXX=clang++ LIBS=-latomic ./configure && make"},
		{name: "plain make reading LDFLAGS", log: "libatomic-subword.log", build: "make",
			tree: memTree{"Makefile": "prog: a1.o\n\t$(CC) $(LDFLAGS) -o $@ $^\n"}, rule: "libatomic", planLine: "LDFLAGS=" + wrapped + " make"},
		{name: "make runs go build with cgo", log: "libatomic-cgo.log", build: "make -j$(nproc)",
			tree: memTree{"Makefile": "all:\n\tgo build -o bin/ .\n"}, rule: "libatomic",
			planLine: "CGO_LDFLAGS='-g -O2 " + wrapped + "' make -j$(nproc)", strategy: "CGO_LDFLAGS in make's environment"},
		{name: "go build with cgo", log: "libatomic-cgo.log", build: "GOTOOLCHAIN=auto go build -buildvcs=false ./... && GOTOOLCHAIN=auto go test -buildvcs=false -c -o bin/ ./...",
			rule: "libatomic", planLine: "GOTOOLCHAIN=auto CGO_LDFLAGS='-g -O2 " + wrapped + "' go build -buildvcs=false ./... && GOTOOLCHAIN=auto CGO_LDFLAGS='-g -O2 " + wrapped + "' go test -buildvcs=false -c -o bin/ ./..."},
		{name: "make runs go build -race (Makefile variable)", log: "go-race-make.log", build: "make -j$(nproc)",
			tree: memTree{"Makefile": raceMakefile, "main.go": "package main\n"}, rule: "go-no-race",
			planLine: "make RACE= -j$(nproc)", actions: []string{"patch Makefile"}, strategy: "set RACE= on make's command line"},
		{name: "go test -race in the plan", log: "go-test-race.log", build: "go build ./... && go test -race -c -o bin/ ./...", rule: "go-no-race",
			planLine: "go build ./... && go test -c -o bin/ ./...", strategy: "drop -race from the plan's go commands"},
		{name: "GOFLAGS=-msan in the plan", log: "go-msan.log", build: "GOFLAGS=-msan go build -o bin/ .", rule: "go-no-race",
			planLine: "GOFLAGS= go build -o bin/ ."},
		{name: "-race in a build script", log: "go-race-make.log", build: "sh build.sh",
			tree: memTree{"build.sh": "#!/bin/sh\nset -e\ngo build -race -o bin/raceprobe .\n"}, rule: "go-no-race",
			actions: []string{"patch build.sh"}, strategy: "remove -race from build.sh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := readLog(t, tt.log)
			plan := defaultPlan(tt.build)
			f := Failure{Category: atesor.ClassifyError(out), Message: out, Phase: "build", Command: tt.build}
			env := Env{Platform: p, Plan: plan}
			if tt.tree != nil {
				env.Files, env.ReadFile = tt.tree.files(), tt.tree.read
			}
			if claims := Claims(f, nil); !slices.Contains(claims, tt.rule) {
				t.Fatalf("Claims = %v, want %s among them", claims, tt.rule)
			}
			fix, notes := Propose(context.Background(), f, env, nil)
			if fix == nil || fix.Rule != tt.rule {
				t.Fatalf("fix %+v, want one by %s (notes %v)", fix, tt.rule, notes)
			}
			var got []string
			for _, a := range fix.Actions {
				got = append(got, "patch "+a.File)
			}
			if d := cmp.Diff(tt.actions, got); d != "" {
				t.Errorf("actions (-want +got):\n%s", d)
			}
			if err := check(fix, "/workspace/pkg"); err != nil {
				t.Errorf("the fix fails the validation of a model's fix: %v", err)
			}
			if tt.planLine == "" {
				if fix.Plan != nil {
					t.Errorf("the fix changed the plan: %q", fix.Plan.Phases[1].Commands[0])
				}
			} else {
				if fix.Plan == nil {
					t.Fatal("no new plan")
				}
				if got := fix.Plan.Phases[1].Commands[0]; got != tt.planLine {
					t.Errorf("build phase\n got %q\nwant %q", got, tt.planLine)
				}
				if plan.Phases[1].Commands[0] != tt.build {
					t.Error("the rule changed the caller's plan in place")
				}
			}
			if !strings.Contains(fix.Strategy, tt.strategy) {
				t.Errorf("strategy %q, want it to say %q", fix.Strategy, tt.strategy)
			}
			// The rule answers an error once: with the fix in the plan it makes none.
			if fix.Plan != nil {
				env.Plan = fix.Plan
				if again, _ := Propose(context.Background(), f, env, nil); again != nil && again.Rule == tt.rule && again.Plan != nil &&
					again.Plan.Phases[1].Commands[0] != fix.Plan.Phases[1].Commands[0] {
					t.Errorf("%s changed its own fix again: %q", tt.rule, again.Plan.Phases[1].Commands[0])
				}
			}
		})
	}
}

// The race fix patches the test recipe's literal -race and leaves the overridden
// variable's line alone.
func TestGoRaceMakefilePatch(t *testing.T) {
	tree := memTree{"Makefile": "RACE ?= -race\n\nbuild:\n\tgo build $(RACE) -o bin/raceprobe .\n\ntest:\n\tgo test -race ./...\n"}
	f := Failure{Category: atesor.CategoryUnknown, Message: readLog(t, "go-race-make.log"), Phase: "build", Command: "make"}
	fix, notes := Propose(context.Background(), f, Env{Platform: debian(t), Plan: defaultPlan("make"), Files: tree.files(), ReadFile: tree.read}, nil)
	if fix == nil || len(fix.Actions) != 1 {
		t.Fatalf("fix %+v, notes %v", fix, notes)
	}
	want := "--- a/Makefile\n+++ b/Makefile\n@@ -7 +7 @@\n-\tgo test -race ./...\n+\tgo test ./...\n"
	if d := cmp.Diff(want, fix.Actions[0].Diff); d != "" {
		t.Errorf("diff (-want +got):\n%s", d)
	}
}

// A failure the rules do not cover gets no fix from them: an undefined reference to a
// package's own function is not libatomic's, and a go build failing for another reason
// is not a sanitizer's.
func TestLinkRulesIgnoreOtherFailures(t *testing.T) {
	other := []struct{ name, text string }{
		{"undefined function", "/usr/bin/ld: main.o: in function `main':\nmain.c:(.text+0x1c): undefined reference to `deflate'\ncollect2: error: ld returned 1 exit status\n"},
		{"missing library", readLog(t, "missing-lib.log")},
		{"go assembly gap", readLog(t, "go-missing-body.log")},
		{"race elsewhere", "make: *** [Makefile:4: race] Error 2\n"},
		{"sanitizer on amd64", "-race is not supported on linux/s390"},
	}
	for _, o := range other {
		f := Failure{Category: atesor.ClassifyError(o.text), Message: o.text, Phase: "build", Command: "make"}
		for _, c := range Claims(f, nil) {
			if c == "libatomic" || c == "go-no-race" {
				t.Errorf("%s: claimed by %s", o.name, c)
			}
		}
	}
	// The claim holds up only when the plan has somewhere to put the fix.
	f := Failure{Category: atesor.CategoryLinking, Message: readLog(t, "libatomic-cmake.log"), Phase: "build"}
	cases := []struct {
		name string
		plan *atesor.BuildPlan
		why  string
	}{
		{"no plan", nil, "no build plan"},
		{"already linked", defaultPlan("LIBS=-latomic ./configure && make"), "already links libatomic"},
		{"no build command", defaultPlan("./build.sh"), "no configure, cmake, meson, go or make command"},
	}
	for _, c := range cases {
		fix, why := makeAtomics(context.Background(), f, Env{Platform: debian(t), Plan: c.plan})
		if fix != nil || !strings.Contains(why, c.why) {
			t.Errorf("%s: fix %+v, why %q; want none because %q", c.name, fix, why, c.why)
		}
	}
	rf := Failure{Message: readLog(t, "go-test-race.log"), Phase: "build"}
	if fix, why := makeGoSanitizer(context.Background(), rf, Env{Plan: defaultPlan("go build ./...")}); fix != nil || why == "" {
		t.Errorf("no -race anywhere: fix %+v, why %q", fix, why)
	}
}

// The supervisor decides from the extracted error alone whether an offline run has a
// fixer left: both rules claim their failures from it.
func TestLinkRulesClaimExtractedError(t *testing.T) {
	for log, rule := range map[string]string{"libatomic-cmake.log": "libatomic", "libatomic-subword.log": "libatomic",
		"libatomic-lld.log": "libatomic", "libatomic-mold.log": "libatomic", "libatomic-clang.log": "libatomic", "libatomic-cgo.log": "libatomic", "libatomic-meson.log": "libatomic",
		"go-race-make.log": "go-no-race", "go-msan.log": "go-no-race"} {
		ev := buildlog.Extract(readLog(t, log))
		f := Failure{Category: ev.Category(), Message: ev.Text}
		if claims := Claims(f, nil); !slices.Contains(claims, rule) {
			t.Errorf("%s: Claims(%q) = %v, want %s", log, ev.Text, claims, rule)
		}
	}
}

func TestAtomicLibcalls(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{readLog(t, "libatomic-cmake.log"), []string{"__atomic_compare_exchange_16", "__atomic_load_16", "__atomic_store_16"}},
		{readLog(t, "libatomic-subword.log"), []string{"__atomic_compare_exchange_1", "__atomic_compare_exchange_2", "__atomic_fetch_add_1", "__atomic_exchange_2"}},
		{readLog(t, "libatomic-generic-cxx.log"), []string{"__atomic_store", "__atomic_load", "__atomic_compare_exchange_16", "__atomic_load_16"}},
		// lld and mold (gcc -fuse-ld=), clang++ (generic compare-exchange), gold, the
		// dynamic loader.
		{readLog(t, "libatomic-lld.log"), []string{"__atomic_compare_exchange_16", "__atomic_load_16"}},
		{readLog(t, "libatomic-mold.log"), []string{"__atomic_load_16", "__atomic_compare_exchange_16"}},
		{readLog(t, "libatomic-clang.log"), []string{"__atomic_compare_exchange", "__atomic_load_16"}},
		{readLog(t, "libatomic-cgo.log"), []string{"__atomic_load_16", "__atomic_compare_exchange_16"}},
		{"a.c:3: error: undefined reference to '__atomic_fetch_or_2'", []string{"__atomic_fetch_or_2"}},
		{"./prog: symbol lookup error: ./libq.so: undefined symbol: __atomic_exchange_16", []string{"__atomic_exchange_16"}},
		{"undefined reference to `__atomic_thing_in_a_comment", []string{"__atomic_thing_in_a_comment"}},
		{"undefined reference to `atomic_load'", nil},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, AtomicLibcalls(tt.text)); d != "" {
			t.Errorf("AtomicLibcalls(%.50q) (-want +got):\n%s", tt.text, d)
		}
	}
}

func TestDropGoSanitizers(t *testing.T) {
	tests := []struct {
		in, want string
		flags    []string
		dropped  []string
	}{
		{"go test -race ./...", "go test ./...", nil, []string{"-race"}},
		{"go build -race -msan -o x .", "go build -o x .", nil, []string{"-race", "-msan"}},
		{"GOFLAGS=-race go build", "GOFLAGS= go build", nil, []string{"-race"}},
		{`GOFLAGS="-race -v" go test`, `GOFLAGS="-v" go test`, nil, []string{"-race"}},
		{"RACE ?= -race", "RACE ?=", nil, []string{"-race"}},
		{"go test -race=true ./...", "go test ./...", nil, []string{"-race"}},
		{"go build -asan -race .", "go build -race .", []string{"asan"}, []string{"-asan"}},
		{"go build -asan -race .", "go build -asan .", nil, []string{"-race"}}, // -asan builds on linux/riscv64
		{"go test -racecheck ./...", "go test -racecheck ./...", nil, nil},
		{"./bin/prog --trace", "./bin/prog --trace", nil, nil},
	}
	for _, tt := range tests {
		got, dropped := DropGoSanitizers(tt.in, tt.flags)
		if got != tt.want || !slices.Equal(dropped, tt.dropped) {
			t.Errorf("DropGoSanitizers(%q) = %q, %v; want %q, %v", tt.in, got, dropped, tt.want, tt.dropped)
		}
	}
}

// FuzzLinkRules checks that any build output or build file parses without a panic,
// that every libcall found is in the text, and that dropping flags only removes text.
func FuzzLinkRules(f *testing.F) {
	for _, n := range []string{"libatomic-cmake.log", "libatomic-subword.log", "go-race-make.log"} {
		f.Add(readLog(f, n))
	}
	f.Add("RACE ?= -race\nGOFLAGS := -v -race\nbuild:\n\tgo build $(RACE) .\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, c := range AtomicLibcalls(text) {
			if !strings.Contains(text, c) {
				t.Errorf("found %q, not in the text", c)
			}
		}
		out, dropped := DropGoSanitizers(text, nil)
		if len(out) > len(text) || (len(dropped) == 0 && out != text) {
			t.Errorf("DropGoSanitizers(%q) = %q, %v", text, out, dropped)
		}
		for _, o := range makeVarOverrides(text, []string{"race", "msan", "asan"}) {
			if !strings.Contains(o, "=") {
				t.Errorf("override %q is not NAME=value", o)
			}
		}
		_ = goSanitizerNames(text)
	})
}

// A missing program the profile's package map knows is installed when the Contents
// index cannot be read (dos2unix's msgfmt in the corpus, where the mirror's Contents
// file did not match its signed InRelease); a program it does not know gets a note that
// names the index's failure.
func TestMissingProgramWithoutIndex(t *testing.T) {
	broken := &Index{Load: func(context.Context, atesor.Platform) (*Contents, error) {
		return nil, errors.New("Contents-riscv64.gz is larger than the signed index lists")
	}}
	p := debian(t)
	finder := broken.Finder(context.Background(), p, IndexSource{}, func(error) {})
	out := readLog(t, "missing-msgfmt.log")
	f := Failure{Category: atesor.ClassifyError(out), Message: out, Phase: "build", Command: "make -j$(nproc)"}
	for _, env := range []Env{{Platform: p, Plan: defaultPlan("make -j$(nproc)"), Packages: finder}, {Platform: p, Plan: defaultPlan("make -j$(nproc)")}} {
		fix, notes := Propose(context.Background(), f, env, nil)
		if fix == nil || fix.Rule != "missing-package" || len(fix.Actions) != 1 || fix.Actions[0].Command != "apt-get install -y gettext" {
			t.Fatalf("fix %+v, notes %v", fix, notes)
		}
		if !strings.Contains(fix.Analysis, "profile's package map") {
			t.Errorf("analysis %q does not say where the package came from", fix.Analysis)
		}
		if env.Packages != nil && !strings.Contains(fix.Analysis, "could not be read") {
			t.Errorf("analysis %q does not say the index could not be read", fix.Analysis)
		}
	}
	// bc's build runs ed from a script: "line 1: ed: command not found".
	ed := readLog(t, "missing-ed.log")
	e := Failure{Category: atesor.ClassifyError(ed), Message: ed, Phase: "build", Command: "make -j$(nproc)"}
	if fix, notes := Propose(context.Background(), e, Env{Platform: p, Plan: defaultPlan("make -j$(nproc)"), Packages: finder}, nil); fix == nil ||
		fix.Rule != "missing-package" || len(fix.Actions) != 1 || fix.Actions[0].Command != "apt-get install -y ed" {
		t.Errorf("bc's ed: fix %+v, notes %v", fix, notes)
	}
	unknown := "make: frobnicate: No such file or directory\nmake: *** [Makefile:3: all] Error 127\n"
	g := Failure{Category: atesor.ClassifyError(unknown), Message: unknown, Phase: "build", Command: "make"}
	fix, why := makeMissingPackage(context.Background(), g, Env{Platform: p, Packages: finder})
	if fix != nil || !strings.Contains(why, "could not be read") || !strings.Contains(why, "frobnicate") {
		t.Errorf("unknown program: fix %+v, why %q", fix, why)
	}
}

// noProviders is a Contents index that lists no file.
type noProviders struct{}

func (noProviders) Providers(FileKind, string) []string { return nil }

// With no Contents index to read, a program the map does not know is looked for in the
// package of its own name, taken only when that package's file list has it in a bin
// directory; a readable index that does not list it is the answer, not a guess.
func TestMissingProgramSameNamePackage(t *testing.T) {
	broken := &Index{Load: func(context.Context, atesor.Platform) (*Contents, error) {
		return nil, errors.New("Contents-riscv64.gz is larger than the signed index lists")
	}}
	p := debian(t)
	unreadable := broken.Finder(context.Background(), p, IndexSource{}, func(error) {})
	out := "make: frobnicate: No such file or directory\nmake: *** [Makefile:3: all] Error 127\n"
	// The message and the output both name it: one note, one package.
	f := Failure{Category: atesor.ClassifyError(out), Message: out, Output: out, Phase: "build", Command: "make"}
	lists := func(files map[string][]string) PackageFilesFunc {
		return func(_ context.Context, pkg string) ([]string, error) {
			l, ok := files[pkg]
			if !ok {
				return nil, errors.New("E: Unable to locate package " + pkg)
			}
			return l, nil
		}
	}
	tests := []struct {
		name     string
		packages PackageFinder
		files    map[string][]string
		none     string
	}{
		{name: "the package of that name installs it", packages: unreadable, files: map[string][]string{"frobnicate": {"/usr", "/usr/bin", "/usr/bin/frobnicate"}}},
		{name: "no index at all", files: map[string][]string{"frobnicate": {"/usr/sbin/frobnicate"}}},
		{name: "the package of that name ships something else", packages: unreadable, files: map[string][]string{"frobnicate": {"/usr/share/doc/frobnicate/README"}},
			none: "could not be read"},
		{name: "no package of that name", packages: unreadable, files: map[string][]string{}, none: "could not be read"},
		{name: "a readable index that lists no provider", packages: noProviders{}, files: map[string][]string{"frobnicate": {"/usr/bin/frobnicate"}},
			none: "no package provides program frobnicate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := Env{Platform: p, Plan: defaultPlan("make"), Packages: tt.packages, PackageFiles: lists(tt.files)}
			fix, why := makeMissingPackage(context.Background(), f, env)
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			if len(fix.Actions) != 1 || fix.Actions[0].Command != "apt-get install -y frobnicate" || !strings.Contains(fix.Analysis, "checked: frobnicate (its file list has /usr/") ||
				strings.Count(fix.Analysis, "(its file list has") != 1 {
				t.Errorf("fix %+v", fix)
			}
		})
	}
}

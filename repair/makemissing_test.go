package repair

import (
	"context"
	"slices"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// TestAutomakeMissingDocRule runs the rule, through Propose as the graph does, on the
// real output of Debian's repacked adplug 2.3.3+dfsg (doc/libadplug.texi stripped) with
// its real Makefile.am, and on smaller trees for a stripped man page and the cases the
// rule must leave alone.
func TestAutomakeMissingDocRule(t *testing.T) {
	adplugAM := readLog(t, "makemissing/adplug-2.3.3.Makefile.am")
	adplugTree := memTree{"configure.ac": "AC_INIT([adplug], [2.3.3])\n", "configure": "", "Makefile.in": "", "Makefile.am": adplugAM,
		"doc/adplugdb.1": "", "doc/adplugdb.1.in": "", "doc/version.texi": "", "doc/stamp-vti": "", "src/adplug.cpp": ""}
	tests := []struct {
		name  string
		log   string
		tree  memTree
		build string
		want  map[string]string // the patched files' new content; nil: no fix
		plan  string            // the build phase's new command
		words []string          // the analysis says these
		none  string
	}{
		{name: "adplug: the GFDL manual stripped, its include list goes with it",
			log: "make-missing-doc-adplug.log", tree: adplugTree, build: shippedConfigure,
			want: map[string]string{"Makefile.am": strings.Replace(strings.Replace(adplugAM,
				"info_TEXINFOS = doc/libadplug.texi\n", "\n", 1), "doc_libadplug_TEXINFOS = doc/fdl.texi\n", "\n", 1)},
			plan: autoreconfBuild,
			words: []string{"no rule for doc/libadplug.texi", "Makefile.am:185 info_TEXINFOS lists doc/libadplug.texi",
				"Makefile.am:187 doc_libadplug_TEXINFOS goes with it", "no info manual (doc/libadplug.texi)"}},
		{name: "a man page stripped in a subdirectory, the other pages kept, autoreconf already in the plan",
			log: "make[2]: Entering directory '/workspace/p/doc'\nmake[2]: *** No rule to make target 'p.1', needed by 'all-am'.  Stop.\n",
			tree: memTree{"configure.ac": "AC_INIT([p], [1])\n", "Makefile.am": "SUBDIRS = doc\n",
				"doc/Makefile.am": "dist_man_MANS = p.1 \\\n\tpctl.8\ninfo_TEXINFOS = p.texi\n", "doc/pctl.8": "", "doc/p.texi": ""},
			build: autoreconfBuild,
			want:  map[string]string{"doc/Makefile.am": "dist_man_MANS = \\\n\tpctl.8\ninfo_TEXINFOS = p.texi\n"},
			words: []string{"doc/Makefile.am:1 dist_man_MANS lists p.1", "installs no such page"}},
		{name: "the manual is in the tree: no fix",
			log:  "make: *** No rule to make target 'doc/p.texi', needed by 'doc/p.info'.  Stop.\n",
			tree: memTree{"configure.ac": "", "Makefile.am": "info_TEXINFOS = doc/p.texi\n", "doc/p.texi": ""}, build: shippedConfigure,
			none: "no Makefile.am lists doc/p.texi"},
		{name: "named only through a variable: no fix",
			log:  "make: *** No rule to make target 'doc/p.texi', needed by 'doc/p.info'.  Stop.\n",
			tree: memTree{"configure.ac": "", "Makefile.am": "info_TEXINFOS = $(MANUAL)\n"}, build: shippedConfigure,
			none: "no Makefile.am lists"},
		{name: "not automake: no fix",
			log:  "make: *** No rule to make target 'p.1', needed by 'install'.  Stop.\n",
			tree: memTree{"Makefile": "install: p.1\n"}, build: "make",
			none: "not an automake build"},
		{name: "no ./configure in the plan: no fix",
			log:  "make: *** No rule to make target 'doc/p.texi', needed by 'doc/p.info'.  Stop.\n",
			tree: memTree{"configure.ac": "", "Makefile.am": "info_TEXINFOS = doc/p.texi\n"}, build: "make",
			none: "no ./configure command"},
	}
	p := debian(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, tt.build)
			if claims := Claims(Failure{Category: f.Category, Message: f.Message}, nil); !slices.Contains(claims, "automake-missing-doc") {
				t.Fatalf("Claims(%q) = %v, want automake-missing-doc", f.Message, claims)
			}
			env := Env{Platform: p, Plan: autotoolsPlan(tt.build), Files: tt.tree.files(), ReadFile: tt.tree.read}
			fix, why := makeAutomakeMissingDoc(context.Background(), f, env)
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			patched := wantPatched(t, fix, tt.tree, tt.want)
			wantSays(t, fix.Analysis, tt.words)
			if tt.plan == "" {
				if fix.Plan != nil {
					t.Errorf("plan changed to %+v, want it unchanged", fix.Plan.Phases)
				}
			} else if fix.Plan == nil {
				t.Fatal("no new plan")
			} else if cmd := fix.Plan.Phases[1].Commands[0]; cmd != tt.plan {
				t.Errorf("build phase\n got %q\nwant %q", cmd, tt.plan)
			} else if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the new plan fails the scout's rules: %v", err)
			}
			fx, notes := Propose(context.Background(), f, env, nil)
			if fx == nil || fx.Rule != "automake-missing-doc" {
				t.Fatalf("Propose = %+v, notes %v", fx, notes)
			}
			if err := check(fx, "/workspace/p"); err != nil {
				t.Errorf("the fix fails validation: %v", err)
			}
			// The patched tree gets no second fix for the same file.
			env.Files, env.ReadFile = patched.files(), patched.read
			if again, _ := makeAutomakeMissingDoc(context.Background(), f, env); again != nil {
				t.Errorf("the patched tree gets another fix: %s", again.Strategy)
			}
		})
	}
}

// TestMakeSubdirMakefileRule runs the rule, through Propose as the graph does, on the
// real output of unace 1.2b (make -C unix, whose makefile expects the sources beside
// it) with its real unix/makefile, and on smaller trees for the cases it must leave.
func TestMakeSubdirMakefileRule(t *testing.T) {
	unaceMK := readLog(t, "makemissing/unace-1.2b.unix.makefile")
	unace := memTree{"unix/makefile": unaceMK, "unix/gccmaked": "", "unix/readme.txt": "", "amiga/smakefil": "", "readme": ""}
	for _, f := range []string{"globals.c", "uac_comm.c", "uac_crc.c", "uac_crt.c", "uac_dcpr.c", "uac_sys.c", "unace.c", "globals.h", "os.h"} {
		unace[f] = ""
	}
	nested := memTree{"src/unix/Makefile": "OBJ = a.o b.o\nSRC = a.c b.c\np: $(OBJ)\n", "src/a.c": "", "src/b.c": ""}
	tests := []struct {
		name  string
		log   string
		tree  memTree
		build string
		plan  string // the build phase's new command; "": no fix
		words []string
		none  string
	}{
		{name: "unace: unix/makefile expects the sources of the top directory",
			log: "make-subdir-makefile-unace.log", tree: unace, build: "make -C unix -j$(nproc)",
			plan:  "make -f unix/makefile -j$(nproc)",
			words: []string{"globals.c is there, not in unix", "7 of the 7 sources unix/makefile names"}},
		{name: "a makefile two levels down, its sources one level up",
			log: "make: *** No rule to make target 'a.c', needed by 'a.o'.  Stop.\n", tree: nested, build: "CC=gcc make -C ./src/unix",
			plan: "CC=gcc make -C src -f unix/Makefile"},
		{name: "a platform makefile the plan names with -f",
			log:  "make: *** No rule to make target 'a.c', needed by 'a.o'.  Stop.\n",
			tree: memTree{"unix/makefile.unix": "SRC = a.c b.c\n", "a.c": "", "b.c": ""}, build: "make -C unix -f makefile.unix -j$(nproc) && make -C unix -f makefile.unix check",
			plan: "make -f unix/makefile.unix -j$(nproc) && make -f unix/makefile.unix check"},
		{name: "the file is missing everywhere: no fix",
			log:  "make: *** No rule to make target 'c.c', needed by 'c.o'.  Stop.\n",
			tree: memTree{"src/unix/Makefile": "p: a.o c.o\n", "src/a.c": ""}, build: "make -C src/unix",
			none: "a file the tarball lacks"},
		{name: "the makefile's other sources are beside it: no fix",
			log:  "make: *** No rule to make target 'a.c', needed by 'a.o'.  Stop.\n",
			tree: memTree{"unix/Makefile": "SRC = a.c b.c d.c\n", "unix/b.c": "", "unix/d.c": "", "a.c": ""}, build: "make -C unix",
			none: "names 1 sources of . and 2 beside it"},
		{name: "make runs in the top directory: no fix",
			log:  "make[1]: *** No rule to make target 'cryptoUtils.c', needed by 'cryptoUtils.lo'.  Stop.\n",
			tree: memTree{"src/Makefile.am": "", "src/cryptoUtils.cc": ""}, build: "./configure && make -j$(nproc)",
			none: "runs in the top directory"},
	}
	p := debian(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, tt.build)
			if claims := Claims(Failure{Category: f.Category, Message: f.Message}, nil); !slices.Contains(claims, "make-subdir-makefile") {
				t.Fatalf("Claims(%q) = %v, want make-subdir-makefile", f.Message, claims)
			}
			env := Env{Platform: p, Plan: defaultPlan(tt.build), Files: tt.tree.files(), ReadFile: tt.tree.read}
			fix, why := makeSubdirMakefile(context.Background(), f, env)
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			if fix.Plan == nil {
				t.Fatal("no new plan")
			}
			if cmd := fix.Plan.Phases[1].Commands[0]; cmd != tt.plan {
				t.Errorf("build phase\n got %q\nwant %q", cmd, tt.plan)
			}
			if env.Plan.Phases[1].Commands[0] != tt.build {
				t.Error("the rule changed the caller's plan in place")
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the new plan fails the scout's rules: %v", err)
			}
			wantSays(t, fix.Analysis, tt.words)
			fx, notes := Propose(context.Background(), f, env, nil)
			if fx == nil || fx.Rule != "make-subdir-makefile" {
				t.Fatalf("Propose = %+v, notes %v", fx, notes)
			}
			if err := check(fx, "/workspace/p"); err != nil {
				t.Errorf("the fix fails validation: %v", err)
			}
			// The new plan runs no make -C into the directory: no second fix.
			env.Plan = fix.Plan
			if again, _ := makeSubdirMakefile(context.Background(), f, env); again != nil {
				t.Errorf("the new plan gets another fix: %s", again.Strategy)
			}
		})
	}
}

// TestAutomakeStaleSourcesRule runs the rule, through Propose as the graph does, on the
// real output of bzrtp 5.3.105's autotools build (the plan a switch away from its CMake
// build left) with its real src/Makefile.am and src/CMakeLists.txt, and on smaller
// trees for the cases it must leave.
func TestAutomakeStaleSourcesRule(t *testing.T) {
	bzrtp := memTree{"CMakeLists.txt": "add_subdirectory(src)\n", "configure.ac": "", "Makefile.am": "SUBDIRS = src include\n",
		"src/Makefile.am": readLog(t, "makemissing/bzrtp-5.3.105.src.Makefile.am"), "src/CMakeLists.txt": readLog(t, "makemissing/bzrtp-5.3.105.src.CMakeLists.txt"),
		"src/bzrtp.c": "", "src/cryptoUtils.cc": "", "src/packetParser.c": "", "src/zidCache.c": "", "src/stateMachine.c": "", "src/pgpwords.c": ""}
	cmakeFirst := &atesor.Detection{BuildSystem: atesor.BuildCMake, Evidence: "CMakeLists.txt", Confidence: 0.9,
		Alternatives: []atesor.BuildCandidate{{BuildSystem: atesor.BuildAutotools, Evidence: "configure.ac", Confidence: 0.85}}}
	const (
		bzrtpSetup = "apt-get update && apt-get install -y build-essential autoconf automake libtool pkgconf make libsqlite3-dev libxml2-dev cmake libbctoolbox-dev"
		bzrtpBuild = "autoreconf -fi && ./configure && make -j$(nproc)"
	)
	plan := func(setup, build string) *atesor.BuildPlan {
		return &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{setup}}, {Name: "build", Commands: []string{build}}}}
	}
	tests := []struct {
		name  string
		log   string
		tree  memTree
		det   *atesor.Detection
		build string
		want  []string // words of the new plan's commands
		words []string
		none  string
	}{
		{name: "bzrtp: cryptoUtils.c renamed cryptoUtils.cc, which src/CMakeLists.txt lists",
			log: "automake-stale-sources-bzrtp.log", tree: bzrtp, det: cmakeFirst, build: bzrtpBuild,
			want: []string{"cmake -S . -B build", "libbctoolbox-dev", "libsqlite3-dev", "libxml2-dev"},
			words: []string{"src/Makefile.am:4 lists it", "the tree has src/cryptoUtils.cc instead, which src/CMakeLists.txt lists",
				"moved to cmake"}},
		{name: "the renamed file is in no CMake file: no fix",
			log:  "automake-stale-sources-bzrtp.log",
			tree: memTree{"CMakeLists.txt": "add_library(b bzrtp.c)\n", "src/Makefile.am": "libb_la_SOURCES = cryptoUtils.c\n", "src/cryptoUtils.cc": ""},
			det:  cmakeFirst, build: bzrtpBuild,
			none: "no CMake or meson build of it lists src/cryptoUtils.cc"},
		{name: "no file of the stem: a stripped source, no fix",
			log:  "automake-stale-sources-bzrtp.log",
			tree: memTree{"CMakeLists.txt": "", "src/Makefile.am": "libb_la_SOURCES = cryptoUtils.c\n", "src/cryptoUtils.h": ""},
			det:  cmakeFirst, build: bzrtpBuild,
			none: "no Makefile.am lists cryptoUtils.c"},
		{name: "the plan builds with CMake already: no fix",
			log: "automake-stale-sources-bzrtp.log", tree: bzrtp, det: cmakeFirst, build: "cmake -S . -B build && cmake --build build",
			none: "does not build with the autotools"},
	}
	p := debian(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, tt.build)
			if claims := Claims(Failure{Category: f.Category, Message: f.Message}, nil); !slices.Contains(claims, "automake-stale-sources") {
				t.Fatalf("Claims(%q) = %v, want automake-stale-sources", f.Message, claims)
			}
			env := Env{Platform: p, Detection: tt.det, Plan: plan(bzrtpSetup, tt.build), Files: tt.tree.files(), ReadFile: tt.tree.read}
			fix, why := makeAutomakeStaleSources(context.Background(), f, env)
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			if fix.Plan == nil {
				t.Fatal("no new plan")
			}
			all := strings.Join(fix.Plan.Commands(), "\n")
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("new plan\n%s\nlacks %q", all, w)
				}
			}
			if strings.Contains(all, "./configure") {
				t.Errorf("new plan still runs configure:\n%s", all)
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the new plan fails the scout's rules: %v", err)
			}
			wantSays(t, fix.Analysis, tt.words)
			fx, notes := Propose(context.Background(), f, env, nil)
			if fx == nil || fx.Rule != "automake-stale-sources" {
				t.Fatalf("Propose = %+v, notes %v", fx, notes)
			}
			if err := check(fx, "/workspace/p"); err != nil {
				t.Errorf("the fix fails validation: %v", err)
			}
		})
	}
}

package repair

import (
	"context"
	"slices"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// TestConfigureIncludeRule runs the rule, through Propose as the graph does, on the
// real output of pgpointcloud 1.2.5 (lib/Makefile includes ../config.mk, which its
// configure.ac writes from config.mk.in) with its real configure.ac, and on smaller
// trees for the cases it must leave.
func TestConfigureIncludeRule(t *testing.T) {
	pgAC := readLog(t, "makemissing/pgpointcloud-1.2.5.configure.ac")
	pg := memTree{"Makefile": "all install:\n\t$(MAKE) -C lib $@\n", "configure.ac": pgAC, "config.mk.in": "CC = @CC@\n", "autogen.sh": "",
		"lib/Makefile": "\ninclude ../config.mk\n", "lib/pc_api.c": "", "pgsql/Makefile.in": ""}
	makeFirst := &atesor.Detection{BuildSystem: atesor.BuildMake, Evidence: "Makefile", Confidence: 0.7,
		Alternatives: []atesor.BuildCandidate{{BuildSystem: atesor.BuildAutotools, Evidence: "configure.ac", Confidence: 0.85}}}
	const (
		setup = "apt-get update && apt-get install -y build-essential pkgconf zlib1g-dev libcunit1-dev libpq-dev libxml2-dev"
		build = "make -j$(nproc)"
	)
	const failure = "make[1]: Entering directory '/workspace/p/src'\nsrc/Makefile:1: ../config.mk: No such file or directory\nmake[1]: *** No rule to make target '../config.mk'.  Stop.\n"
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
		{name: "pgpointcloud: lib/Makefile includes ../config.mk, which AC_OUTPUT writes",
			log: "configure-include-pgpointcloud.log", tree: pg, det: makeFirst, build: build,
			want:  []string{"autoreconf -fi", "./configure", "make", "libpq-dev", "libcunit1-dev"},
			words: []string{"no rule for ../config.mk", "config.mk, from config.mk.in, which configure.ac lists", "packages installed so far"}},
		{name: "AC_CONFIG_FILES with an input, no alternative detected",
			log: failure, build: build, det: &atesor.Detection{BuildSystem: atesor.BuildMake, Evidence: "Makefile", Confidence: 0.7},
			tree: memTree{"Makefile": "", "configure.ac": "AC_INIT([p], [1])\nAC_CONFIG_FILES([config.mk:config.mk.in src/Makefile])\nAC_OUTPUT\n", "config.mk.in": ""},
			want: []string{"./configure", "make"}},
		{name: "configure does not write it: no fix",
			log: failure, build: build, det: makeFirst,
			tree: memTree{"Makefile": "", "configure.ac": "AC_INIT([p], [1])\nAC_CONFIG_FILES([src/Makefile])\nAC_OUTPUT\n", "config.mk.in": ""},
			none: "config.mk is not among the files configure.ac writes"},
		{name: "no template: no fix",
			log: failure, build: build, det: makeFirst,
			tree: memTree{"Makefile": "", "configure.ac": "AC_OUTPUT([config.mk])\n"},
			none: "the tree has no config.mk.in"},
		{name: "no configure.ac: no fix",
			log: failure, build: build, det: makeFirst, tree: memTree{"Makefile": "", "config.mk.in": ""},
			none: "no configure.ac"},
		{name: "configure already runs: no fix",
			log: failure, build: "./configure && make -j$(nproc)", det: makeFirst, tree: pg,
			none: "already configures"},
	}
	p := debian(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, tt.build)
			if claims := Claims(Failure{Category: f.Category, Message: f.Message}, nil); !slices.Contains(claims, configureIncludeRuleName) {
				t.Fatalf("Claims(%q) = %v, want %s", f.Message, claims, configureIncludeRuleName)
			}
			plan := &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{setup}}, {Name: "build", Commands: []string{tt.build}}}}
			env := Env{Platform: p, Plan: plan, Files: tt.tree.files(), ReadFile: tt.tree.read, Detection: tt.det}
			fix, why := makeConfigureInclude(context.Background(), f, env)
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			if fix.Plan == nil {
				t.Fatal("no new plan")
			}
			cmds := strings.Join(fix.Plan.Commands(), "\n")
			for _, w := range tt.want {
				if !strings.Contains(cmds, w) {
					t.Errorf("new plan %q does not say %q", cmds, w)
				}
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the new plan fails the scout's rules: %v", err)
			}
			wantSays(t, fix.Analysis, tt.words)
			fx, notes := Propose(context.Background(), f, env, nil)
			if fx == nil || fx.Rule != configureIncludeRuleName {
				t.Fatalf("Propose = %+v, notes %v", fx, notes)
			}
			env.Plan = fix.Plan
			if again, _ := makeConfigureInclude(context.Background(), f, env); again != nil {
				t.Errorf("the new plan gets another fix: %s", again.Strategy)
			}
		})
	}
}

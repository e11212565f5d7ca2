package repair

import (
	"context"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// TestAptConflictRule runs the rule on mpdscribble 0.25's real install (detection chose
// libcurl4-openssl-dev for pkg-config's libcurl, and distribution-configure added the
// Build-Depends' libcurl4-gnutls-dev) and on the cases where it must not choose.
func TestAptConflictRule(t *testing.T) {
	realLog := readLog(t, "apt-conflict-mpdscribble.log")
	const install = "apt-get update && apt-get install -y build-essential meson ninja-build pkgconf libcurl4-openssl-dev libgcrypt20-dev libboost-dev libcurl4-gnutls-dev libmpdclient-dev"
	deps := []string{"meson", "pkgconf", "libboost-dev", "libcurl4-gnutls-dev", "libgcrypt20-dev", "libmpdclient-dev"}
	tests := []struct {
		name, log, setup string
		deps             []string
		noDist           bool
		want, none       string
	}{
		{name: "mpdscribble: the plan's libcurl flavour goes", log: realLog, setup: install, deps: deps,
			want: "apt-get update && apt-get install -y build-essential meson ninja-build pkgconf libgcrypt20-dev libboost-dev libcurl4-gnutls-dev libmpdclient-dev"},
		{name: "only the install command's words", log: realLog, setup: "apt-get install -y libcurl4-openssl-dev libcurl4-gnutls-dev && echo libcurl4-openssl-dev", deps: deps,
			want: "apt-get install -y libcurl4-gnutls-dev && echo libcurl4-openssl-dev"},
		{name: "Breaks, with an architecture qualifier", log: " liba-dev:riscv64 : Breaks: libb-dev but 1 is to be installed\n", setup: "apt-get install -y liba-dev libb-dev", deps: []string{"liba-dev"},
			want: "apt-get install -y liba-dev"},
		{name: "neither named by the Build-Depends", log: realLog, setup: install, deps: []string{"meson"}, none: "name neither"},
		{name: "both named", log: realLog, setup: install, deps: []string{"libcurl4-openssl-dev", "libcurl4-gnutls-dev"}, none: "name both"},
		{name: "no distribution counterpart", log: realLog, setup: install, noDist: true, none: "no distribution counterpart"},
		{name: "the plan does not install it", log: realLog, setup: "apt-get install -y libcurl4-gnutls-dev", deps: deps, none: "do not name libcurl4-openssl-dev"},
		{name: "another apt failure", log: "E: Unable to locate package libfoo-dev\n", setup: install, deps: deps, none: "no two packages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{tt.setup}},
				{Name: "build", Commands: []string{"meson setup build && meson compile -C build"}}}}
			env := Env{Platform: debian(t), Plan: plan}
			if !tt.noDist {
				env.Distribution = distOf(&Distribution{Package: "mpdscribble", Version: "0.25-2", BuildDepends: tt.deps})
			}
			f := Failure{Message: tt.log, Output: tt.log, Phase: "setup", Command: tt.setup}
			fix, why := makeAptConflict(context.Background(), f, env)
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			if got := fix.Plan.Phases[0].Commands[0]; got != tt.want {
				t.Errorf("setup\n got %q\nwant %q", got, tt.want)
			}
			if plan.Phases[0].Commands[0] != tt.setup {
				t.Error("the rule changed the caller's plan in place")
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the new plan fails the scout's rules: %v", err)
			}
		})
	}
}

// TestAptConflictProposed: the whole rule table answers mpdscribble's refused install
// with apt-conflict.
func TestAptConflictProposed(t *testing.T) {
	realLog := readLog(t, "apt-conflict-mpdscribble.log")
	const install = "apt-get update && apt-get install -y build-essential meson pkgconf libcurl4-openssl-dev libcurl4-gnutls-dev"
	plan := &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{install}},
		{Name: "build", Commands: []string{"meson setup build && meson compile -C build"}}}}
	env := Env{Platform: debian(t), Plan: plan,
		Distribution: distOf(&Distribution{Package: "mpdscribble", Version: "0.25-2", BuildDepends: []string{"meson", "libcurl4-gnutls-dev"}})}
	f := Failure{Category: atesor.ClassifyError(realLog), Message: realLog, Output: realLog, Phase: "setup", Command: install}
	fix, notes := Propose(context.Background(), f, env, nil)
	if fix == nil || fix.Rule != "apt-conflict" {
		t.Fatalf("fix = %+v, notes %q; want apt-conflict", fix, notes)
	}
}

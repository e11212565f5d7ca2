package repair

import (
	"context"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/validate"
)

func TestConfigureAsRoot(t *testing.T) {
	const setup = "apt-get update && apt-get install -y build-essential pkgconf"
	tests := []struct {
		name  string
		build []string
		want  []string // the build phase's commands after the fix
		none  string
	}{
		{name: "tar: ./configure && make",
			build: []string{"./configure && make -j$(nproc)"},
			want:  []string{"FORCE_UNSAFE_CONFIGURE=1 ./configure && make -j$(nproc)"}},
		{name: "after autoreconf and with the distribution's switches and CFLAGS",
			build: []string{"autoreconf -fi && CFLAGS='-g -O2 -fcommon' ./configure --with-lzma=xz && make -j$(nproc)"},
			want:  []string{"autoreconf -fi && CFLAGS='-g -O2 -fcommon' FORCE_UNSAFE_CONFIGURE=1 ./configure --with-lzma=xz && make -j$(nproc)"}},
		{name: "already set: no second fix",
			build: []string{"FORCE_UNSAFE_CONFIGURE=1 ./configure && make"},
			none:  "already runs configure with FORCE_UNSAFE_CONFIGURE"},
		{name: "no configure in the plan",
			build: []string{"make -j$(nproc)"},
			none:  "no ./configure command"},
	}
	out := readLog(t, "configure-root-tar.log")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, "configure-root-tar.log", tt.build[0])
			if claims := Claims(Failure{Category: f.Category, Message: f.Message}, nil); len(claims) == 0 || claims[0] != "configure-as-root" {
				t.Fatalf("Claims = %v, want configure-as-root first", claims)
			}
			plan := &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{setup}}, {Name: "build", Commands: tt.build}}}
			fix, why := makeConfigureRoot(context.Background(), f, Env{Platform: debian(t), Plan: plan})
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			if got := fix.Plan.Phases[1].Commands; strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("build phase\n got %q\nwant %q", got, tt.want)
			}
			if err := validate.BuildPlan(fix.Plan); err != nil {
				t.Errorf("the new plan fails the plan rules: %v", err)
			}
			if plan.Phases[1].Commands[0] != tt.build[0] {
				t.Error("the caller's plan changed")
			}
			if !strings.Contains(fix.Analysis, "refuses to run as root") {
				t.Errorf("analysis %q", fix.Analysis)
			}
			// The fixed plan gets no second fix.
			if again, _ := makeConfigureRoot(context.Background(), f, Env{Platform: debian(t), Plan: fix.Plan}); again != nil {
				t.Errorf("a second fix: %s", again.Strategy)
			}
		})
	}
	if !strings.Contains(out, "FORCE_UNSAFE_CONFIGURE=1") {
		t.Fatal("the real log lost its message")
	}
}

package repair

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// TestMissingPackageInstalledAlready runs missing-package on unar 1.10.8's real build
// output after the setup installed libgnustep-base-dev: installing it again cost the
// held-back port two attempts, and the header is one directory down, header-subdir's.
func TestMissingPackageInstalledAlready(t *testing.T) {
	const build = "make -f Makefile.linux -j$(nproc)"
	finder := fakeFinder{"header:Foundation/Foundation.h": {"libgnustep-base-dev"}}
	plan := func(setup string) *atesor.BuildPlan {
		return &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "setup", Commands: []string{setup}}, {Name: "build", Commands: []string{build}}}}
	}
	tests := []struct {
		name    string
		plan    *atesor.BuildPlan
		fixes   []atesor.FixAttempt
		want    string // the install line; "": no fix
		wantWhy string
	}{
		{name: "not installed", plan: plan("apt-get update && apt-get install -y build-essential pkgconf"),
			want: "apt-get install -y libgnustep-base-dev"},
		{name: "in the setup", plan: plan("apt-get update && apt-get install -y build-essential pkgconf libgnustep-base-dev libicu-dev"),
			wantWhy: "installed already (header Foundation/Foundation.h is in libgnustep-base-dev, installed)"},
		{name: "by an earlier fix", plan: plan("apt-get update && apt-get install -y build-essential pkgconf"),
			fixes:   []atesor.FixAttempt{{Attempt: 1, Rule: "missing-package", Actions: []atesor.Action{{Type: atesor.ActionCommand, Command: "apt-get install -y libgnustep-base-dev"}}}},
			wantWhy: "installed already"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, "missing-installed-unar.log", build)
			env := Env{Platform: debian(t), Plan: tt.plan, Packages: finder, Fixes: tt.fixes}
			fix, why := makeMissingPackage(context.Background(), f, env)
			if tt.want == "" {
				if fix != nil {
					t.Fatalf("fix %+v, want none", fix)
				}
				if !strings.Contains(why, tt.wantWhy) {
					t.Errorf("reason %q does not say %q", why, tt.wantWhy)
				}
				return
			}
			if fix == nil {
				t.Fatalf("no fix: %s", why)
			}
			if d := cmp.Diff([]atesor.Action{{Type: atesor.ActionCommand, Command: tt.want}}, fix.Actions); d != "" {
				t.Errorf("actions (-want +got):\n%s", d)
			}
		})
	}
}

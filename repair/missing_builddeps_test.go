package repair

import (
	"context"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// TestMissingPackageWithBuildDepends: genders 1.27.3's build found bison missing, then
// flex, then spent its last attempts; when the distribution's Build-Depends name the
// missing package, the fix installs the other build dependencies with it.
func TestMissingPackageWithBuildDepends(t *testing.T) {
	genders := &Distribution{Package: "genders", Version: "1.27.3-2", BuildDepends: []string{"perl", "autotools-dev", "chrpath", "flex", "bison"}}
	other := &Distribution{Package: "genders", Version: "1.27.3-2", BuildDepends: []string{"perl", "flex"}}
	tests := []struct {
		name string
		dist *Distribution
		want string
	}{
		{"bison is a build dependency", genders, "apt-get install -y bison perl autotools-dev chrpath flex"},
		{"the distribution builds without it", other, "apt-get install -y bison"},
		{"no distribution counterpart", nil, "apt-get install -y bison"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, readLog(t, "missing-prog-make.log"), "./configure && make -j$(nproc)")
			env := Env{Platform: debian(t), Packages: excerptIndex(t), Plan: defaultPlan("./configure && make -j$(nproc)")}
			if tt.dist != nil {
				env.Distribution = distOf(tt.dist)
			}
			fix, why := makeMissingPackage(context.Background(), f, env)
			if fix == nil {
				t.Fatalf("no fix: %s", why)
			}
			if len(fix.Actions) != 1 || fix.Actions[0].Type != atesor.ActionCommand || fix.Actions[0].Command != tt.want {
				t.Fatalf("actions %+v, want %q", fix.Actions, tt.want)
			}
			if tt.dist == genders && !strings.Contains(fix.Analysis, "Build-Depends name bison too") {
				t.Errorf("analysis %q", fix.Analysis)
			}
		})
	}
}

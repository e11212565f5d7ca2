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

// TestMissingLibraryFromBuildDepends: libradsec 0.0.5's configure stops at "required
// library libconfuse not found"; with no Contents index to read and no map entry, the
// Build-Depends' libconfuse-dev is the library's package, installed with the others.
func TestMissingLibraryFromBuildDepends(t *testing.T) {
	libradsec := &Distribution{Package: "libradsec", Version: "0.0.5-5.1", BuildDepends: []string{"libconfuse-dev", "libevent-dev", "libssl-dev"}}
	tests := []struct {
		name string
		dist *Distribution
		want string
		none string
	}{
		{name: "libconfuse-dev is a build dependency", dist: libradsec, want: "apt-get install -y libconfuse-dev libevent-dev libssl-dev"},
		{name: "no distribution counterpart", none: "library confuse"},
		{name: "the Build-Depends name no such package", dist: &Distribution{Package: "libradsec", BuildDepends: []string{"libevent-dev"}}, none: "library confuse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, "missing-lib-configure-libradsec.log", "./configure && make -j$(nproc)")
			if got := FindMissing(f.Message); len(got) == 0 || got[0] != (Missing{KindLibrary, "confuse"}) {
				t.Fatalf("FindMissing(%q) = %v, want library confuse", f.Message, got)
			}
			env := Env{Platform: debian(t), Plan: defaultPlan("./configure && make -j$(nproc)")}
			if tt.dist != nil {
				env.Distribution = distOf(tt.dist)
			}
			fix, why := makeMissingPackage(context.Background(), f, env)
			if tt.none != "" {
				if fix != nil || !strings.Contains(why, tt.none) {
					t.Fatalf("fix %+v, reason %q; want none, naming %q", fix, why, tt.none)
				}
				return
			}
			if fix == nil {
				t.Fatalf("no fix: %s", why)
			}
			if len(fix.Actions) != 1 || fix.Actions[0].Command != tt.want {
				t.Fatalf("actions %+v, want %q", fix.Actions, tt.want)
			}
			if !strings.Contains(fix.Analysis, "The package of confuse is the -dev package of that name the distribution's Build-Depends list") {
				t.Errorf("analysis %q", fix.Analysis)
			}
		})
	}
}

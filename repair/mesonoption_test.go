package repair

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestMesonNamedOptionRule runs the rule on the real meson setup output of Debian's
// atkmm1.6 2.28.4 with its real meson.build and meson_options.txt: mm-common's check
// stops with "You must enable maintainer-mode." (the tarball has no untracked/ files),
// and maintainer-mode is a combo option whose choices include 'true'.
func TestMesonNamedOptionRule(t *testing.T) {
	atkmm := memTree{"meson.build": readLog(t, "meson/atkmm-2.28.4.build"), "meson_options.txt": readLog(t, "meson/atkmm-2.28.4.options")}
	tests := []struct {
		name     string
		log      string
		tree     memTree
		plan     string
		planLine string
		none     string
	}{
		{name: "atkmm: maintainer-mode, a combo", log: readLog(t, "meson-named-option-atkmm.log"), tree: atkmm, plan: mesonBuild,
			planLine: "meson setup -Dmaintainer-mode=true builddir && ninja -C builddir"},
		{name: "a boolean option", log: "meson.build:3:2: ERROR: Problem encountered: generated sources are missing: enable the option 'regen'\n",
			tree: memTree{"meson.build": "project('p')\n\nerror('x')\n", "meson.options": "option('regen', type: 'boolean', value: false)\n"},
			plan: mesonBuild, planLine: "meson setup -Dregen=true builddir && ninja -C builddir"},
		{name: "a feature option, replaced on the line", log: "meson.build:3:2: ERROR: Problem encountered: Please enable docs\n",
			tree: memTree{"meson.build": "project('p')\n\nerror('x')\n", "meson.options": "option('docs', type: 'feature', value: 'disabled')\n"},
			plan: "meson setup -Ddocs=disabled builddir && ninja -C builddir", planLine: "meson setup -Ddocs=enabled builddir && ninja -C builddir"},
		{name: "a word that is no option: no fix", log: "meson.build:3:2: ERROR: Problem encountered: You must enable C++17 support in your compiler\n",
			tree: atkmm, plan: mesonBuild, none: "turn on no option"},
		{name: "a combo with no on value: no fix", log: "meson.build:3:2: ERROR: Problem encountered: enable warnings\n",
			tree: atkmm, plan: mesonBuild, none: "with no value that turns it on"},
		{name: "already on: no fix", log: readLog(t, "meson-named-option-atkmm.log"), tree: atkmm,
			plan: "meson setup -Dmaintainer-mode=true builddir && ninja -C builddir", none: "already configures -Dmaintainer-mode=true"},
		{name: "no meson setup: no fix", log: readLog(t, "meson-named-option-atkmm.log"), tree: atkmm, plan: "make", none: "no meson setup command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, tt.plan)
			if claims := Claims(f, nil); !slices.Contains(claims, mesonNamedOptionRuleName) {
				t.Fatalf("claims %v", claims)
			}
			env := Env{Platform: debian(t), Plan: defaultPlan(tt.plan), Files: tt.tree.files(), ReadFile: tt.tree.read}
			fix, why := makeMesonNamedOption(context.Background(), f, env)
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			wantBuildLine(t, fix, tt.planLine)
			again := env
			again.Plan = fix.Plan
			if fix2, _ := makeMesonNamedOption(context.Background(), f, again); fix2 != nil {
				t.Errorf("a second fix on the fixed plan: %+v", fix2)
			}
		})
	}
}

// FuzzMesonEnableWords: the error() message is the package's text.
func FuzzMesonEnableWords(f *testing.F) {
	f.Add("Missing files in untracked/. You must enable maintainer-mode.")
	f.Add("enable the option 'x' or turn on y")
	f.Fuzz(func(t *testing.T, msg string) {
		for _, m := range mesonEnableWords.FindAllStringSubmatch(msg, 8) {
			if m[1] == "" || !strings.Contains(msg, m[1]) {
				t.Fatalf("%q: option word %q", msg, m[1])
			}
		}
	})
}

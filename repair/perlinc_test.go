package repair

import "testing"

func TestPerlDotIncRefusals(t *testing.T) {
	plan := "autoreconf -fi && ./configure && make -j1"
	tests := []struct {
		name string
		tree memTree
		plan string
		why  string
	}{
		{name: "the file is elsewhere in the tree, not beside the script",
			tree: memTree{"radius/convert.pl": "require \"common.pl\";\n", "lib/common.pl": "1;\n"}, plan: plan,
			why: "common.pl is not in the tree beside ./convert.pl"},
		{name: "the file is nowhere: a missing module, not the current directory",
			tree: memTree{"radius/convert.pl": "require \"common.pl\";\n"}, plan: plan, why: "not in the tree beside"},
		{name: "the build runs with the switch already",
			tree: memTree{"radius/convert.pl": "", "radius/common.pl": ""}, plan: "export PERL_USE_UNSAFE_INC=1 && " + plan,
			why: "already runs with PERL_USE_UNSAFE_INC=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fix, notes := proposeOnBuild(t, "perl-dot-inc-libradsec.log", defaultPlan(tt.plan), tt.tree)
			wantNoFix(t, perlDotIncRuleName, fix, notes, tt.why)
		})
	}
}

func TestBesideScript(t *testing.T) {
	files := []string{"radius/convert.pl", "radius/common.pl", "tools/gen.pl", "common.pl"}
	tests := []struct{ file, script, want string }{
		{"common.pl", "./convert.pl", "radius/common.pl"},
		{"common.pl", "/workspace/libradsec/radius/convert.pl", "radius/common.pl"},
		{"common.pl", "tools/gen.pl", ""},
		{"common.pl", "other/convert.pl", ""},
	}
	for _, tt := range tests {
		if got := besideScript(files, tt.file, tt.script); got != tt.want {
			t.Errorf("besideScript(%q, %q) = %q, want %q", tt.file, tt.script, got, tt.want)
		}
	}
}

package repair

import "testing"

func TestConfigurePrefixRefusals(t *testing.T) {
	tests := []struct{ name, log, plan, why string }{
		{"the plan sets a prefix already", "configure-prefix-guile-cairo.log", "./configure --prefix=/opt/x && make", "already sets a prefix"},
		{"a relative path is not taken", "configure: error: No explicit prefix given.\n\n  ./configure --prefix=usr\n\n", "./configure && make", "configure names no prefix"},
		{"a path that climbs", "configure: error: No explicit prefix given.\n  ./configure --prefix=/usr/../etc\n", "./configure && make", "not a plain absolute path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, tt.plan)
			fix, why := makeConfigurePrefix(t.Context(), f, Env{Plan: defaultPlan(tt.plan)})
			wantFix(t, fix, why, tt.why)
		})
	}
}

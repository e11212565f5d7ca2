package repair

import (
	"strings"
	"testing"
)

func TestDJBFlagsFix(t *testing.T) {
	const conf = "gcc -W -Wall -Os -g\n\nThis will be used to compile .c files.\n"
	tests := []struct {
		name, content string
		flags         []string
		diff          string // the patch's changed line
		none          string
	}{
		{name: "appended to the compile command", content: conf, flags: []string{"-Wno-error=implicit-function-declaration"},
			diff: "+gcc -W -Wall -Os -g -Wno-error=implicit-function-declaration\n"},
		{name: "only the flags it lacks", content: "gcc -O -Wno-error=int-conversion \n", flags: []string{"-Wno-error=int-conversion", "-fcommon"},
			diff: "+gcc -O -Wno-error=int-conversion -fcommon\n"},
		{name: "every flag there already", content: "gcc -fcommon\n", flags: []string{"-fcommon"}, none: "already"},
		{name: "no command", content: "\nThis will be used to compile .c files.\n", flags: []string{"-fcommon"}, none: "no compile command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fix, why := djbFlagsFix("conf-cc", tt.content, tt.flags, "relax (%s)")
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			if len(fix.Actions) != 1 || !strings.Contains(fix.Actions[0].Diff, tt.diff) || !strings.HasPrefix(fix.Analysis, "relax (") {
				t.Errorf("fix %+v, want a patch of conf-cc with %q", fix, tt.diff)
			}
		})
	}
}

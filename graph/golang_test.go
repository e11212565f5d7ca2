package graph

import (
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/google/go-cmp/cmp"
)

func TestWithGoArtifacts(t *testing.T) {
	goDet := &atesor.Detection{BuildSystem: atesor.BuildGo, GoArtifacts: []string{"bin/tool", "bin/toolctl", "bin/srv"}}
	many := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}
	tests := []struct {
		name     string
		expected []string
		det      *atesor.Detection
		want     []string
	}{
		{"fallback", []string{}, goDet, []string{"bin/tool", "bin/toolctl", "bin/srv"}},
		{"model named one", []string{"tool"}, goDet, []string{"tool", "bin/toolctl", "bin/srv"}},
		{"cap", many, goDet, append(append([]string{}, many...), "bin/tool")},
		{"not go", []string{"x"}, &atesor.Detection{BuildSystem: atesor.BuildCMake, GoArtifacts: []string{"bin/y"}}, []string{"x"}},
		{"no detection", []string{"x"}, nil, []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, withGoArtifacts(tt.expected, tt.det)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

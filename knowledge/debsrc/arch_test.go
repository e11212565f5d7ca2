package debsrc

import (
	"strings"
	"testing"
)

func TestBuildsFor(t *testing.T) {
	tests := []struct {
		archs []string
		want  bool
	}{
		{nil, true},
		{[]string{"any"}, true},
		{[]string{"all"}, true},
		{[]string{"linux-any"}, true},
		{[]string{"amd64", "riscv64"}, true},
		{[]string{"any-riscv64"}, true},
		{[]string{"linux-riscv64"}, true},
		{[]string{"s390x"}, false},
		{[]string{"amd64", "arm64", "i386"}, false},
		{[]string{"kfreebsd-any", "hurd-any"}, false},
		{[]string{"any-amd64"}, false},
		{[]string{"riscv"}, false},
	}
	for _, tt := range tests {
		if got := BuildsFor(tt.archs, "riscv64"); got != tt.want {
			t.Errorf("BuildsFor(%q, riscv64) = %v, want %v", tt.archs, got, tt.want)
		}
	}
}

func TestArchList(t *testing.T) {
	for in, want := range map[string]string{"": "", "s390x": "s390x", "amd64 arm64 i386": "amd64, arm64 and i386"} {
		if got := ArchList(strings.Fields(in)); got != want {
			t.Errorf("ArchList(%q) = %q, want %q", in, got, want)
		}
	}
}

package graph

import (
	"testing"

	"github.com/eclipse-atesor/atesor-go"
)

func TestNotBuiltHere(t *testing.T) {
	tests := []struct {
		origin *atesor.DistroSource
		want   string
	}{
		{nil, ""},
		{&atesor.DistroSource{Distro: "debian", Package: "zlib"}, ""},
		{&atesor.DistroSource{Distro: "debian", Package: "zlib", Architectures: []string{"any"}}, ""},
		{&atesor.DistroSource{Distro: "debian", Package: "golang-foo", Architectures: []string{"all"}}, ""},
		{&atesor.DistroSource{Distro: "debian", Package: "libica", Architectures: []string{"s390x"}},
			" (Debian builds libica only for s390x, not for riscv64: its source's Architecture field)"},
		{&atesor.DistroSource{Distro: "debian", Package: "x86emu", Architectures: []string{"amd64", "i386"}},
			" (Debian builds x86emu only for amd64 and i386, not for riscv64: its source's Architecture field)"},
	}
	for _, tt := range tests {
		if got := notBuiltHere(tt.origin); got != tt.want {
			t.Errorf("notBuiltHere(%+v) = %q, want %q", tt.origin, got, tt.want)
		}
	}
}

package beneath

import "testing"

func TestInTreeLink(t *testing.T) {
	for _, tt := range []struct {
		rel, target string
		want        bool
	}{
		{"usr/lib/libx.so", "libx.so.1", true},
		{"usr/lib/libx.so", "../share/x", true},
		{"usr/lib/up", "../../../etc", false},
		{"usr/lib/top", "../..", true},
		{"usr/lib/top", "../../..", false},
		{"usr/lib/ssh", "/root/.ssh", false},
		{"a", "", false},
		{"a", "b\x00c", false},
	} {
		if got := InTreeLink(tt.rel, tt.target); got != tt.want {
			t.Errorf("InTreeLink(%q, %q) = %t, want %t", tt.rel, tt.target, got, tt.want)
		}
	}
}

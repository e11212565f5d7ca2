package bytesize

import "testing"

func TestParse(t *testing.T) {
	for in, want := range map[string]int64{"1024": 1024, "4k": 4096, "256M": 256 << 20, " 8G ": 8 << 30} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"lots", "", "1T"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q): no error", in)
		}
	}
}

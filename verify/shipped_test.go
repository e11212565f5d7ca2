package verify

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
)

// TestProduced: a shipped file unchanged at its path is not the build's; rebuilt (a new
// hash) or elsewhere it is; skipped paths are left out; shipped hashes are returned.
func TestProduced(t *testing.T) {
	shipped := ShippedELFs([]atesor.Artifact{{Path: "/w/p/prebuilt/tool", SHA256: "aa"}, {Path: "/w/p/libz.so", SHA256: "bb"}})
	if d := cmp.Diff([]string{"/w/p/prebuilt/tool@aa", "/w/p/libz.so@bb"}, shipped); d != "" {
		t.Errorf("shipped (-want +got):\n%s", d)
	}
	arts := []atesor.Artifact{
		{Path: "/w/p/prebuilt/tool", SHA256: "aa"},
		{Path: "/w/p/libz.so", SHA256: "cc"},
		{Path: "/w/p/copy/tool", SHA256: "aa"},
		{Path: "/w/.stage/p/usr/bin/x", SHA256: "dd"},
	}
	built, sha := Produced(arts, shipped, func(p string) bool { return p == "/w/.stage/p/usr/bin/x" })
	var paths []string
	for _, a := range built {
		paths = append(paths, a.Path)
	}
	if d := cmp.Diff([]string{"/w/p/libz.so", "/w/p/copy/tool"}, paths); d != "" {
		t.Errorf("built (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]bool{"aa": true, "bb": true}, sha); d != "" {
		t.Errorf("shipped hashes (-want +got):\n%s", d)
	}
}

package replay

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/gotool"
)

func TestReportedSourceOK(t *testing.T) {
	dir := t.TempDir()
	sha, commit := strings.Repeat("a", 64), strings.Repeat("b", 40)
	for _, tc := range []struct {
		src, sha, commit string
		ok               bool
	}{
		{dir, "", "", false},
		{"/etc", "", "", false},
		{filepath.Join(dir, "x.tar.gz"), sha, "", false},
		{"file:///srv/git/private", "", commit, false},
		{"file:///srv/x.tar.gz", sha, "", false},
		{"http://127.0.0.1:8080/x.tar.gz", sha, "", false},
		{"https://localhost/x.tar.gz", sha, "", false},
		{"https://10.1.2.3/x.tar.gz", sha, "", false},
		{"https://[::1]/x.tar.gz", sha, "", false},
		{"https://169.254.169.254/latest/x.tar.gz", sha, "", false},
		{"https://downloads.test/x-1.0.tar.gz", "", "", false},
		{"https://downloads.test/x-1.0.tar.gz", sha, "", true},
		{"https://git.test/x/y.git", "", "", false},
		{"https://git.test/x/y.git", "", commit, true},
		{"git@git.test:x/y.git", "", commit, true},
	} {
		err := reportedSourceOK(tc.src, tc.sha, tc.commit)
		if (err == nil) != tc.ok {
			t.Errorf("reportedSourceOK(%q, sha %t, commit %t) = %v, want ok %t", tc.src, tc.sha != "", tc.commit != "", err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrHostSource) {
			t.Errorf("%q: %v is not ErrHostSource", tc.src, err)
		}
	}
}

// TestReplayRefusesForeignNames: a report whose package name leaves its folder, or whose
// recorded Go toolchain is not a Go release, is refused before anything runs; a recorded
// GOROOT is recomputed.
func TestReplayRefusesForeignNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   Input
		ok   bool
	}{
		{"dot-dot package", Input{Package: "../../etc"}, false},
		{"newline package", Input{Package: "x\ny"}, false},
		{"bad go version", Input{Package: "x", GoToolchain: &atesor.GoToolchain{Version: "go1.22; curl evil", Arch: "amd64"}}, false},
		{"bad go arch", Input{Package: "x", GoToolchain: &atesor.GoToolchain{Version: "go1.27.3", Arch: "../x"}}, false},
		{"moved GOROOT", Input{Package: "x", GoToolchain: &atesor.GoToolchain{Version: "go1.27.3", Arch: "amd64", GOROOT: "/usr/bin"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkInput(&tc.in)
			if (err == nil) != tc.ok {
				t.Fatalf("checkInput = %v, want ok %t", err, tc.ok)
			}
			if tc.ok && tc.in.GoToolchain.GOROOT != gotool.Root("go1.27.3") {
				t.Errorf("GOROOT = %q", tc.in.GoToolchain.GOROOT)
			}
		})
	}
}

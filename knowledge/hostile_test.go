package knowledge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// hostileTree is a source tree whose build files are FIFOs (a reader blocks for good)
// and links to /dev/zero (a reader never finishes), beside one real Makefile.am.
func hostileTree(t *testing.T) string {
	t.Helper()
	dir := writeTree(t, map[string]string{
		"configure.ac":  "AC_INIT([hostile], [1.0])\nAM_INIT_AUTOMAKE\nAC_PROG_CC\nAC_OUTPUT\n",
		"Makefile.am":   "SUBDIRS = x\n",
		"src/ok.c":      "int main(void) { return 0; }\n",
		"x/placeholder": "",
	})
	for _, p := range []string{"CMakeLists.txt", "README", "src/main.c", "meson.build"} {
		if err := syscall.Mkfifo(filepath.Join(dir, p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, target := range map[string]string{"x/Makefile.am": "/dev/zero", "src/zero.c": "../../../../../../../dev/zero", "go.mod": "/dev/zero"} {
		if err := os.Symlink(target, filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// within runs f and fails the test when it does not return in time.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("did not return within %v (blocked on a FIFO or reading /dev/zero)", d)
	}
}

func TestDetectHostileTree(t *testing.T) {
	dir := hostileTree(t)
	var det *atesor.Detection
	var err error
	var ev, ex string
	within(t, 20*time.Second, func() {
		det, err = Detect(context.Background(), dir)
		ev = Evidence(context.Background(), dir)
		ex = ErrorExcerpts("src/main.c:1: error: x\nsrc/zero.c:1: error: y\nsrc/ok.c:1: error: z\n", dir)
	})
	if err != nil {
		t.Fatal(err)
	}
	if det.BuildSystem != atesor.BuildAutotools {
		t.Errorf("build system %s (%s), want autotools from configure.ac", det.BuildSystem, det.Evidence)
	}
	if !strings.Contains(ev, "configure.ac") {
		t.Errorf("evidence lacks the real build file:\n%s", ev)
	}
	if !strings.Contains(ex, "src/ok.c") || strings.Contains(ex, "src/main.c") || strings.Contains(ex, "zero.c") {
		t.Errorf("excerpts:\n%s", ex)
	}
}

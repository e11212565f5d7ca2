package install

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCTestPrograms(t *testing.T) {
	// The shape of ctest --show-only=json-v1 (cmake 3.31), cut down.
	doc := `{"kind":"ctestInfo","version":{"major":1,"minor":0},"backtraceGraph":{},
	"tests":[{"name":"cJSON_test","command":["/workspace/cjson/build/cJSON_test"]},
	{"name":"parse_examples","command":["/workspace/cjson/build/tests/parse_examples","--x"]},
	{"name":"script","command":["/usr/bin/python3","/workspace/cjson/tests/run.py","/workspace/cjson/build/tests/../tests/misc_tests"]},
	{"name":"outside","command":["/workspace/cjsonother/x","/tmp/y"]},
	{"name":"nocmd"}]}`
	got := ctestPrograms([]byte(doc), "/workspace/cjson")
	want := []string{"/workspace/cjson/build/cJSON_test", "/workspace/cjson/build/tests/parse_examples",
		"/workspace/cjson/tests/run.py", "/workspace/cjson/build/tests/misc_tests"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := ctestPrograms([]byte("Test project /x\nNo tests"), "/workspace/cjson"); got != nil {
		t.Errorf("text output gave %v", got)
	}
}

func TestMesonTestPrograms(t *testing.T) {
	doc := `[{"name":"t1","cmd":["/workspace/pkg/builddir/tests/t1"],"suite":["pkg"]},
	{"name":"t2","cmd":["/workspace/pkg/builddir/tests/t2","arg"]},{"name":"t3","cmd":[]}]`
	want := []string{"/workspace/pkg/builddir/tests/t1", "/workspace/pkg/builddir/tests/t2"}
	if diff := cmp.Diff(want, mesonTestPrograms([]byte(doc), "/workspace/pkg")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCheckPrograms(t *testing.T) {
	tests := []struct {
		name, am string
		want     []string
	}{
		{"plain", "check_PROGRAMS = a b\n", []string{"a", "b"}},
		{"continued", "check_PROGRAMS = a \\\n\tb$(EXEEXT) \\\n  c\nTESTS = $(check_PROGRAMS)\n", []string{"a", "b", "c"}},
		{"append and conditional", "if X\ncheck_PROGRAMS += tests/x\nendif\ncheck_PROGRAMS = y # comment z\n", []string{"tests/x", "y"}},
		{"variables and escapes dropped", "check_PROGRAMS = $(EXTRA) ../up /abs @SUBST@ ok\n", []string{"ok"}},
		{"other variables", "bin_PROGRAMS = tool\nnoinst_PROGRAMS = helper\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, checkPrograms(tt.am)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestMatchesTestProgram(t *testing.T) {
	progs := map[string]bool{"/w/p/tests/t": true}
	for p, want := range map[string]bool{"/w/p/tests/t": true, "/w/p/tests/.libs/t": true, "/w/p/t": false, "/w/p/tests/.libs/u": false} {
		if got := matchesTestProgram(p, progs); got != want {
			t.Errorf("%s: %t, want %t", p, got, want)
		}
	}
}

func FuzzTestProgramMetadata(f *testing.F) {
	f.Add(`{"tests":[{"command":["/r/a"]}]}`, "check_PROGRAMS = a \\\n b\n")
	f.Add(`[{"cmd":["/r/../x"]}]`, "check_PROGRAMS += $(x) ../y\n")
	f.Fuzz(func(t *testing.T, doc, am string) {
		for _, p := range append(ctestPrograms([]byte(doc), "/r"), mesonTestPrograms([]byte(doc), "/r")...) {
			if len(p) < 3 || p[:3] != "/r/" {
				t.Fatalf("a path outside the repository: %q", p)
			}
		}
		for _, n := range checkPrograms(am) {
			if n == "" || n[0] == '/' || n == ".." || len(n) >= 3 && n[:3] == "../" {
				t.Fatalf("a name leaving the directory: %q", n)
			}
		}
	})
}

// TestAutomakeTestProgramsHostile: a source tree with x/Makefile.am -> /dev/zero and a
// FIFO y/Makefile.am beside a real one: the real one is read, the others refused, in
// time. (The plain walk with os.ReadFile read /dev/zero until memory ran out.)
func TestAutomakeTestProgramsHostile(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"x", "y", "z"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "x", "Makefile.am")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "y", "Makefile.am"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "z", "Makefile.am"), []byte("check_PROGRAMS = t1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan []string, 1)
	go func() { done <- automakeTestPrograms(ctx, dir, "/workspace/pkg") }()
	select {
	case got := <-done:
		if diff := cmp.Diff([]string{"/workspace/pkg/z/t1"}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("automakeTestPrograms did not return: it read the /dev/zero link or the FIFO")
	}
}

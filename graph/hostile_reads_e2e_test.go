package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// writeHostilePackage writes a tiny hostile package: files by relative path, and symbolic links
// (path -> target).
func writeHostilePackage(t *testing.T, name string, files map[string]string, links map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, target := range links {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, full); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runHostile ports src in the real sandbox with a deadline and a watch on the host's
// heap: an attack that makes the host read without bound, or block, fails the test
// instead of the machine.
func runHostile(t *testing.T, e *e2eEnv, prov atesor.Provider, src string, deadline time.Duration) (*atesor.Result, Report) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	var peak uint64
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			if ms.HeapAlloc > 2<<30 {
				cancel() // the host is reading without bound: stop before the machine does
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	start := time.Now()
	res, err := e.pipeline(t, prov).Run(ctx, atesor.Request{Source: src, MaxAttempts: 3, TestTimeout: 3 * time.Minute})
	close(stop)
	<-watched
	t.Logf("port ended in %s, status %s (%s), peak heap %d MiB: %s", time.Since(start).Round(time.Second), res.Status, res.FailureClass, peak>>20, excerpt.Head(res.Reason, 600))
	if err != nil {
		t.Fatalf("the port did not end with a status: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("the port hit its deadline or the heap watch (peak %d MiB): %v", peak>>20, ctx.Err())
	}
	if peak > 1<<30 {
		t.Errorf("peak heap %d MiB", peak>>20)
	}
	return res, e.report(t, res.Package)
}

// TestE2EHostileInterpELF: the source ships a 153-byte ELF whose PT_INTERP claims
// 64 GiB (read by the scan at init, before any build) and x/Makefile.am -> /dev/zero
// (read by detection and the test-program metadata); its build replaces the program it
// makes with that ELF. The old scan allocated 64 GiB and crashed the host process; the
// old metadata read never ended. Now the port ends not verified, naming the malformed
// program, with the host's heap small.
func TestE2EHostileInterpELF(t *testing.T) {
	e2e(t)
	e := newE2EEnv(t)
	bomb := string(sandboxtest.HostileELFs()[sandboxtest.InterpBomb])
	src := writeHostilePackage(t, "interpbomb", map[string]string{
		"main.c":          "int main(void) { return 0; }\n",
		"prebuilt/tool":   bomb,
		"bomb.bin":        bomb,
		"x/placeholder.c": "int placeholder;\n",
		"Makefile": "all: interpbomb\n" +
			"interpbomb: main.c\n\t$(CC) -O2 -o interpbomb main.c\n\tcp bomb.bin interpbomb\n\tchmod +x interpbomb\n" +
			"check:\n\ttrue\n.PHONY: all check\n",
	}, map[string]string{"x/Makefile.am": "/dev/zero"})
	res, rep := runHostile(t, e, nil, src, 20*time.Minute)
	if res.Verified {
		t.Fatalf("a port whose program is a malformed ELF verified")
	}
	want := "program interpreter claims 68719476736 bytes"
	if !strings.Contains(res.Reason+strings.Join(rep.VerifyProblems, "; "), want) {
		t.Errorf("neither the reason nor the verification problems say %q: %s / %v", want, res.Reason, rep.VerifyProblems)
	}
	var st atesor.State
	if b, err := os.ReadFile(filepath.Join(e.out, "interpbomb_state.json")); err == nil {
		_ = json.Unmarshal(b, &st)
	}
	shipped := false
	for _, s := range st.SourceELFs {
		shipped = shipped || strings.HasPrefix(s, "/workspace/interpbomb/prebuilt/tool@")
	}
	if !shipped {
		t.Errorf("the init scan did not record the shipped malformed ELF: %v", st.SourceELFs)
	}
}

// TestE2EHostileFIFOs: the package's first build makes config.log a FIFO and fails the
// way a configure run does when the compiler cannot create executables, which sends a
// scripted repair to config.log; the model's fix lets the second build pass; the
// program's smoke run then turns one static library the export check reads into a FIFO
// and the other into a link to /dev/zero. The old reads blocked atesor for good on the
// FIFOs and read the cached tree's real /dev/zero without end. Now the scripted rule gets
// past config.log to the model, the export check notes both refused libraries, and the
// port ends with a status.
func TestE2EHostileFIFOs(t *testing.T) {
	e2e(t)
	e := newE2EEnv(t)
	src := writeHostilePackage(t, "fifolib", map[string]string{
		"fifolib.h": "int fifolib_add(int a, int b);\nint fifolib_zero(void);\n",
		"fifolib.c": "#include \"fifolib.h\"\nint fifolib_add(int a, int b) { return a + b; }\n",
		"zero.c":    "#include \"fifolib.h\"\nint fifolib_zero(void) { return 0; }\n",
		"main.c": "#include <stdio.h>\n#include <sys/stat.h>\n#include <unistd.h>\n#include \"fifolib.h\"\n" +
			"int main(void) {\n\t/* the smoke run: the libraries the host reads next become a FIFO and a link to /dev/zero */\n" +
			"\tunlink(\"libfifolib.a\");\n\tmkfifo(\"libfifolib.a\", 0644);\n" +
			"\tunlink(\"libfifozero.a\");\n\tsymlink(\"../../dev/zero\", \"libfifozero.a\");\n" +
			"\tprintf(\"%d\\n\", fifolib_add(1, 2) + fifolib_zero());\n\treturn 0;\n}\n",
		"Makefile": "all: fifolib\n" +
			"libfifolib.a: fifolib.c fifolib.h\n\t$(CC) -O2 -c fifolib.c -o fifolib.o\n\tar rcs libfifolib.a fifolib.o\n" +
			"libfifozero.a: zero.c fifolib.h\n\t$(CC) -O2 -c zero.c -o zero.o\n\tar rcs libfifozero.a zero.o\n" +
			"fifolib: main.c libfifolib.a libfifozero.a\n" +
			"\t@if [ ! -e .retry ]; then rm -f config.log; mkfifo config.log; echo 'configure: error: C compiler cannot create executables' >&2; exit 77; fi\n" +
			"\t$(CC) -O2 -o fifolib main.c libfifolib.a libfifozero.a\n" +
			"check:\n\ttrue\n.PHONY: all check\n",
	}, nil)
	prov := fake.New()
	prov.Queue(atesor.RoleFixer, fixerAnswer(t, "retry the build", map[string]any{"type": "command", "command": "touch .retry"}))
	res, rep := runHostile(t, e, prov, src, 25*time.Minute)
	prompts := prov.Prompts(atesor.RoleFixer)
	if len(prompts) == 0 {
		t.Fatalf("the model was never asked: the run did not get past the scripted repair's read of config.log")
	}
	// The scripted rule read config.log (refused) and says it found nothing there.
	if p := fmt.Sprint(prompts[0]); !strings.Contains(p, "gcc14-permissive") || !strings.Contains(p, "config.log") {
		t.Errorf("the fixer's prompt does not carry the scripted rule's note on config.log")
	}
	if rep.Exports == nil {
		t.Fatalf("no export check in the report (status %s: %s)", res.Status, res.Reason)
	}
	notes := strings.Join(rep.Exports.Notes, "\n")
	for _, want := range []string{"libfifolib.a: could not be read", "is a FIFO", "libfifozero.a: could not be read"} {
		if !strings.Contains(notes, want) {
			t.Errorf("the export check's notes lack %q:\n%s", want, notes)
		}
	}
	if len(rep.Exports.Libraries) != 0 {
		t.Errorf("libraries read: %v", rep.Exports.Libraries)
	}
	if res.Status == "" {
		t.Errorf("no status")
	}
}

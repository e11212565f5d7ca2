package graph

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/replay"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// replayWith replays the harness's vecsum port in a fresh fake sandbox whose make
// plants program as vecsum.
func replayWith(t *testing.T, h *harness, program string, mutate func(*replay.Input)) (*replay.Result, *sandboxtest.Sandbox, error) {
	t.Helper()
	in, err := replay.ReadInputFrom(filepath.Join(h.out, "vecsum_recipe.md"), h.src)
	if err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(&in)
	}
	sb := sandboxtest.New(t, h.platform)
	if program != "" {
		sb.Add(sandboxtest.Rule{
			Match: func(c atesor.Command) bool { return strings.HasPrefix(c.Line, "make") },
			Do: func(sb *sandboxtest.Sandbox, _ atesor.Command) {
				copyFile(t, "../testdata/elf/"+program, filepath.Join(sb.Root(), "workspace/vecsum/vecsum"))
				copyFile(t, "../testdata/elf/libriscv64-math.a", filepath.Join(sb.Root(), "workspace/vecsum/libvecsum.a"))
			},
		})
	} else {
		sb.OnPrefix("make", sandboxtest.Fail(2, "vecsum.c:1: error: boom"))
	}
	p, err := New(Config{Sandbox: sb, Memory: h.mem, OutputDir: h.out})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Replay(context.Background(), in, "debian", filepath.Join(t.TempDir(), "replay"))
	return res, sb, err
}

func TestReplay(t *testing.T) {
	h := newHarness(t, false)
	h.builds(0, "riscv64-glibc-hello")
	if res := h.run(); !res.Verified {
		t.Fatalf("port: %s %s", res.Status, res.Reason)
	}
	t.Run("reproduced", func(t *testing.T) {
		res, sb, err := replayWith(t, h, "riscv64-glibc-hello", nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != replay.Reproduced || res.Compared == 0 || len(res.Differs) != 0 {
			t.Fatalf("replay = %+v", res)
		}
		ran := 0
		for _, c := range sb.Commands() {
			if strings.HasPrefix(c.Line, "make") {
				ran++
				if c.Dir != "/workspace/vecsum" || len(c.Env) == 0 || !strings.HasPrefix(c.Env[0], "SOURCE_DATE_EPOCH=") {
					t.Errorf("%q ran in %s with env %q", c.Line, c.Dir, c.Env)
				}
			}
		}
		if ran == 0 {
			t.Error("the recipe's make commands did not run")
		}
	})
	t.Run("differs", func(t *testing.T) {
		res, _, err := replayWith(t, h, "riscv64-glibc-hello-unstripped", nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != replay.Differs || len(res.Differs) != 1 || !strings.HasSuffix(res.Differs[0].Path, "/vecsum") || res.Differs[0].Got == "" {
			t.Fatalf("replay = %+v", res)
		}
	})
	t.Run("failed", func(t *testing.T) {
		res, _, err := replayWith(t, h, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != replay.Failed || !strings.Contains(res.Failure, "boom") {
			t.Fatalf("replay = %+v", res)
		}
	})
	t.Run("refused command", func(t *testing.T) {
		res, sb, err := replayWith(t, h, "riscv64-glibc-hello", func(in *replay.Input) {
			in.Recipe = strings.Replace(in.Recipe, "```atesor-commands\n", "```atesor-commands\nrm -rf /usr\n", 1)
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != replay.Failed || !strings.Contains(res.Failure, "refused") {
			t.Fatalf("replay = %+v", res)
		}
		for _, c := range sb.Commands() {
			if strings.Contains(c.Line, "rm -rf /usr") {
				t.Fatal("a tampered recipe's destructive command ran")
			}
		}
	})
	t.Run("source changed", func(t *testing.T) {
		_, _, err := replayWith(t, h, "riscv64-glibc-hello", func(in *replay.Input) { in.SourceSHA256 = strings.Repeat("0", 64) })
		if !errors.Is(err, replay.ErrSourceChanged) {
			t.Fatalf("a source with another hash replayed: %v", err)
		}
	})
	t.Run("no report", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "x_recipe.md")
		_ = os.WriteFile(p, []byte("# x"), 0o644)
		if _, err := replay.ReadInput(p); err == nil {
			t.Error("a recipe without its report was accepted")
		}
	})
}

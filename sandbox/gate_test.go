package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// plainSandbox hides every optional interface of the sandbox it wraps, as a backend that
// does not expose its tree on the host would.
type plainSandbox struct{ atesor.Sandbox }

func TestReadBounded(t *testing.T) {
	sb := sandboxtest.New(t, debianPlatform())
	root := sb.Root()
	mk := func(p string) string {
		h := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(h), 0o755); err != nil {
			t.Fatal(err)
		}
		return h
	}
	if err := os.WriteFile(mk("/workspace/pkg/build.log"), []byte(strings.Repeat("l", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mk("/usr/lib/libx.so.1"), []byte("ELF"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/usr/lib/libx.so.1", mk("/usr/lib/libx.so")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(mk("/workspace/pkg/config.log"), 0o644); err != nil {
		t.Fatal(err)
	}
	sb.SetRepo("pkg")
	log := sandbox.Bound{Kind: "log", Max: 99}
	tests := []struct {
		name string
		sb   atesor.Sandbox
		path string
		b    sandbox.Bound
		want string
		err  error
	}{
		{"link followed inside the tree", sb, "/usr/lib/libx.so", sandbox.BoundLibrary, "ELF", nil},
		{"over the bound, through the gate", sb, "/workspace/pkg/build.log", log, "", sandbox.ErrTooLarge},
		{"FIFO, through the gate", sb, "/workspace/pkg/config.log", sandbox.BoundConfigLog, "", sandbox.ErrNotRegular},
		{"over the bound, through ReadFile", plainSandbox{sb}, "/workspace/pkg/build.log", log, "", sandbox.ErrTooLarge},
		{"FIFO, through ReadFile", plainSandbox{sb}, "/workspace/pkg/config.log", sandbox.BoundConfigLog, "", sandbox.ErrNotRegular},
		{"at the bound, through ReadFile", plainSandbox{sb}, "/workspace/pkg/build.log", sandbox.Bound{Kind: "log", Max: 100}, strings.Repeat("l", 100), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			got, err := sandbox.ReadBounded(ctx, tt.sb, tt.path, tt.b)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("ReadBounded = %q, %v; want %v", got, err, tt.err)
				}
				if !strings.Contains(err.Error(), tt.path) {
					t.Errorf("error %q does not name %s", err, tt.path)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBounds: each kind's bound is what the gate enforces: a (sparse) file one byte over
// it is refused by its size alone, naming the path and the bound, and a file at the bound
// opens.
func TestBounds(t *testing.T) {
	dir := t.TempDir()
	g, err := sandbox.NewGate(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, b := range []sandbox.Bound{sandbox.BoundArtifact, sandbox.BoundLibrary, sandbox.BoundHeader, sandbox.BoundLog,
		sandbox.BoundConfigLog, sandbox.BoundMetadata, sandbox.BoundDpkgStatus, sandbox.BoundGoMod, sandbox.BoundTestOutput,
		sandbox.BoundSource, sandbox.BoundFile} {
		t.Run(b.Kind, func(t *testing.T) {
			if b.Max <= 0 || b.Kind == "" {
				t.Fatalf("bound %+v", b)
			}
			for _, size := range []int64{b.Max, b.Max + 1} {
				name := fmt.Sprintf("f%d", size)
				f, err := os.Create(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if err := f.Truncate(size); err != nil {
					t.Fatal(err)
				}
				f.Close()
				gf, err := g.Open(context.Background(), name, sandbox.NoFollow, b)
				if size == b.Max {
					if err != nil {
						t.Fatalf("a file at the bound: %v", err)
					}
					gf.Close()
					continue
				}
				var tl *sandbox.TooLargeError
				if !errors.As(err, &tl) || tl.Bound != b || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), fmt.Sprint(b.Max)) {
					t.Fatalf("a file over the bound: %v", err)
				}
			}
		})
	}
}

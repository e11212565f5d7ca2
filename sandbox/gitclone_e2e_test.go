package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// TestE2ESiblingRepositoryStaysOut clones local repositories through file:// in the
// root-filesystem sandbox, next to a private repository on the host:
//
//   - a plain repository clones (only its own directory is bound);
//
//   - one whose .gitmodules says url = ../private is refused with the reason, and the
//     private repository's secret is nowhere in the sandbox;
//
//   - one whose objects live in the private repository (objects/info/alternates, as
//     git clone --shared makes) does not clone: the private repository is not visible.
//
//     ATESOR_E2E=1 go test -count=1 -run '^TestE2ESiblingRepositoryStaysOut$' ./sandbox/
func TestE2ESiblingRepositoryStaysOut(t *testing.T) {
	needE2E(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	dir := t.TempDir()
	private := filepath.Join(dir, "private")
	gitRepo(t, private, map[string]string{"secret.txt": privateSecret})
	plain := filepath.Join(dir, "plain")
	gitRepo(t, plain, map[string]string{"README": "plain"})
	withSub := filepath.Join(dir, "public")
	gitRepo(t, withSub, map[string]string{"README": "public"})
	if err := os.WriteFile(filepath.Join(withSub, ".gitmodules"), []byte("[submodule \"private\"]\n\tpath = private\n\turl = ../private\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	head, err := exec.Command("git", "-C", private, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	gitRun(t, withSub, "update-index", "--add", "--cacheinfo", "160000,"+strings.TrimSpace(string(head))+",private")
	gitRun(t, withSub, "add", ".gitmodules")
	gitRun(t, withSub, "commit", "-q", "-m", "submodule")
	shared := filepath.Join(dir, "shared")
	gitRun(t, dir, "clone", "-q", "--shared", private, shared)

	sb := newE2ERootfs(t, ctx)
	defer sb.Close()
	start := time.Now()
	if err := sb.CopyIn(ctx, "file://"+plain, "/workspace/plain"); err != nil {
		t.Fatalf("a plain local repository does not clone: %v", err)
	}
	if _, err := sb.ReadFile(ctx, "/workspace/plain/README"); err != nil {
		t.Errorf("the plain clone lacks its README: %v", err)
	}
	t.Logf("plain clone in %s", time.Since(start).Round(time.Millisecond))

	start = time.Now()
	err = sb.CopyIn(ctx, "file://"+withSub, "/workspace/public")
	t.Logf("submodule ../private: %v (%s)", err, time.Since(start).Round(time.Millisecond))
	if !errors.Is(err, sandbox.ErrLocalSubmodule) || !strings.Contains(err.Error(), "../private") {
		t.Errorf("the sibling submodule was not refused with its reason: %v", err)
	}
	start = time.Now()
	err = sb.CopyIn(ctx, "file://"+shared, "/workspace/shared")
	t.Logf("alternates into the private repository: %v (%s)", err, time.Since(start).Round(time.Millisecond))
	if err == nil {
		t.Error("a repository whose objects are the private repository's cloned: the private repository is visible")
	}
	_ = filepath.WalkDir(filepath.Join(sb.Root(), "workspace"), func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(privateSecret)) {
			t.Errorf("the private repository's secret is in the sandbox: %s", p)
		}
		return nil
	})
	// Nothing of the host beside the repository is visible to a later command either.
	res, err := sb.Exec(ctx, atesor.Command{Line: "cat " + filepath.Join(private, "secret.txt"), Dir: "/"})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK() || strings.Contains(res.Output, privateSecret) {
		t.Errorf("the private repository is readable in the sandbox: %+v", res)
	}
}

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestResolveInRepoLinkOut: a link a build made with an absolute target is taken inside
// the sandbox and refused as outside the repository; ".." stays in sandbox coordinates.
func TestResolveInRepoLinkOut(t *testing.T) {
	root := t.TempDir()
	_ = os.MkdirAll(filepath.Join(root, "workspace", "pkg"), 0o755)
	// A link made by a build: absolute targets are taken inside the sandbox.
	_ = os.Symlink("/etc/passwd", filepath.Join(root, "workspace", "pkg", "evil"))
	_, err := resolveInRepo(root, "/workspace/pkg", "evil")
	if want := "/workspace/pkg/evil resolves to /etc/passwd, outside /workspace/pkg: path resolves outside the repository"; err == nil || err.Error() != want {
		t.Errorf("evil: %v, want %s", err, want)
	}
	if p, _ := resolveInRepo(root, "/workspace/pkg", "src/../main.c"); p != "/workspace/pkg/main.c" {
		t.Errorf("src/../main.c: %s, want /workspace/pkg/main.c", p)
	}
}

package osroot

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveAllStaysInside: a tree holding links to a directory outside the root is
// removed without a file outside being touched.
func TestRemoveAllStaysInside(t *testing.T) {
	outside := t.TempDir()
	keep := filepath.Join(outside, "authorized_keys")
	if err := os.WriteFile(keep, []byte("key"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	tree := filepath.Join(root, "pkg_artifacts")
	if err := os.MkdirAll(filepath.Join(tree, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "sub", "a"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(tree, "ssh")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "linked_artifacts")); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, rel := range []string{"pkg_artifacts", "linked_artifacts", "missing"} {
		if err := RemoveAll(r, rel); err != nil {
			t.Fatalf("RemoveAll(%s): %v", rel, err)
		}
		if _, err := os.Lstat(filepath.Join(root, rel)); !os.IsNotExist(err) {
			t.Errorf("%s still there: %v", rel, err)
		}
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "key" {
		t.Errorf("the file outside was touched: %q %v", b, err)
	}
}

package sandbox_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/eclipse-atesor/atesor-go/sandbox"
)

func ExampleResolveInRepo() {
	root, _ := os.MkdirTemp("", "sandbox-example-")
	defer os.RemoveAll(root)
	_ = os.MkdirAll(filepath.Join(root, "workspace", "pkg"), 0o755)
	// A link made by a build: absolute targets are taken inside the sandbox.
	_ = os.Symlink("/etc/passwd", filepath.Join(root, "workspace", "pkg", "evil"))
	_, err := sandbox.ResolveInRepo(root, "/workspace/pkg", "evil")
	fmt.Println(err)
	p, _ := sandbox.ResolveInRepo(root, "/workspace/pkg", "src/../main.c")
	fmt.Println(p)
	// Output:
	// /workspace/pkg/evil resolves to /etc/passwd, outside /workspace/pkg: path resolves outside the repository
	// /workspace/pkg/main.c
}

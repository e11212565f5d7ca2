package sandboxtest

import (
	"embed"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// Fixture is a real ELF file the package carries, so a whole-pipeline test with the fake
// sandbox needs no copied files: a build rule plants fixtures where the build would have
// made its artifacts, and the pipeline's ELF inspection and verification see real files.
type Fixture string

// The fixtures, all built from tiny C sources (see testdata/elf/README.md of the module).
const (
	// RISCV64Executable is a dynamically linked riscv64 glibc executable (lp64d, loader
	// /lib/ld-linux-riscv64-lp64d.so.1), built inside the Debian trixie riscv64 sandbox.
	RISCV64Executable Fixture = "riscv64-glibc-hello"
	// RISCV64SharedLibrary is a riscv64 shared library (lp64d) exporting add.
	RISCV64SharedLibrary Fixture = "libriscv64-add.so"
	// RISCV64StaticLibrary is a static archive of two riscv64 objects (add, mul).
	RISCV64StaticLibrary Fixture = "libriscv64-math.a"
	// X86_64Executable is an x86-64 executable: an artifact that must not verify.
	X86_64Executable Fixture = "x86_64-hello"
)

//go:embed fixtures
var fixtures embed.FS

// Fixtures lists every fixture.
func Fixtures() []Fixture {
	return []Fixture{RISCV64Executable, RISCV64SharedLibrary, RISCV64StaticLibrary, X86_64Executable}
}

// Bytes returns the fixture's content.
func (f Fixture) Bytes() ([]byte, error) {
	b, err := fixtures.ReadFile("fixtures/" + string(f))
	if err != nil {
		return nil, fmt.Errorf("sandboxtest: no fixture %q (use one of %v)", string(f), Fixtures())
	}
	return b, nil
}

// Plant writes the fixture at sandbox path p, executable, creating directories. A
// relative p is taken inside the repository (see [Sandbox.SetRepo]; the pipeline's init
// node sets it through CopyIn).
func (s *Sandbox) Plant(p string, f Fixture) error {
	b, err := f.Bytes()
	if err != nil {
		return err
	}
	if !path.IsAbs(p) {
		repo := s.repoDir()
		if repo == "" {
			return fmt.Errorf("sandboxtest: plant %s: a relative path needs the repository (SetRepo or CopyIn first)", p)
		}
		p = path.Join(repo, p)
	}
	host := filepath.Join(s.root, filepath.FromSlash(path.Clean(p)))
	if err := os.MkdirAll(filepath.Dir(host), 0o755); err != nil {
		return fmt.Errorf("sandboxtest: plant %s: %w", p, err)
	}
	if err := os.WriteFile(host, b, 0o755); err != nil {
		return fmt.Errorf("sandboxtest: plant %s: %w", p, err)
	}
	return nil
}

// BuildRule returns a rule for commands whose line starts with prefix (for example
// "make", or "cmake --build"): each matching command succeeds and plants files, sandbox
// paths (relative ones inside the repository) to fixtures, as a build would leave its
// artifacts. Set Times on the result to limit it.
func BuildRule(prefix string, files map[string]Fixture) Rule {
	return Rule{Match: func(c atesor.Command) bool { return strings.HasPrefix(c.Line, prefix) }, Plant: files}
}

// plant plants a rule's fixtures in path order.
func (s *Sandbox) plant(files map[string]Fixture) error {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if err := s.Plant(p, files[p]); err != nil {
			return err
		}
	}
	return nil
}

package crates

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"os"

	"github.com/eclipse-atesor/atesor-go/internal/debarchive"
	"github.com/eclipse-atesor/atesor-go/internal/decompress"
)

// LoadIndex reads the Packages index of one component and architecture of the suite c
// reads (main, riscv64) through the archive client: the suite's signed InRelease
// verified, the index checked against its hash, cached. The architecture's index is
// enough: Debian's per-architecture indexes also list the Architecture: all packages
// (the Release says No-Support-for-Architecture-all: Packages), and most librust
// packages are built per architecture anyway.
func LoadIndex(ctx context.Context, c *debarchive.Client, component, arch string) (*Index, error) {
	if arch == "" {
		return nil, fmt.Errorf("crates: the Packages index needs an architecture")
	}
	rel := cmp.Or(component, "main") + "/binary-" + arch + "/Packages.xz"
	file, err := c.Index(ctx, rel)
	if err != nil {
		return nil, fmt.Errorf("crates: the %s Packages index %s: %w", c.Suite, rel, err)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("crates: %w", err)
	}
	defer f.Close()
	zr, err := decompress.Reader(".xz", bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("crates: %s: %w", file, err)
	}
	defer zr.Close()
	ix, err := ParseIndex(zr)
	if err != nil {
		return nil, fmt.Errorf("crates: %s: %w", file, err)
	}
	return ix, ctx.Err()
}

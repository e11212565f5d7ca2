package graph

import (
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
)

const libmadFile = "libmad_0.15.1b.orig.tar.gz"

// TestE2EExportsMatchDebianLibraryWithoutSymbolsFile ports libmad 0.15.1b from Debian's
// archive (its 2004 configure adds -fforce-mem, which GCC 14 rejects: a scripted model
// removes the flag) and checks that the export check compared libmad.so.0 with the
// dynamic symbols of Debian's own riscv64 libmad0, whose binary package carries no
// symbols file, and found nothing missing. mad.h declares mad_bit_write, which libmad
// never defines and Debian's build does not export either: it is not asked of the port.
func TestE2EExportsMatchDebianLibraryWithoutSymbolsFile(t *testing.T) {
	tier.Long(t)
	e2e(t)
	e := newE2EEnv(t)
	src := debiantest.SourceTarball(t, "libmad", libmadFile)
	prov := fake.New()
	prov.Queue(atesor.RoleFixer, fixerAnswer(t, "drop -fforce-mem, which GCC removed long ago",
		map[string]any{"type": "command", "command": "sed -i s/-fforce-mem// configure"}))
	ec := distributionExports(t, e, prov, atesor.Request{Source: src, MaxAttempts: 5, TestTimeout: 3 * time.Minute}, "libmad", "libmad0")
	if !strings.Contains(ec.Distribution, "dynamic symbols") {
		t.Fatalf("exports = %+v", ec)
	}
	if !strings.Contains(strings.Join(ec.Notes, "\n"), "mad_bit_write") {
		t.Errorf("no note names mad_bit_write, declared and never defined: %q", ec.Notes)
	}
}

package verify

import (
	"bytes"
	"debug/elf"
	"errors"
	"runtime"
	"sort"
	"testing"

	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// allocated returns how many bytes f allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHostileELF: every hostile header is a malformed file (a problem on that artifact),
// never a crash, and reading it allocates a small fraction of what it claims.
func TestHostileELF(t *testing.T) {
	hostile := sandboxtest.HostileELFs()
	names := make([]string, 0, len(hostile))
	for n := range hostile {
		names = append(names, string(n))
	}
	sort.Strings(names)
	for _, name := range names {
		data := hostile[sandboxtest.HostileELF(name)]
		t.Run(name, func(t *testing.T) {
			var ierr, serr error
			n := allocated(func() {
				_, ierr = InspectELF(bytes.NewReader(data))
				_, serr = definedSymbols(bytes.NewReader(data))
			})
			for what, err := range map[string]error{"InspectELF": ierr, "definedSymbols": serr} {
				if !errors.Is(err, ErrMalformedELF) || !errors.Is(err, ErrNotELF) {
					t.Errorf("%s: err = %v, want ErrMalformedELF", what, err)
				}
			}
			if limit := uint64(len(data)) + 16<<20; n > limit {
				t.Errorf("reading a %d-byte file allocated %d bytes", len(data), n)
			}
		})
	}
}

// TestOldELFReadersWereAttackable: debug/elf alone holds a compressed section whole, so
// the 130 KB library makes a plain reader of its dynamic symbols allocate 128 MiB.
func TestOldELFReadersWereAttackable(t *testing.T) {
	data := sandboxtest.HostileELFs()[sandboxtest.CompressedStrtabBomb]
	n := allocated(func() {
		f, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = f.DynamicSymbols()
	})
	if n < 128<<20 {
		t.Fatalf("debug/elf allocated %d bytes for the dynamic symbols; the attack expects 128 MiB", n)
	}
	t.Logf("%d-byte file: debug/elf allocated %d MiB", len(data), n>>20)
}

// TestInterpBombShape: the interpreter bomb is what it claims to be, 153 bytes with a
// 64 GiB PT_INTERP that debug/elf accepts.
func TestInterpBombShape(t *testing.T) {
	data := sandboxtest.HostileELFs()[sandboxtest.InterpBomb]
	if len(data) != 153 {
		t.Errorf("%d bytes, want 153", len(data))
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Progs) != 1 || f.Progs[0].Type != elf.PT_INTERP || f.Progs[0].Filesz != 64<<30 {
		t.Fatalf("progs %+v", f.Progs)
	}
}

package verify

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// TestDefinedSymbolsOfRealRISCV64Libraries reads the fixtures built in the riscv64
// sandbox: a shared library's defined dynamic symbols, an archive's members' globals.
func TestDefinedSymbolsOfRealRISCV64Libraries(t *testing.T) {
	tests := []struct {
		file    string
		wantFn  []string
		notFn   []string
		wantErr error
	}{
		{file: "libriscv64-add.so", wantFn: []string{"add"}, notFn: []string{"mul", "printf"}},
		{file: "libriscv64-math.a", wantFn: []string{"add", "mul"}},
		{file: "riscv64-add.o", wantErr: nil, wantFn: []string{}}, // an object has no dynamic symbols
		{file: "libmixed.a", wantFn: []string{"add"}},
		{file: "script.sh", wantErr: ErrNotELF},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile("../testdata/elf/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			got, err := definedSymbols(bytes.NewReader(b))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantFn, got.Functions, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("functions (-want +got):\n%s", diff)
			}
			for _, n := range tt.wantFn {
				if !got.Defines(n) {
					t.Errorf("Defines(%q) = false", n)
				}
			}
			for _, n := range tt.notFn {
				if got.Defines(n) {
					t.Errorf("Defines(%q) = true for a symbol the library only uses or lacks", n)
				}
			}
		})
	}
}

// TestDefinedSymbolsTruncated: a damaged file is an error, never a panic or a guess.
func TestDefinedSymbolsTruncated(t *testing.T) {
	b, err := os.ReadFile("../testdata/elf/libriscv64-math.a")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{9, 70, len(b) / 2} {
		if _, err := definedSymbols(bytes.NewReader(b[:n])); err == nil {
			t.Errorf("truncated to %d bytes: no error", n)
		}
	}
}

func FuzzDefinedSymbols(f *testing.F) {
	for _, name := range []string{"libriscv64-add.so", "libriscv64-math.a", "riscv64-add.o"} {
		if b, err := os.ReadFile("../testdata/elf/" + name); err == nil {
			f.Add(b)
		}
	}
	for _, data := range sandboxtest.HostileELFs() {
		f.Add(data)
		f.Add(append([]byte("!<arch>\n"+arMember("bomb.o/", len(data))), data...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = definedSymbols(bytes.NewReader(data))
	})
}

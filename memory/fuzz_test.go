package memory_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/memory"
)

func seedBundled(f *testing.F) {
	entries, _ := fs.ReadDir(memory.Bundled(), ".")
	for _, e := range entries {
		b, _ := fs.ReadFile(memory.Bundled(), e.Name())
		f.Add(b)
	}
	f.Add([]byte(`{"version":"2.0","examples":[{"id":"a","x":1}],"y":[]}`))
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Add([]byte(`null`))
}

// FuzzParseExampleFile: parsing never panics, and whatever parses survives a rewrite:
// the rewritten file parses to the same examples.
func FuzzParseExampleFile(f *testing.F) {
	seedBundled(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ef, err := memory.ParseExampleFile(data)
		if err != nil {
			return
		}
		b, err := json.Marshal(ef)
		if err != nil {
			return // an Extra value that is not valid JSON cannot come from parsing
		}
		again, err := memory.ParseExampleFile(b)
		if err != nil {
			t.Fatalf("re-encoded file does not parse: %v\n%s", err, b)
		}
		if len(again.Examples) != len(ef.Examples) {
			t.Fatalf("%d examples after a round trip, want %d", len(again.Examples), len(ef.Examples))
		}
		q := atesor.Query{Sandbox: "debian-riscv64", BuildSystem: "cmake", ErrorMessage: string(data)}
		_ = memory.Rank(ef.Examples, q, 2)
	})
}

// FuzzCheckDuplicateKeys: never panics, and agrees with encoding/json on validity.
func FuzzCheckDuplicateKeys(f *testing.F) {
	seedBundled(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		err := memory.CheckDuplicateKeys(bytes.NewReader(data))
		if err == nil && !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
	})
}

// FuzzParseRecipeCache: never panics.
func FuzzParseRecipeCache(f *testing.F) {
	f.Add([]byte(`{"version":"1","entries":[{"package":"z","sandbox":"s"}]}`))
	f.Add([]byte(`{"version":"1","entries":[{"package":"z","sandbox":"s"},{"package":"z","sandbox":"s"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = memory.ParseRecipeCache(data)
	})
}

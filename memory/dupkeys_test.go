package memory_test

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go/memory"
)

func TestCheckDuplicateKeys(t *testing.T) {
	tests := []struct {
		in      string
		wantErr string
	}{
		{`{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}`, ""},
		{`[]`, ""},
		{`"x"`, ""},
		{`{"a":1,"a":2}`, `duplicate key "a" in the object at $`},
		{`{"examples":[{"id":"x"},{"id":"y","name":"n","name":"m"}]}`, `duplicate key "name" in the object at $.examples[1]`},
		{`{"a":{"b":{"c":1,"c":1}}}`, `$.a.b`},
		{`{"a":1`, "invalid JSON"},
		{`{"a":1} {"b":2}`, "data after the first value"},
		{``, "invalid JSON"},
	}
	for _, tc := range tests {
		err := memory.CheckDuplicateKeys(strings.NewReader(tc.in))
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("CheckDuplicateKeys(%s) = %v, want nil", tc.in, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("CheckDuplicateKeys(%s) = %v, want an error containing %q", tc.in, err, tc.wantErr)
		}
	}
}

func TestBundledFilesHaveNoDuplicateKeys(t *testing.T) {
	err := fs.WalkDir(memory.Bundled(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		b, err := fs.ReadFile(memory.Bundled(), p)
		if err != nil {
			return err
		}
		if err := memory.CheckDuplicateKeys(bytes.NewReader(b)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

package graph

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
)

// interruptAfterBuild runs the harness's port until the build node finished and returns
// the path of the saved state resume reads.
func interruptAfterBuild(t *testing.T, h *harness) string {
	t.Helper()
	h.builds(0, "riscv64-glibc-hello")
	ctx, cancel := context.WithCancel(context.Background())
	stopper := nodeFunc{NodeVerify, func(context.Context, *atesor.State) error { cancel(); return context.Canceled }}
	if _, err := h.pipeline(WithNode(NodeVerify, stopper)).Run(ctx, atesor.Request{Source: h.src}); err == nil {
		t.Fatal("the interrupted run returned no error")
	}
	matches, _ := filepath.Glob(filepath.Join(h.out, "runs", "*", "state.json"))
	if len(matches) != 1 {
		t.Fatalf("saved states: %v", matches)
	}
	return matches[0]
}

// rewriteState changes the saved state's JSON document with edit.
func rewriteState(t *testing.T, path string, edit func(map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	if b, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestResumeOfAVersion1State(t *testing.T) {
	h := newHarness(t, false)
	path := interruptAfterBuild(t, h)
	if st := h.state(); st.Version != atesor.StateVersion {
		t.Errorf("saved state_version = %d, want %d", st.Version, atesor.StateVersion)
	}
	// A state written before the version key existed has the same keys without it.
	rewriteState(t, path, func(doc map[string]any) { delete(doc, "state_version") })
	res, err := h.pipeline().Run(context.Background(), atesor.Request{Source: h.src, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Verified {
		t.Fatalf("resumed run status %s (%s)", res.Status, res.Reason)
	}
	if st := h.state(); st.Version != atesor.StateVersion {
		t.Errorf("the resumed run saved state_version %d, want %d", st.Version, atesor.StateVersion)
	}
}

func TestResumeRefusesANewerOrBrokenState(t *testing.T) {
	for name, tc := range map[string]struct {
		edit func(path string)
		want []string
	}{
		"newer": {func(path string) {
			rewriteState(t, path, func(doc map[string]any) { doc["state_version"] = atesor.StateVersion + 1 })
		}, []string{"format version 2", "reads versions up to 1", "without resume"}},
		"broken": {func(path string) {
			rewriteState(t, path, func(doc map[string]any) { doc["attempts"] = "three" })
		}, []string{"cannot be read", "without resume"}},
		"not json": {func(path string) {
			if err := os.WriteFile(path, []byte("{\"run_id\": "), 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{"cannot be read", "without resume"}},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, false)
			tc.edit(interruptAfterBuild(t, h))
			_, err := h.pipeline().Run(context.Background(), atesor.Request{Source: h.src, Resume: true})
			if err == nil {
				t.Fatal("the resume was accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestLoadStateVersion1Golden reads the state a verified port wrote before the state
// had parts.
func TestLoadStateVersion1Golden(t *testing.T) {
	st, err := loadState("../testdata/state-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	if st.RepoName != "vecsum" || st.LastNode != NodeFinish || !st.Verified || len(st.FixAttempts) != 1 || st.BuiltFixes != 1 {
		t.Errorf("state %+v", st)
	}
}

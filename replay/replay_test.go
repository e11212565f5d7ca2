package replay

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
)

// fakeSteps records the steps a replay takes and answers from its fields.
type fakeSteps struct {
	ran      []string
	patchErr error
	fail     string // the command that fails
	built    []atesor.Artifact
}

func (f *fakeSteps) Patch(_ context.Context, name, _ string) error {
	f.ran = append(f.ran, "patch: "+name)
	return f.patchErr
}

func (f *fakeSteps) PrepareGo(context.Context) error {
	f.ran = append(f.ran, "go")
	return nil
}

func (f *fakeSteps) Run(_ context.Context, line string) (atesor.CommandResult, bool, error) {
	f.ran = append(f.ran, line)
	if line == f.fail {
		return atesor.CommandResult{ExitCode: 2, Output: "x.c:1: error: boom\n"}, true, nil
	}
	return atesor.CommandResult{}, false, nil
}

func (f *fakeSteps) Artifacts(context.Context) ([]atesor.Artifact, error) { return f.built, nil }

var _ Steps = (*fakeSteps)(nil)

// TestExecute: patches first, the Go toolchain before the first go command, then the
// commands; the verdict compares the primary artifacts by path and SHA-256.
func TestExecute(t *testing.T) {
	want := []atesor.Artifact{{Path: "/workspace/x/x", SHA256: "aa", Role: atesor.ArtifactPrimary}}
	in := Input{Package: "x", Patches: []string{"diff"}, Artifacts: want}
	cmds := []string{"./configure", "go build ./..."}
	for _, tc := range []struct {
		name    string
		steps   fakeSteps
		verdict string
		ran     []string
	}{
		{"reproduced", fakeSteps{built: want}, Reproduced, []string{"patch: patch 1", "./configure", "go", "go build ./..."}},
		{"differs", fakeSteps{built: []atesor.Artifact{{Path: "/workspace/x/x", SHA256: "bb"}}}, Differs, nil},
		{"command failed", fakeSteps{fail: "./configure"}, Failed, []string{"patch: patch 1", "./configure"}},
		{"patch failed", fakeSteps{patchErr: errors.New("does not apply")}, Failed, []string{"patch: patch 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Execute(context.Background(), in, cmds, &tc.steps)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != tc.verdict || !cmp.Equal(res.Commands, cmds) {
				t.Fatalf("result %+v", res)
			}
			if tc.ran != nil {
				if d := cmp.Diff(tc.ran, tc.steps.ran); d != "" {
					t.Errorf("steps (-want +got):\n%s", d)
				}
			}
			switch tc.name {
			case "differs":
				if len(res.Differs) != 1 || res.Differs[0].Got != "bb" || res.Compared != 1 {
					t.Errorf("differs %+v", res.Differs)
				}
			case "command failed":
				if !strings.Contains(res.Failure, "`./configure` failed (exit 2)") || !strings.Contains(res.Failure, "boom") {
					t.Errorf("failure %q", res.Failure)
				}
			case "patch failed":
				if res.Failure != "does not apply" {
					t.Errorf("failure %q", res.Failure)
				}
			}
		})
	}
}

func TestCheckSource(t *testing.T) {
	in := Input{Source: "https://user:secret@downloads.test/x.tar.gz", SourceSHA256: "aa", SourceCommit: "c1"}
	if CheckSHA256(in, "aa") != nil || CheckCommit(in, "c1") != nil {
		t.Error("the same source was refused")
	}
	for _, got := range []string{"bb", ""} {
		err := CheckSHA256(in, got)
		if !errors.Is(err, ErrSourceChanged) || strings.Contains(err.Error(), "secret") {
			t.Errorf("source with SHA-256 %q: %v", got, err)
		}
	}
	if err := CheckCommit(in, "c2"); !errors.Is(err, ErrSourceChanged) {
		t.Errorf("another commit: %v", err)
	}
	if CheckSHA256(Input{}, "bb") != nil || CheckCommit(Input{}, "c2") != nil || CheckCommit(in, "") != nil {
		t.Error("refused with nothing to check against")
	}
}

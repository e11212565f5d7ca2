package graph

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// TestClearRunOutputs: an earlier run of the same name left <name>_artifacts as a link
// to a host directory and patches in a real folder. Starting a run removes both (the
// link itself, never what it points to) and leaves other packages' outputs alone.
func TestClearRunOutputs(t *testing.T) {
	out, host := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(host, "authorized_keys"), []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(host, filepath.Join(out, "pkg_artifacts")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(out, "pkg_patches", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(host, filepath.Join(out, "pkg_patches", "sub", "up")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "other_report.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := clearRunOutputs(out, "pkg"); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"pkg_artifacts", "pkg_patches"} {
		if _, err := os.Lstat(filepath.Join(out, n)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there: %v", n, err)
		}
	}
	if data, err := os.ReadFile(filepath.Join(host, "authorized_keys")); err != nil || string(data) != "keep" {
		t.Errorf("the host directory behind the link changed: %q %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(out, "other_report.json")); err != nil {
		t.Error(err)
	}
}

// TestCopyArtifacts copies three primary artifacts out of the fake sandbox: the one
// still as verified comes out; the one the tests changed after verification and the
// one they replaced by a link to /dev/zero do not, and each is a hostile copy by name.
// The bounds name the settings that raise them.
func TestCopyArtifacts(t *testing.T) {
	sb := sandboxtest.New(t, atesor.Platform{})
	repo := filepath.Join(sb.Root(), "workspace", "pkg")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, data string) string {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(data))
		return hex.EncodeToString(sum[:])
	}
	good := write("good", "verified")
	changedSum := write("changed", "verified")
	write("changed", "changed by the tests")
	zeroSum := write("zero", "verified")
	os.Remove(filepath.Join(repo, "zero"))
	if err := os.Symlink("/dev/zero", filepath.Join(repo, "zero")); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	s := &atesor.State{
		RunPart: atesor.RunPart{RepoName: "pkg", RepoDir: "/workspace/pkg", Request: atesor.Request{OutputDir: out}},
	}
	for _, a := range []struct{ name, sum string }{{"good", good}, {"changed", changedSum}, {"zero", zeroSum}} {
		s.Artifacts = append(s.Artifacts, atesor.Artifact{Path: "/workspace/pkg/" + a.name, SHA256: a.sum, Role: atesor.ArtifactPrimary})
	}
	r := &run{state: s, sb: sb, copyBudget: sandbox.NewCopyBudget(Config{}.copyLimits())}
	err := r.copyArtifacts(t.Context(), s)
	if err == nil || !hostileCopy(err) {
		t.Fatalf("got %v, want the changed and the linked artifact refused", err)
	}
	for _, want := range []string{"/workspace/pkg/changed changed after it was verified", "/workspace/pkg/zero", "symbolic link"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if data, err := os.ReadFile(filepath.Join(out, "pkg_artifacts", "good")); err != nil || string(data) != "verified" {
		t.Errorf("good artifact: %q %v", data, err)
	}
	for _, n := range []string{"changed", "zero"} {
		if _, err := os.Lstat(filepath.Join(out, "pkg_artifacts", n)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s came out: %v", n, err)
		}
	}

	r.copyBudget = sandbox.NewCopyBudget(Config{ArtifactMaxBytes: 4}.copyLimits())
	s.Artifacts = s.Artifacts[:1]
	err = r.copyArtifacts(t.Context(), s)
	if !hostileCopy(err) || !strings.Contains(err.Error(), "ATESOR_COPY_MAX_FILE_BYTES") {
		t.Fatalf("per-artifact bound: %v", err)
	}
}

package sandbox

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go/internal/archive"
)

// A porter's checkout with credentials next to the sources: before the filter every one
// of these reached /workspace, where the package's scripts run as root.
func TestCopyInKeepsSecretFilesOut(t *testing.T) {
	src := t.TempDir()
	files := map[string]bool{ // path -> copied
		"src/main.c":              true,
		".env":                    false,
		".env.local":              false,
		".env.production":         false,
		".env.example":            true,
		"config/.env.sample":      true,
		".netrc":                  false,
		"sub/.git-credentials":    false,
		".npmrc":                  false,
		"keys/id_rsa":             false,
		"keys/id_rsa.pub":         true,
		"keys/id_ed25519":         false,
		".ssh/config":             false,
		".aws/credentials":        false,
		"docs/credentials.md":     true,
		"tests/env/.envrc":        true,
		"gcloud/credentials.json": false,
	}
	for p := range files {
		full := filepath.Join(src, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("OPENAI_API_KEY=sk-attack\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var logged bytes.Buffer
	dest := t.TempDir()
	if err := copyInHost(t.Context(), src, dest, archive.Limits{}, slog.New(slog.NewTextHandler(&logged, nil))); err != nil {
		t.Fatal(err)
	}
	for p, want := range files {
		_, err := os.Lstat(filepath.Join(dest, p))
		if got := err == nil; got != want {
			t.Errorf("%s copied = %v, want %v", p, got, want)
		}
		if !want && !strings.Contains(logged.String(), "path="+filepath.Dir(p)) && !strings.Contains(logged.String(), "path="+p) {
			t.Errorf("skipping %s was not logged:\n%s", p, logged.String())
		}
	}
}

func TestIsSecretFile(t *testing.T) {
	for _, tc := range []struct {
		name string
		dir  bool
		want bool
	}{
		{".env", false, true}, {".env.test", false, true}, {".env.EXAMPLE", false, false},
		{".env", true, false}, {".ssh", true, true}, {".ssh", false, false},
		{"id_ecdsa_sk", false, true}, {"id_rsa.pub", false, false}, {"env", false, false},
		{"credentials", false, false}, {".gnupg", true, true}, {"Makefile", false, false},
	} {
		if got := isSecretFile(tc.name, tc.dir); got != tc.want {
			t.Errorf("isSecretFile(%q, dir=%v) = %v, want %v", tc.name, tc.dir, got, tc.want)
		}
	}
}

// A repository cloned with a token in its URL keeps the token in .git/config (and a
// submodule's in .git/modules/*/config) where the build can read it.
func TestScrubGitCredentials(t *testing.T) {
	repo := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(repo, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".git/config", "[remote \"origin\"]\n\turl = https://user:tok3n@git.example.invalid/o/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n")
	write(".git/modules/lib/config", "[remote \"origin\"]\n\turl = https://ghp_tok3n@git.example.invalid/o/lib.git\n")
	write(".git/logs/HEAD", "0000 1111 A <a@b.c> 1 +0000\tclone: from https://user:tok3n@git.example.invalid/o/r.git\n")
	write(".git/FETCH_HEAD", "abc\t\tbranch 'main' of ssh://git:tok3n@git.example.invalid/o/r\n")
	write(".git/objects/pack/x.pack", "binary https://user:tok3n@h/ stays")
	write("README", "mail me at https://user:tok3n@h/ -- not git metadata, the package's own text")
	if err := scrubGitCredentials(repo); err != nil {
		t.Fatal(err)
	}
	for rel, keep := range map[string]bool{".git/config": false, ".git/modules/lib/config": false, ".git/logs/HEAD": false,
		".git/FETCH_HEAD": false, ".git/objects/pack/x.pack": true, "README": true} {
		data, _ := os.ReadFile(filepath.Join(repo, rel))
		if got := strings.Contains(string(data), "tok3n"); got != keep {
			t.Errorf("%s still holds the token = %v, want %v:\n%s", rel, got, keep, data)
		}
	}
	cfg, _ := os.ReadFile(filepath.Join(repo, ".git/config"))
	if !strings.Contains(string(cfg), "url = https://git.example.invalid/o/r.git") {
		t.Errorf("the remote URL was not kept without its credentials:\n%s", cfg)
	}
	fh, _ := os.ReadFile(filepath.Join(repo, ".git/FETCH_HEAD"))
	if !strings.Contains(string(fh), "ssh://git@git.example.invalid/o/r") {
		t.Errorf("an ssh URL lost its user name:\n%s", fh)
	}
}

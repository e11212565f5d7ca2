package sandbox

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/redact"
)

// The sandbox runs the package's own scripts as root: whatever is copied in can be read by
// them and, with network on, sent anywhere. A porter's checkout often holds credentials
// next to the sources (a .env with provider keys, an SSH key, a token in the git remote),
// none of which a build needs. These are kept out of the sandbox by name, and git
// metadata is scrubbed of credentials in URLs.

// secretDirs are directories that hold credentials as a whole.
var secretDirs = map[string]bool{".ssh": true, ".gnupg": true, ".aws": true, ".azure": true, ".docker": true, ".kube": true}

// secretFiles are file names that hold credentials wherever they appear.
var secretFiles = map[string]bool{
	".env": true, ".netrc": true, "_netrc": true, ".git-credentials": true, ".npmrc": true,
	".pypirc": true, ".pgpass": true, ".my.cnf": true, ".s3cfg": true, ".boto": true,
	"credentials.json": true, "application_default_credentials.json": true,
	"id_rsa": true, "id_dsa": true, "id_ecdsa": true, "id_ed25519": true, "id_ecdsa_sk": true, "id_ed25519_sk": true,
}

// envTemplates are .env.* suffixes that name documented examples, not secrets.
var envTemplates = map[string]bool{"example": true, "sample": true, "template": true, "dist": true, "defaults": true}

// isSecretFile reports whether a source-tree entry with base name name is kept out of the
// sandbox: a .env file (but not .env.example and the like), a credentials file (.netrc,
// .git-credentials, .npmrc, .pypirc, an SSH private key, ...) or a directory of them
// (.ssh, .gnupg, .aws, ...).
func isSecretFile(name string, dir bool) bool {
	if dir {
		return secretDirs[name]
	}
	if secretFiles[name] {
		return true
	}
	if rest, ok := strings.CutPrefix(name, ".env."); ok {
		return !envTemplates[strings.ToLower(rest)]
	}
	return false
}

// skipSecrets is the copy-in filter: it logs and skips what [isSecretFile] names.
func skipSecrets(logger *slog.Logger) func(rel string, d fs.DirEntry) bool {
	return func(rel string, d fs.DirEntry) bool {
		if !isSecretFile(d.Name(), d.IsDir()) {
			return false
		}
		if logger != nil {
			logger.Warn("sandbox: not copying a secret-looking file into the sandbox", "path", rel)
		}
		return true
	}
}

// gitMetadataBound bounds one file of a clone's git metadata that is scrubbed: larger
// files are not text git writes URLs into.
var gitMetadataBound = Bound{Kind: "git metadata file", Max: 4 << 20}

// scrubGitCredentials removes user information from every URL in a repository's git
// metadata (config, reflogs, FETCH_HEAD, and the same in submodules under .git/modules),
// so a repository cloned with a token keeps no copy of it where the build can read it.
// The object store is not text and is skipped.
func scrubGitCredentials(repo string) error {
	gitDir := filepath.Join(repo, ".git")
	if fi, err := os.Lstat(gitDir); err != nil || !fi.IsDir() {
		return nil
	}
	g, err := NewGate(gitDir)
	if err != nil {
		return err
	}
	defer g.Close()
	ctx := context.Background()
	return g.WalkDir(ctx, "/", func(sp string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "objects" {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > gitMetadataBound.Max {
			return err
		}
		data, err := g.ReadFile(ctx, sp, NoFollow, gitMetadataBound)
		if err != nil {
			return err
		}
		p := filepath.Join(gitDir, filepath.FromSlash(sp))
		if !bytes.Contains(data, []byte("@")) {
			return nil
		}
		clean := redact.Bytes(data)
		if bytes.Equal(clean, data) {
			return nil
		}
		return os.WriteFile(p, clean, info.Mode().Perm())
	})
}

package sandbox

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
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

// IsSecretFile reports whether a source-tree entry with base name name is kept out of the
// sandbox: a .env file (but not .env.example and the like), a credentials file (.netrc,
// .git-credentials, .npmrc, .pypirc, an SSH private key, ...) or a directory of them
// (.ssh, .gnupg, .aws, ...).
func IsSecretFile(name string, dir bool) bool {
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

// skipSecrets is the copy-in filter: it logs and skips what [IsSecretFile] names.
func skipSecrets(logger *slog.Logger) func(rel string, d fs.DirEntry) bool {
	return func(rel string, d fs.DirEntry) bool {
		if !IsSecretFile(d.Name(), d.IsDir()) {
			return false
		}
		if logger != nil {
			logger.Warn("sandbox: not copying a secret-looking file into the sandbox", "path", rel)
		}
		return true
	}
}

// urlUserinfo matches the user information of a URL (https://user:token@host), up to
// the last @ of the authority, as URL parsers read it.
var urlUserinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/?#\s"']*@`)

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
		clean := scrubURLs(data)
		if bytes.Equal(clean, data) {
			return nil
		}
		return os.WriteFile(p, clean, info.Mode().Perm())
	})
}

// scrubURLs drops the user information of every URL in text, keeping an ssh URL's user
// name (git@host is an address, not a secret).
func scrubURLs(text []byte) []byte {
	return urlUserinfo.ReplaceAllFunc(text, func(m []byte) []byte {
		i := bytes.Index(m, []byte("://"))
		scheme := strings.ToLower(string(m[:i]))
		user := m[i+3 : len(m)-1]
		if scheme == "ssh" || scheme == "git+ssh" {
			if j := bytes.IndexByte(user, ':'); j >= 0 {
				return append(append(append([]byte{}, m[:i+3]...), user[:j]...), '@')
			}
			return m
		}
		return m[:i+3]
	})
}

// RedactURLs returns s with the credentials of every URL in it removed
// (https://user:token@host becomes https://host; an ssh URL keeps its user name), for
// the text of errors, logs and reports.
func RedactURLs(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	return string(scrubURLs([]byte(s)))
}

func redactURL(s string) string { return RedactURLs(s) }

// RedactError returns err with the credentials of every URL in its text removed; the
// result still wraps err for errors.Is and errors.As.
func RedactError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := RedactURLs(msg); red != msg {
		return redactedError{msg: red, err: err}
	}
	return err
}

// redactedError keeps the wrapped error for errors.Is/As and shows the redacted text.
type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

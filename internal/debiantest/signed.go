package debiantest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ulikunitz/xz"

	"github.com/eclipse-atesor/atesor-go/internal/hostenv"
)

// Signer is a throwaway OpenPGP key made with the host's gpg in a temporary GNUPGHOME,
// for tests that need a genuine signature by a key of a keyring: Keyring holds its
// public key, as the Debian archive keyring holds the archive's.
type Signer struct {
	home    string
	Keyring string
}

// NewSigner makes a signing key (ed25519, no passphrase). It skips the test when gpg is
// not installed, and removes the key and stops gpg's agent when the test ends.
func NewSigner(t testing.TB, name string) *Signer {
	t.Helper()
	if _, err := exec.LookPath("gpg"); err != nil {
		t.Skip("gpg is not installed (apt-get install gpg): no throwaway key to sign a test archive with")
	}
	if _, err := exec.LookPath("gpgv"); err != nil {
		t.Skip("gpgv is not installed (apt-get install gpgv)")
	}
	// A short directory: gpg-agent's socket path must fit in a socket address.
	home, err := os.MkdirTemp("", "gpg")
	if err != nil {
		t.Fatal(err)
	}
	s := &Signer{home: home, Keyring: filepath.Join(home, "keyring.gpg")}
	t.Cleanup(func() {
		c := exec.Command("gpgconf", "--kill", "gpg-agent")
		c.Env = hostenv.Environ("GNUPGHOME=" + home)
		_ = c.Run()
		os.RemoveAll(home)
	})
	s.gpg(t, nil, "--quick-generate-key", name+" <archive@example.invalid>", "ed25519", "sign", "never")
	pub := s.gpg(t, nil, "--export")
	if err := os.WriteFile(s.Keyring, pub, 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *Signer) gpg(t testing.TB, stdin []byte, args ...string) []byte {
	t.Helper()
	c := exec.Command("gpg", append([]string{"--batch", "--quiet", "--pinentry-mode", "loopback", "--passphrase", ""}, args...)...)
	c.Env = hostenv.Environ("GNUPGHOME=" + s.home)
	c.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("gpg %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// ClearSign returns text inline-signed (an InRelease).
func (s *Signer) ClearSign(t testing.TB, text []byte) []byte {
	t.Helper()
	return s.gpg(t, text, "--digest-algo", "SHA256", "--clearsign")
}

// DetachSign returns a detached binary signature of data (a Release.gpg).
func (s *Signer) DetachSign(t testing.TB, data []byte) []byte {
	t.Helper()
	return s.gpg(t, data, "--digest-algo", "SHA256", "--detach-sign")
}

// Archive is a Debian archive served by httptest: the files of a suite and its pool,
// with an InRelease over the dists files signed by a throwaway key. Files served may be
// replaced after signing (Serve) to play a mirror that tampers.
type Archive struct {
	// URL is the mirror's base URL.
	URL string
	// Suite is the suite whose InRelease it serves.
	Suite string
	// Signer signed the InRelease.
	Signer *Signer

	mu       sync.Mutex
	files    map[string][]byte
	requests map[string]int // by path
	total    atomic.Int32
}

// NewArchive serves files (paths relative to the mirror's root: dists/SUITE/...,
// pool/...) with dists/SUITE/InRelease listing every file below dists/SUITE/ (SHA256),
// dated date, signed by signer.
func NewArchive(t testing.TB, signer *Signer, suite string, date time.Time, files map[string][]byte) *Archive {
	t.Helper()
	a := &Archive{Suite: suite, Signer: signer, files: map[string][]byte{}, requests: map[string]int{}}
	for k, v := range files {
		a.files[k] = v
	}
	a.files["dists/"+suite+"/InRelease"] = signer.ClearSign(t, a.Release(suite, "", date, nil))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.total.Add(1)
		p := strings.TrimPrefix(r.URL.Path, "/")
		a.mu.Lock()
		a.requests[p]++
		b, ok := a.files[p]
		a.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	a.URL = srv.URL
	return a
}

// Release is the text of a Release file for the archive's dists files: Suite and
// Codename suite, the date, extra fields (a Valid-Until, say) and the SHA256 list.
func (a *Archive) Release(suite, extra string, date time.Time, files map[string][]byte) []byte {
	if files == nil {
		a.mu.Lock()
		files = map[string][]byte{}
		for k, v := range a.files {
			files[k] = v
		}
		a.mu.Unlock()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Origin: Debian\nLabel: Debian\nSuite: %s\nCodename: %s\nDate: %s\n%sAcquire-By-Hash: no\nSHA256:\n",
		suite, suite, date.UTC().Format(time.RFC1123), extra)
	prefix := "dists/" + a.Suite + "/"
	var names []string
	for k := range files {
		if strings.HasPrefix(k, prefix) && !strings.HasSuffix(k, "/InRelease") && !strings.HasSuffix(k, "/Release") && !strings.HasSuffix(k, "/Release.gpg") {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		h := sha256.Sum256(files[k])
		fmt.Fprintf(&b, " %s %d %s\n", hex.EncodeToString(h[:]), len(files[k]), strings.TrimPrefix(k, prefix))
	}
	return []byte(b.String())
}

// Serve replaces (or, with nil, removes) what the archive serves at p.
func (a *Archive) Serve(p string, b []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if b == nil {
		delete(a.files, p)
		return
	}
	a.files[p] = b
}

// File returns what the archive serves at p.
func (a *Archive) File(p string) []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.files[p]
}

// Requested returns how often p was asked for.
func (a *Archive) Requested(p string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.requests[p]
}

// Total returns the number of requests.
func (a *Archive) Total() int { return int(a.total.Load()) }

// XZ compresses b with xz, as the archive's Sources.xz and Packages.xz are.
func XZ(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := xz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

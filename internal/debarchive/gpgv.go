package debarchive

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/hostenv"
)

// DefaultKeyring is the Debian archive keyring of the debian-archive-keyring package.
const DefaultKeyring = "/usr/share/keyrings/debian-archive-keyring.gpg"

// ErrBadSignature is wrapped by every error of a signature that does not verify.
var ErrBadSignature = errors.New("no valid signature by a key of the Debian archive keyring")

// Verifier checks the OpenPGP signature of a Release file.
type Verifier interface {
	// Verify checks signed: an inline-signed InRelease when detached is nil, else a
	// Release file and its detached signature (Release.gpg). It returns the text that
	// the signature covers, and only that: text around the signed part is dropped.
	Verify(ctx context.Context, signed, detached []byte) ([]byte, error)
}

// GPGV verifies with the host's gpgv. A signature counts when gpgv reports it good and
// valid (GOODSIG and VALIDSIG), made with a digest stronger than SHA-1, by a key of the
// keyrings that is neither expired nor revoked; one such signature is needed (an
// InRelease carries several, for old and new keys, and a key missing from an older
// keyring is no failure), and any bad signature refuses the file, as apt does.
type GPGV struct {
	// Keyrings are the keyring files (default [DefaultKeyring]).
	Keyrings []string
	// Program is the gpgv to run (default gpgv from PATH).
	Program string
}

var _ Verifier = GPGV{}

// Verify implements [Verifier].
func (g GPGV) Verify(ctx context.Context, signed, detached []byte) ([]byte, error) {
	keyrings := g.Keyrings
	if len(keyrings) == 0 {
		keyrings = []string{DefaultKeyring}
	}
	for _, k := range keyrings {
		if _, err := os.Stat(k); err != nil {
			return nil, fmt.Errorf("the archive keyring %s: %w (install the debian-archive-keyring package)", k, err)
		}
	}
	prog := g.Program
	if prog == "" {
		var err error
		if prog, err = exec.LookPath("gpgv"); err != nil {
			return nil, fmt.Errorf("gpgv, which verifies the Debian archive's signatures, is not installed (install the gpgv package): %w", err)
		}
	}
	dir, err := os.MkdirTemp("", "atesor-gpgv-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	data := filepath.Join(dir, "data")
	if err := os.WriteFile(data, signed, 0o600); err != nil {
		return nil, err
	}
	args := []string{"--status-fd", "3"}
	for _, k := range keyrings {
		args = append(args, "--keyring", k)
	}
	out := filepath.Join(dir, "out")
	if detached == nil {
		args = append(args, "--output", out, data)
	} else {
		sig := filepath.Join(dir, "data.gpg")
		if err := os.WriteFile(sig, detached, 0o600); err != nil {
			return nil, err
		}
		args = append(args, sig, data)
	}
	sr, sw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.ExtraFiles = []*os.File{sw}
	cmd.Env = hostenv.Only([]string{"PATH"}, "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		sr.Close()
		sw.Close()
		return nil, fmt.Errorf("run gpgv: %w", err)
	}
	sw.Close()
	status, _ := readAll(sr)
	sr.Close()
	runErr := cmd.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err := judgeStatus(status); err != nil {
		return nil, fmt.Errorf("%w: %v (%s)", ErrBadSignature, err, strings.TrimSpace(lastLines(stderr.String(), 3)))
	}
	if runErr != nil && detached != nil {
		// A detached check has no output to lose; gpgv's own verdict must agree too.
		return nil, fmt.Errorf("%w: gpgv %v (%s)", ErrBadSignature, runErr, strings.TrimSpace(lastLines(stderr.String(), 3)))
	}
	if detached != nil {
		return signed, nil
	}
	text, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("%w: gpgv wrote no signed text: %v", ErrBadSignature, err)
	}
	return text, nil
}

func readAll(f *os.File) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(f)
	return b.Bytes(), err
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "; ")
}

// weakDigests are the OpenPGP hash algorithms a signature may not use: MD5, SHA-1,
// RIPEMD-160 (collisions can be made for the first two; apt refuses all three).
var weakDigests = map[string]bool{"1": true, "2": true, "3": true}

// judgeStatus decides on gpgv's status lines (--status-fd): nil when at least one
// signature is good, valid, by a live key and with a strong digest, and none is bad.
func judgeStatus(status []byte) error {
	type sig struct {
		good, valid, weak bool
		why               string
	}
	var sigs []*sig
	cur := func() *sig {
		if len(sigs) == 0 {
			sigs = append(sigs, &sig{})
		}
		return sigs[len(sigs)-1]
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || f[0] != "[GNUPG:]" {
			continue
		}
		switch f[1] {
		case "NEWSIG":
			sigs = append(sigs, &sig{})
		case "GOODSIG":
			cur().good = true
		case "VALIDSIG":
			s := cur()
			s.valid = true
			if len(f) > 9 && weakDigests[f[9]] {
				s.weak, s.why = true, "a signature uses a weak digest"
			}
		case "BADSIG":
			return errors.New("a signature does not match the file (BADSIG): the file was changed after it was signed")
		case "EXPKEYSIG":
			cur().why = "signed by an expired key"
		case "REVKEYSIG":
			cur().why = "signed by a revoked key"
		case "EXPSIG":
			cur().why = "an expired signature"
		case "ERRSIG", "NO_PUBKEY":
			if cur().why == "" {
				cur().why = "signed by a key that is not in the keyring"
			}
		}
	}
	reasons := []string{}
	for _, s := range sigs {
		if s.good && s.valid && !s.weak && (s.why == "" || s.why == "signed by a key that is not in the keyring") {
			return nil
		}
		if s.why != "" {
			reasons = append(reasons, s.why)
		}
	}
	if len(sigs) == 0 {
		return errors.New("the file carries no signature")
	}
	if len(reasons) == 0 {
		reasons = append(reasons, "no good signature")
	}
	return errors.New(strings.Join(reasons, "; "))
}

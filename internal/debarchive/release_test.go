package debarchive

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var (
	hashA = strings.Repeat("a", 64)
	hashB = strings.Repeat("b", 64)
)

func TestParseRelease(t *testing.T) {
	head := "Origin: Debian\nSuite: stable\nCodename: trixie\nDate: Sat, 21 Nov 2026 09:15:44 UTC\n"
	tests := []struct {
		name string
		text string
		want *Release
		err  string
	}{
		{name: "a real shape", text: head + "Acquire-By-Hash: yes\nMD5Sum:\n 3e498904a30e240573dac8ddac594e6f 1 main/source/Sources.xz\nSHA256:\n " +
			hashA + " 10538456 main/source/Sources.xz\n " + hashB + " 12 main/binary-riscv64/Packages.xz\n",
			want: &Release{Suite: "stable", Codename: "trixie", Date: time.Date(2026, 11, 21, 9, 15, 44, 0, time.UTC), ByHash: true,
				Files: map[string]FileHash{"main/source/Sources.xz": {hashA, 10538456}, "main/binary-riscv64/Packages.xz": {hashB, 12}}}},
		{name: "numeric zone and Valid-Until", text: "Suite: sid\nDate: Sat, 21 Nov 2026 09:15:44 +0000\nValid-Until: Sat, 28 Nov 2026 09:15:44 +0000\nSHA256:\n " + hashA + " 1 main/Contents-all.gz\n",
			want: &Release{Suite: "sid", Date: time.Date(2026, 11, 21, 9, 15, 44, 0, time.UTC), ValidUntil: time.Date(2026, 11, 28, 9, 15, 44, 0, time.UTC),
				Files: map[string]FileHash{"main/Contents-all.gz": {hashA, 1}}}},
		{name: "unsafe and malformed lines skipped", text: head + "SHA256:\n " + hashA + " 1 ../../etc/passwd\n " + hashA + " 1 /abs\n " + hashA +
			" -1 neg\n " + strings.ToUpper(hashA) + " 1 upper\n abc 1 short\n " + hashA + " 1 a/./b\n " + hashB + " 2 main/ok\n",
			want: &Release{Suite: "stable", Codename: "trixie", Date: time.Date(2026, 11, 21, 9, 15, 44, 0, time.UTC),
				Files: map[string]FileHash{"main/ok": {hashB, 2}}}},
		{name: "no suite", text: "Date: Sat, 21 Nov 2026 09:15:44 UTC\nSHA256:\n " + hashA + " 1 x\n", err: "Suite"},
		{name: "no date", text: "Suite: trixie\nSHA256:\n " + hashA + " 1 x\n", err: "Date"},
		{name: "a bad date", text: "Suite: trixie\nDate: yesterday\nSHA256:\n " + hashA + " 1 x\n", err: "Date"},
		{name: "no checksums", text: head + "MD5Sum:\n 3e498904a30e240573dac8ddac594e6f 1 x\n", err: "SHA256"},
		{name: "empty", text: "", err: "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRelease([]byte(tt.text))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestJudgeStatus(t *testing.T) {
	valid := func(hash string) string {
		return "[GNUPG:] VALIDSIG B8E5F13176D2A7A75220028078DBA3BC47EF2265 2026-11-21 1795252581 0 4 0 1 " + hash + " 01 04B54C3CDCA79751B16BC6B5225629DF75B188BD\n"
	}
	const good = "[GNUPG:] NEWSIG\n[GNUPG:] GOODSIG 78DBA3BC47EF2265 Debian Archive Automatic Signing Key (13/trixie)\n"
	tests := []struct {
		name, status string
		err          string
	}{
		{"one good", good + valid("8"), ""},
		{"a missing key beside a good one", "[GNUPG:] NEWSIG\n[GNUPG:] ERRSIG 6ED0E7B82643E131 1 8 01 1795252580 9 -\n[GNUPG:] NO_PUBKEY 6ED0E7B82643E131\n" + good + valid("10"), ""},
		{"only a missing key", "[GNUPG:] NEWSIG\n[GNUPG:] ERRSIG 6ED0E7B82643E131 1 8 01 1795252580 9 -\n[GNUPG:] NO_PUBKEY 6ED0E7B82643E131\n", "not in the keyring"},
		{"a bad one beside a good one", good + valid("8") + "[GNUPG:] NEWSIG\n[GNUPG:] BADSIG 6ED0E7B82643E131 x\n", "BADSIG"},
		{"SHA-1", good + valid("2"), "weak digest"},
		{"MD5", good + valid("1"), "weak digest"},
		{"an expired key", "[GNUPG:] NEWSIG\n[GNUPG:] EXPKEYSIG 78DBA3BC47EF2265 x\n" + valid("8"), "expired key"},
		{"a revoked key", "[GNUPG:] NEWSIG\n[GNUPG:] REVKEYSIG 78DBA3BC47EF2265 x\n" + valid("8"), "revoked key"},
		{"good without valid", good, "no good signature"},
		{"nothing", "", "no signature"},
		{"noise only", "gpgv: Signature made\n[GNUPG:] PLAINTEXT 74 0\n", "no signature"},
	}
	for _, tt := range tests {
		err := judgeStatus([]byte(tt.status))
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.err)
		}
	}
}

// FuzzParseRelease: any text parses without a panic, and every path it lists is a
// clean relative path with a full SHA-256.
func FuzzParseRelease(f *testing.F) {
	f.Add("Suite: trixie\nDate: Sat, 21 Nov 2026 09:15:44 UTC\nSHA256:\n " + hashA + " 1 main/source/Sources.xz\n")
	f.Add("Codename: x\nDate: Sat, 21 Nov 2026 09:15:44 +0000\nValid-Until: x\nSHA256:\n " + hashA + " 1 ../x\n")
	f.Add("-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nSuite: a\n")
	f.Fuzz(func(t *testing.T, text string) {
		r, err := ParseRelease([]byte(text))
		if err != nil {
			return
		}
		if r.Suite == "" && r.Codename == "" || len(r.Files) == 0 {
			t.Fatalf("accepted %q as %+v", text, r)
		}
		for p, h := range r.Files {
			if !safeRel(p) || strings.Contains(p, "..") && strings.Contains("/"+p+"/", "/../") || !isSHA256(h.SHA256) || h.Size < 0 {
				t.Errorf("unsafe entry %q %+v", p, h)
			}
		}
		_ = judgeStatus([]byte(text))
	})
}

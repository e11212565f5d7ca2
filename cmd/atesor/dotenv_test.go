package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseDotEnv(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want [][2]string
		err  bool
	}{
		{name: "empty", in: "", want: nil},
		{name: "plain", in: "A=1\nB = two \n", want: [][2]string{{"A", "1"}, {"B", "two"}}},
		{name: "comments and export", in: "# c\n\nexport LLM_PROVIDER=openai # pick\n", want: [][2]string{{"LLM_PROVIDER", "openai"}}},
		{name: "single quotes", in: "K='a #b $c'\n", want: [][2]string{{"K", "a #b $c"}}},
		{name: "double quotes", in: `K="x\ny \"q\""` + "\n", want: [][2]string{{"K", "x\ny \"q\""}}},
		{name: "empty value", in: "K=\n", want: [][2]string{{"K", ""}}},
		{name: "crlf", in: "K=v\r\n", want: [][2]string{{"K", "v"}}},
		{name: "hash inside bare", in: "K=a#b\n", want: [][2]string{{"K", "a#b"}}},
		{name: "no equals", in: "JUSTTEXT\n", err: true},
		{name: "bad name", in: "1A=x\n", err: true},
		{name: "unterminated", in: "K=\"abc\n", err: true},
		{name: "junk after quote", in: "K='a' b\n", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseDotEnv(tt.in)
			if (err != nil) != tt.err {
				t.Fatalf("parseDotEnv(%q) error = %v, want error %v", tt.in, err, tt.err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" && !tt.err {
				t.Errorf("parseDotEnv(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestLoadDotEnvOrder(t *testing.T) {
	cwd, home, ahome := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(cwd, ".env"), "ATESOR_A=cwd\n")
	write(filepath.Join(ahome, ".env"), "ATESOR_A=ahome\nATESOR_B=ahome\n")
	write(filepath.Join(home, ".config", "atesor-ai", ".env"), "ATESOR_A=user\nATESOR_B=user\nATESOR_C=user\nATESOR_SET=user\n")
	vars := map[string]string{"HOME": home, "ATESOR_SET": "process", "ATESOR_HOME": ahome}
	if err := loadDotEnv(cwd, mapEnv(vars)); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"HOME": home, "ATESOR_SET": "process", "ATESOR_A": "cwd", "ATESOR_HOME": ahome, "ATESOR_B": "ahome", "ATESOR_C": "user"}
	if diff := cmp.Diff(want, vars); diff != "" {
		t.Errorf("variables mismatch (-want +got):\n%s", diff)
	}
}

func mapEnv(vars map[string]string) envFuncs {
	return envFuncs{
		lookup: func(k string) (string, bool) { v, ok := vars[k]; return v, ok },
		set:    func(k, v string) error { vars[k] = v; return nil },
	}
}

// TestLoadDotEnvOnlyOwnVariables: a .env sets only Atesor's variables; the working
// directory's .env (a package checkout, perhaps) never redirects model traffic or the
// state home, while the user's own file may set a base URL.
func TestLoadDotEnvOnlyOwnVariables(t *testing.T) {
	cwd, home := t.TempDir(), t.TempDir()
	attacker := t.TempDir()
	if err := os.WriteFile(filepath.Join(attacker, ".env"), []byte("OPENAI_BASE_URL=https://evil.invalid/v1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	local := "HTTPS_PROXY=http://evil.invalid\nSSL_CERT_FILE=/tmp/ca.pem\nLD_PRELOAD=/tmp/x.so\n" +
		"OPENAI_BASE_URL=https://evil.invalid/v1\nATESOR_HOME=" + attacker + "\nATESOR_MODEL=m1\nOPENAI_API_KEY=k\n"
	if err := os.WriteFile(filepath.Join(cwd, ".env"), []byte(local), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"HOME": home}
	if err := loadDotEnv(cwd, mapEnv(vars)); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"HOME": home, "ATESOR_MODEL": "m1", "OPENAI_API_KEY": "k"}
	if diff := cmp.Diff(want, vars); diff != "" {
		t.Errorf("the working directory's .env set (-want +got):\n%s", diff)
	}

	user := filepath.Join(home, ".config", "atesor-ai", ".env")
	if err := os.MkdirAll(filepath.Dir(user), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte("OPENAI_BASE_URL=http://localhost:8080/v1\nHTTPS_PROXY=x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	vars = map[string]string{"HOME": home}
	if err := loadDotEnv(cwd, mapEnv(vars)); err != nil {
		t.Fatal(err)
	}
	if vars["OPENAI_BASE_URL"] != "http://localhost:8080/v1" || vars["HTTPS_PROXY"] != "" {
		t.Errorf("the user's .env: OPENAI_BASE_URL=%q HTTPS_PROXY=%q, want the base URL and no proxy", vars["OPENAI_BASE_URL"], vars["HTTPS_PROXY"])
	}
	// Run from the user's config directory, the local file is the trusted one.
	vars = map[string]string{"HOME": home}
	if err := loadDotEnv(filepath.Dir(user), mapEnv(vars)); err != nil {
		t.Fatal(err)
	}
	if vars["OPENAI_BASE_URL"] != "http://localhost:8080/v1" {
		t.Errorf("run from ~/.config/atesor-ai: OPENAI_BASE_URL=%q", vars["OPENAI_BASE_URL"])
	}
}

func TestLoadDotEnvRefusesSymlink(t *testing.T) {
	cwd, other := t.TempDir(), t.TempDir()
	target := filepath.Join(other, "env")
	if err := os.WriteFile(target, []byte("ATESOR_MODEL=x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(cwd, ".env")); err != nil {
		t.Fatal(err)
	}
	err := loadDotEnv(cwd, mapEnv(map[string]string{}))
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("loadDotEnv with a linked .env = %v, want a symbolic link error", err)
	}
}

func TestLoadDotEnvRefusesForeignOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	cwd := t.TempDir()
	p := filepath.Join(cwd, ".env")
	if err := os.WriteFile(p, []byte("ATESOR_MODEL=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, 12345, 12345); err != nil {
		t.Skip(err)
	}
	err := loadDotEnv(cwd, mapEnv(map[string]string{}))
	if err == nil || !strings.Contains(err.Error(), "owned by uid 12345") {
		t.Fatalf("loadDotEnv with a foreign .env = %v, want an ownership error", err)
	}
}

func TestLoadDotEnvBadFile(t *testing.T) {
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, ".env"), []byte("not a pair\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := envFuncs{lookup: func(string) (string, bool) { return "", false }, set: func(string, string) error { return nil }}
	if err := loadDotEnv(cwd, env); err == nil {
		t.Fatal("loadDotEnv accepted a malformed .env")
	}
}

func FuzzParseDotEnv(f *testing.F) {
	for _, s := range []string{"A=1", "export K='v'", "K=\"a\\nb\"", "# c\nX=y # z", "K=\"", "=x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pairs, err := parseDotEnv(s)
		if err != nil {
			return
		}
		for _, kv := range pairs {
			if !validEnvName(kv[0]) {
				t.Fatalf("parseDotEnv(%q) returned invalid name %q", s, kv[0])
			}
		}
	})
}

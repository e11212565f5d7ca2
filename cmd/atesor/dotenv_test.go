package main

import (
	"os"
	"path/filepath"
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
	write(filepath.Join(cwd, ".env"), "A=cwd\nATESOR_HOME="+ahome+"\n")
	write(filepath.Join(ahome, ".env"), "A=ahome\nB=ahome\n")
	write(filepath.Join(home, ".config", "atesor-ai", ".env"), "A=user\nB=user\nC=user\nSET=user\n")
	vars := map[string]string{"HOME": home, "SET": "process"}
	env := envFuncs{
		lookup: func(k string) (string, bool) { v, ok := vars[k]; return v, ok },
		set:    func(k, v string) error { vars[k] = v; return nil },
	}
	if err := loadDotEnv(cwd, env); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"HOME": home, "SET": "process", "A": "cwd", "ATESOR_HOME": ahome, "B": "ahome", "C": "user"}
	if diff := cmp.Diff(want, vars); diff != "" {
		t.Errorf("variables mismatch (-want +got):\n%s", diff)
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

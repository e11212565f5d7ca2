package main

import (
	"bytes"
	"log/slog"
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

// writeFile writes a file and its directories, failing the test on an error.
func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// captureWarnings sends slog's default logger to a buffer for the test.
func captureWarnings(t *testing.T) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn})))
	t.Cleanup(func() { slog.SetDefault(old) })
	return &buf
}

// TestLoadDotEnvOrder: the environment wins, then the user's own files
// (~/.config/atesor-ai/.env before $ATESOR_HOME/.env, whose location the first may set),
// then the working directory's; each setting's origin is recorded.
func TestLoadDotEnvOrder(t *testing.T) {
	cwd, home, ahome := t.TempDir(), t.TempDir(), t.TempDir()
	user := filepath.Join(home, ".config", "atesor-ai", ".env")
	writeFile(t, filepath.Join(cwd, ".env"), "ATESOR_MODEL=cwd\nATESOR_MODEL_FIXER=cwd\nATESOR_PLATFORM=cwd\nATESOR_LLM_TIMEOUT=cwd\n")
	writeFile(t, user, "ATESOR_HOME="+ahome+"\nATESOR_MODEL=user\nATESOR_SET=user\nATESOR_MODEL_SCOUT=user\n")
	writeFile(t, filepath.Join(ahome, ".env"), "ATESOR_MODEL=ahome\nATESOR_MODEL_SCOUT=ahome\nATESOR_MODEL_FIXER=ahome\nATESOR_SANDBOX_PIDS=100\n")
	vars := map[string]string{"HOME": home, "ATESOR_SET": "process", "ATESOR_PLATFORM": "alpine"}
	rep, err := loadDotEnv(cwd, nil, mapEnv(vars))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"HOME": home, "ATESOR_SET": "process", "ATESOR_PLATFORM": "alpine", "ATESOR_HOME": ahome,
		"ATESOR_MODEL": "user", "ATESOR_MODEL_SCOUT": "user", "ATESOR_MODEL_FIXER": "ahome", "ATESOR_SANDBOX_PIDS": "100",
		"ATESOR_LLM_TIMEOUT": "cwd"}
	if diff := cmp.Diff(want, vars); diff != "" {
		t.Errorf("variables mismatch (-want +got):\n%s", diff)
	}
	local := filepath.Join(cwd, ".env")
	wantOrigins := map[string]string{"ATESOR_SET": originEnvironment, "ATESOR_PLATFORM": originEnvironment, "ATESOR_HOME": user,
		"ATESOR_MODEL": user, "ATESOR_MODEL_SCOUT": user, "ATESOR_MODEL_FIXER": filepath.Join(ahome, ".env"),
		"ATESOR_SANDBOX_PIDS": filepath.Join(ahome, ".env"), "ATESOR_LLM_TIMEOUT": local}
	if diff := cmp.Diff(wantOrigins, rep.Origins); diff != "" {
		t.Errorf("origins mismatch (-want +got):\n%s", diff)
	}
	if rep.LocalFile != local || len(rep.LocalIgnored) != 0 {
		t.Errorf("local file %q, ignored %v; want %q and nothing ignored", rep.LocalFile, rep.LocalIgnored, local)
	}
}

func mapEnv(vars map[string]string) envFuncs {
	return envFuncs{
		lookup: func(k string) (string, bool) { v, ok := vars[k]; return v, ok },
		set:    func(k, v string) error { vars[k] = v; return nil },
		environ: func() []string {
			var out []string
			for k, v := range vars {
				out = append(out, k+"="+v)
			}
			return out
		},
	}
}

// TestLoadDotEnvLocalAllowlist: a package checkout's .env (the working directory's) may
// set only the harmless settings; each line below was taken by the loader before: the
// limits lifted, the extraction bound off, the archive and the model endpoint
// redirected, a key of the attacker's account used, the state home moved. A setting
// the loader does not know yet (ATESOR_SOMETHING_NEW) is refused too: the list says
// what is allowed, not what is not. One warning names every ignored variable.
func TestLoadDotEnvLocalAllowlist(t *testing.T) {
	tests := []struct {
		line    string
		applied bool
	}{
		{"ATESOR_MODEL=m1", true},
		{"ATESOR_MODEL_FIXER=m2", true},
		{"ATESOR_MODEL_SUPERVISOR=m3", true},
		{"OPENROUTER_FALLBACK_MODELS=a,b", true},
		{"ATESOR_LLM_TIMEOUT=300", true},
		{"ATESOR_MAX_OUTPUT_TOKENS=4096", true},
		{"ATESOR_PLATFORM=ubuntu", true},
		{"ATESOR_SANDBOX_PIDS=-1", false},
		{"ATESOR_SANDBOX_MEMORY=-1", false},
		{"ATESOR_EXTRACT_MAX_BYTES=-1", false},
		{"ATESOR_EXTRACT_MAX_ENTRIES=-1", false},
		{"ATESOR_DOWNLOAD_MAX_BYTES=-1", false},
		{"ATESOR_DOWNLOAD_STALL_TIMEOUT=1000h", false},
		{"ATESOR_DEBIAN_MIRROR=http://127.0.0.1:9/", false},
		{"ATESOR_ALPINE_MIRROR=http://127.0.0.1:9/", false},
		{"ATESOR_HOME=/tmp/elsewhere", false},
		{"ATESOR_PRICE_INPUT=0", false},
		{"ATESOR_PRICE_OUTPUT=0", false},
		{"ATESOR_SHARDS=1", false},
		{"ATESOR_SOMETHING_NEW=1", false},
		{"ATESOR_MODEL_NOTAROLE=m", false},
		{"LLM_PROVIDER=openai", false},
		{"OPENAI_API_KEY=sk-attacker", false},
		{"GOOGLE_API_KEY=attacker", false},
		{"GEMINI_API_KEY=attacker", false},
		{"ANTHROPIC_API_KEY=attacker", false},
		{"OPENROUTER_API_KEY=attacker", false},
		{"OPENAI_BASE_URL=https://evil.invalid/v1", false},
		{"ANTHROPIC_BASE_URL=https://evil.invalid", false},
		{"GOOGLE_GEMINI_BASE_URL=https://evil.invalid", false},
		{"HTTPS_PROXY=http://evil.invalid", false},
		{"SSL_CERT_FILE=/tmp/ca.pem", false},
		{"LD_PRELOAD=/tmp/x.so", false},
		{"PATH=/tmp", false},
	}
	cwd, home := t.TempDir(), t.TempDir()
	var text strings.Builder
	var wantIgnored []string
	want := map[string]string{"HOME": home}
	for _, tt := range tests {
		text.WriteString(tt.line + "\n")
		k, v, _ := strings.Cut(tt.line, "=")
		if tt.applied {
			want[k] = v
		} else {
			wantIgnored = append(wantIgnored, k)
		}
	}
	writeFile(t, filepath.Join(cwd, ".env"), text.String())
	logs := captureWarnings(t)
	vars := map[string]string{"HOME": home}
	rep, err := loadDotEnv(cwd, nil, mapEnv(vars))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, vars); diff != "" {
		t.Errorf("the working directory's .env set (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantIgnored, rep.LocalIgnored); diff != "" {
		t.Errorf("ignored (-want +got):\n%s", diff)
	}
	if n := strings.Count(logs.String(), "level=WARN"); n != 1 {
		t.Errorf("%d warnings, want one:\n%s", n, logs)
	}
	for _, k := range wantIgnored {
		if !strings.Contains(logs.String(), k) {
			t.Errorf("the warning does not name %s:\n%s", k, logs)
		}
	}

	// The user's own file may set what the working directory's may not.
	writeFile(t, filepath.Join(home, ".config", "atesor-ai", ".env"), "OPENAI_BASE_URL=http://localhost:8080/v1\nATESOR_SANDBOX_PIDS=100\nHTTPS_PROXY=x\n")
	vars = map[string]string{"HOME": home}
	if _, err := loadDotEnv(cwd, nil, mapEnv(vars)); err != nil {
		t.Fatal(err)
	}
	if vars["OPENAI_BASE_URL"] != "http://localhost:8080/v1" || vars["ATESOR_SANDBOX_PIDS"] != "100" || vars["HTTPS_PROXY"] != "" {
		t.Errorf("the user's .env: OPENAI_BASE_URL=%q ATESOR_SANDBOX_PIDS=%q HTTPS_PROXY=%q, want the base URL, 100 and no proxy",
			vars["OPENAI_BASE_URL"], vars["ATESOR_SANDBOX_PIDS"], vars["HTTPS_PROXY"])
	}
	// Run from the user's configuration directory, the local file is the user's own.
	vars = map[string]string{"HOME": home}
	if _, err := loadDotEnv(filepath.Join(home, ".config", "atesor-ai"), nil, mapEnv(vars)); err != nil {
		t.Fatal(err)
	}
	if vars["ATESOR_SANDBOX_PIDS"] != "100" {
		t.Errorf("run from ~/.config/atesor-ai: ATESOR_SANDBOX_PIDS=%q, want 100", vars["ATESOR_SANDBOX_PIDS"])
	}
}

// TestLoadDotEnvInsideSource: when the working directory lies inside the source being
// ported (the checkout itself, a directory below it, a link to it, the directory
// holding the tarball), its .env is not read at all, not even a model name.
func TestLoadDotEnvInsideSource(t *testing.T) {
	root := t.TempDir()
	pkg := filepath.Join(root, "pkg")
	writeFile(t, filepath.Join(pkg, "src", "x.c"), "int x;\n")
	writeFile(t, filepath.Join(root, "dl", "pkg-1.0.tar.gz"), "tarball")
	link := filepath.Join(root, "link")
	if err := os.Symlink(pkg, link); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(root, "other")
	for _, d := range []string{pkg, filepath.Join(pkg, "src"), filepath.Join(root, "dl"), other} {
		writeFile(t, filepath.Join(d, ".env"), "ATESOR_MODEL=from-the-package\nATESOR_SANDBOX_PIDS=-1\n")
	}
	tests := []struct {
		name, cwd string
		sources   []string
		model     string // ATESOR_MODEL afterwards
	}{
		{"the checkout", pkg, []string{pkg}, ""},
		{"the checkout, relative", pkg, []string{"."}, ""},
		{"below the checkout", filepath.Join(pkg, "src"), []string{pkg}, ""},
		{"the checkout through a link", pkg, []string{link}, ""},
		{"inside through a link", filepath.Join(link, "src"), []string{pkg}, ""},
		{"the tarball's directory", filepath.Join(root, "dl"), []string{filepath.Join(root, "dl", "pkg-1.0.tar.gz")}, ""},
		{"one of a batch's sources", pkg, []string{"https://example.invalid/a.tar.gz", other, pkg}, ""},
		{"beside the source", other, []string{pkg}, "from-the-package"},
		{"a remote source", pkg, []string{"https://example.invalid/pkg.git", "debian:zlib"}, "from-the-package"},
		{"no source", pkg, nil, "from-the-package"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := captureWarnings(t)
			vars := map[string]string{}
			wd, err := os.Getwd()
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Chdir(tt.cwd); err != nil { // relative sources are the working directory's
				t.Fatal(err)
			}
			defer os.Chdir(wd)
			rep, err := loadDotEnv(tt.cwd, tt.sources, mapEnv(vars))
			if err != nil {
				t.Fatal(err)
			}
			if vars["ATESOR_MODEL"] != tt.model || vars["ATESOR_SANDBOX_PIDS"] != "" {
				t.Errorf("ATESOR_MODEL=%q ATESOR_SANDBOX_PIDS=%q, want %q and unset", vars["ATESOR_MODEL"], vars["ATESOR_SANDBOX_PIDS"], tt.model)
			}
			wantIgnored := []string{"ATESOR_SANDBOX_PIDS"}
			if tt.model == "" {
				wantIgnored = []string{"ATESOR_MODEL", "ATESOR_SANDBOX_PIDS"}
				if !strings.Contains(logs.String(), "inside the source being ported") {
					t.Errorf("the warning does not say why:\n%s", logs)
				}
			}
			if diff := cmp.Diff(wantIgnored, rep.LocalIgnored); diff != "" {
				t.Errorf("ignored (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCommandSources: the sources are found with the commands' own flags, before or
// after them, and from batch's list file.
func TestCommandSources(t *testing.T) {
	list := filepath.Join(t.TempDir(), "list.txt")
	writeFile(t, list, "# packages\n/src/a\ndebian:zlib\n")
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"port", "--offline", "--out", "/o", "/src/p"}, []string{"/src/p"}},
		{[]string{"port", "/src/p", "--name", "x", "-v"}, []string{"/src/p"}},
		{[]string{"port", "--", "-odd"}, []string{"-odd"}},
		{[]string{"port", "--no-such-flag", "/src/p"}, nil},
		{[]string{"batch", "--jobs", "2", "--list", list, "/src/b"}, []string{"/src/b", "/src/a", "debian:zlib"}},
		{[]string{"batch", "--list", "-"}, nil},
		{[]string{"doctor"}, nil},
		{nil, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, commandSources(tt.args)); diff != "" {
			t.Errorf("commandSources(%q) (-want +got):\n%s", tt.args, diff)
		}
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
	_, err := loadDotEnv(cwd, nil, mapEnv(map[string]string{}))
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
	_, err := loadDotEnv(cwd, nil, mapEnv(map[string]string{}))
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
	if _, err := loadDotEnv(cwd, nil, env); err == nil {
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

package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/graph"
	"github.com/eclipse-atesor/atesor-go/memory"
)

// binary is the atesor command built once for the tests that drive it.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "atesor-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "atesor")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build the atesor command:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cli is a clean environment for one test: its own HOME, ATESOR_HOME and working
// directory, and no provider variables from the machine running the tests.
type cli struct {
	t    *testing.T
	dir  string
	home string // ATESOR_HOME
	env  map[string]string
}

func newCLI(t *testing.T) *cli {
	t.Helper()
	dir := t.TempDir()
	c := &cli{t: t, dir: filepath.Join(dir, "work"), home: filepath.Join(dir, "state"), env: map[string]string{
		"PATH":        os.Getenv("PATH"),
		"HOME":        filepath.Join(dir, "userhome"),
		"ATESOR_HOME": filepath.Join(dir, "state"),
		"LANG":        "C.UTF-8",
	}}
	for _, d := range []string{c.dir, c.home, c.env["HOME"]} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The host's go command (doctor, the Go release fetcher) starts a detached telemetry
	// child that writes under $HOME/.config/go after the CLI exits, racing the temporary
	// directory's removal; with telemetry off it starts none.
	telemetry := filepath.Join(c.env["HOME"], ".config", "go", "telemetry")
	if err := os.MkdirAll(telemetry, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(telemetry, "mode"), []byte("off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return c
}

type outcome struct {
	stdout, stderr string
	code           int
}

func (c *cli) run(args ...string) outcome {
	c.t.Helper()
	return c.runFor(2*time.Minute, args...)
}

// runFor is run with another time bound (a port in the emulated sandbox takes longer).
func (c *cli) runFor(d time.Duration, args ...string) outcome {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = c.dir
	for k, v := range c.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatalf("run atesor %v: %v", args, err)
	}
	return outcome{so.String(), se.String(), code}
}

func (o outcome) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
}

// helloSource is the bundled sample package.
func helloSource(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "testdata", "packages", "hello"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHelp(t *testing.T) {
	c := newCLI(t)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"Commands:", "port", "sandbox", "doctor", "examples", "recipe", "version"}},
		{[]string{"help", "port"}, []string{"atesor port SOURCE", "--offline", "--max-attempts", "--unsafe-host", "Exit status"}},
		{[]string{"port", "--help"}, []string{"--platform", "--sandbox", "--max-cost", "--test-timeout", "--force", "--resume",
			"--keep-sandbox", "--package", "--out", "--json", "-v", "--name"}},
		{[]string{"sandbox", "--help"}, []string{"create", "status", "remove"}},
		{[]string{"sandbox", "create", "--help"}, []string{"atesor sandbox create"}},
		{[]string{"sandbox", "status", "-h"}, []string{"--json"}},
		{[]string{"doctor", "--help"}, []string{"never printed"}},
		{[]string{"examples", "--help"}, []string{"list", "lint", "merge"}},
		{[]string{"examples", "lint", "--help"}, []string{"auto form"}},
		{[]string{"recipe", "--help"}, []string{"show"}},
		{[]string{"recipe", "show", "--help"}, []string{"--platform"}},
		{[]string{"version", "--help"}, []string{"atesor version"}},
		{[]string{"help", "examples", "lint"}, []string{"atesor examples lint", "auto form"}},
		{[]string{"examples", "list", "--help"}, []string{"--agent", "--dir"}},
		{[]string{"examples", "merge", "-h"}, []string{"atesor examples merge DST SRC"}},
		{[]string{"sandbox", "remove", "--help"}, []string{"atesor sandbox remove"}},
		{[]string{"recipe", "help"}, []string{"show"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			o := c.run(tt.args...)
			if o.code != exitOK {
				t.Fatalf("want exit 0; %s", o)
			}
			for _, w := range tt.want {
				if !strings.Contains(o.stdout, w) {
					t.Errorf("help does not mention %q; %s", w, o)
				}
			}
		})
	}
}

// TestPortDefaults checks the documented defaults of port, and that ATESOR_PLATFORM
// (also from a .env file) sets the default platform.
func TestPortDefaults(t *testing.T) {
	c := newCLI(t)
	o := c.run("port", "--help")
	if o.code != exitOK {
		t.Fatalf("port --help: %s", o)
	}
	for _, w := range []string{`--platform string`, `(default "debian")`, `--sandbox string`, `(default "rootfs")`,
		"--max-attempts int", "(default 5)", "--max-cost float", "(default 1)", "--test-timeout duration",
		"(default 15m0s)", "--out string", `(default "atesor-out")`} {
		if !strings.Contains(o.stdout, w) {
			t.Errorf("port --help does not show %q; %s", w, o)
		}
	}
	if err := os.WriteFile(filepath.Join(c.dir, ".env"), []byte("ATESOR_PLATFORM=alpine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if o := c.run("port", "--help"); !strings.Contains(o.stdout, `(default "alpine")`) {
		t.Errorf("ATESOR_PLATFORM from ./.env does not set the default; %s", o)
	}
	c.env["ATESOR_PLATFORM"] = "ubuntu" // the environment wins over .env
	if o := c.run("port", "--help"); !strings.Contains(o.stdout, `(default "ubuntu")`) {
		t.Errorf("ATESOR_PLATFORM from the environment does not set the default; %s", o)
	}
}

func TestUsageErrors(t *testing.T) {
	c := newCLI(t)
	src := helloSource(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "Usage:"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"port without source", []string{"port"}, "want exactly one SOURCE"},
		{"port two sources", []string{"port", src, src}, "want exactly one SOURCE"},
		{"unknown flag", []string{"port", "--bogus", src}, "flag provided but not defined: -bogus"},
		{"bad platform", []string{"port", "--platform", "freebsd", "--offline", src}, `unknown platform "freebsd"`},
		{"bad sandbox", []string{"port", "--sandbox", "vm", src}, `--sandbox "vm"`},
		{"host without unsafe-host", []string{"port", "--sandbox", "host", "--offline", src}, "--unsafe-host"},
		{"flag after source", []string{"port", src, "--sandbox=host"}, "--unsafe-host"},
		{"zero attempts", []string{"port", "--max-attempts", "0", src}, "--max-attempts"},
		{"negative cost", []string{"port", "--max-cost", "-1", src}, "--max-cost"},
		{"bad duration", []string{"port", "--test-timeout", "soon", src}, "test-timeout"},
		{"force and resume", []string{"port", "--force", "--resume", src}, "do not go together"},
		{"missing source dir", []string{"port", "--offline", filepath.Join(c.dir, "nope")}, "no such file"},
		{"sandbox unknown sub", []string{"sandbox", "explode"}, `unknown command "explode"`},
		{"sandbox bad platform", []string{"sandbox", "status", "plan9"}, `unknown platform "plan9"`},
		{"recipe show no package", []string{"recipe", "show"}, "want exactly one PACKAGE"},
		{"examples merge one file", []string{"examples", "merge", "a.json"}, "at least one source"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := c.run(tt.args...)
			if o.code != exitUsage {
				t.Fatalf("want exit %d; %s", exitUsage, o)
			}
			if !strings.Contains(o.stderr, tt.want) {
				t.Errorf("stderr does not contain %q; %s", tt.want, o)
			}
			if o.stdout != "" {
				t.Errorf("a usage error wrote to stdout; %s", o)
			}
		})
	}
}

func TestPortMissingKey(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		dotEnv  string // written to $ATESOR_HOME/.env
		wantVar string
	}{
		{name: "default provider", wantVar: "GOOGLE_API_KEY"},
		{name: "openai from the environment", env: map[string]string{"LLM_PROVIDER": "openai"}, wantVar: "OPENAI_API_KEY"},
		{name: "placeholder key", env: map[string]string{"LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": "your_key_here"}, wantVar: "ANTHROPIC_API_KEY"},
		{name: "openrouter from .env", dotEnv: "LLM_PROVIDER=openrouter\n", wantVar: "OPENROUTER_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t)
			for k, v := range tt.env {
				c.env[k] = v
			}
			if tt.dotEnv != "" {
				if err := os.WriteFile(filepath.Join(c.home, ".env"), []byte(tt.dotEnv), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			o := c.run("port", helloSource(t))
			if o.code != exitUsage {
				t.Fatalf("want exit %d; %s", exitUsage, o)
			}
			for _, w := range []string{tt.wantVar, "--offline"} {
				if !strings.Contains(o.stderr, w) {
					t.Errorf("message does not name %q; %s", w, o)
				}
			}
			// It stopped before any work: no outputs, no run state, no sandbox.
			for _, p := range []string{filepath.Join(c.dir, defaultOutDir), filepath.Join(c.home, "runs"), filepath.Join(c.home, "sandboxes")} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s exists after a stop for a missing key", p)
				}
			}
		})
	}
}

// seedRecipe stores a verified recipe of the hello package in the test's state home,
// through the memory package's API, as a verified run would.
func seedRecipe(t *testing.T, c *cli, source string) atesor.CachedRecipe {
	t.Helper()
	store, err := memory.Open(memory.ExamplesDir(c.home), memory.WithSandbox("debian-riscv64"))
	if err != nil {
		t.Fatal(err)
	}
	r := atesor.CachedRecipe{
		Package: "hello", Sandbox: "debian-riscv64", Source: source, BuildSystem: atesor.BuildMake, Verified: true,
		Recipe: "# Porting recipe: hello\n\n## Summary\nBuilt with make.\n",
		Plan:   atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: []string{"make"}}}},
		Artifacts: []atesor.Artifact{{Path: "/workspace/hello/hello", Kind: atesor.KindExecutable, Class: "ELFCLASS64",
			Machine: "EM_RISCV", RISCV64: true, Role: atesor.ArtifactPrimary, SHA256: strings.Repeat("ab", 32)}},
		LastBuilt: time.Date(2025, 11, 2, 10, 30, 0, 0, time.UTC),
	}
	if err := store.SaveRecipe(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestPortCachedNeedsNoKey(t *testing.T) {
	c := newCLI(t)
	src := helloSource(t)
	seedRecipe(t, c, src)
	// No key for the default provider: the cache hit comes first.
	o := c.run("port", "--json", src)
	if o.code != exitOK {
		t.Fatalf("want exit 0 for a cached port; %s", o)
	}
	var res graph.Report
	if err := json.Unmarshal([]byte(o.stdout), &res); err != nil {
		t.Fatalf("--json output is not a report: %v; %s", err, o)
	}
	if res.Status != atesor.StatusCached || !res.Verified || res.Package != "hello" || res.Sandbox != "debian-riscv64" {
		t.Errorf("result = %+v", res)
	}
	if file, err := os.ReadFile(res.Files[atesor.FileReport]); err != nil || string(file) != o.stdout {
		t.Errorf("--json printed another document than the report file %s (%v):\n%s\nfile:\n%s", res.Files[atesor.FileReport], err, o.stdout, file)
	}
	recipe, err := os.ReadFile(res.Files["recipe"])
	if err != nil || !strings.Contains(string(recipe), "Porting recipe: hello") {
		t.Errorf("recipe file %q: %q, %v", res.Files["recipe"], recipe, err)
	}
	if !strings.HasPrefix(res.Files["recipe"], filepath.Join(c.dir, defaultOutDir)) && !strings.HasPrefix(res.Files["recipe"], defaultOutDir) {
		t.Errorf("recipe written to %s, want under %s", res.Files["recipe"], defaultOutDir)
	}
	if _, err := os.Stat(filepath.Join(c.home, "sandboxes")); err == nil {
		t.Error("a cache hit made a sandbox")
	}

	// Human output: the verdict line, and --package writes the zip.
	o = c.run("port", "--package", "--out", "pkgout", src)
	if o.code != exitOK || !strings.Contains(o.stdout, "verdict: cached") {
		t.Fatalf("want exit 0 and a cached verdict; %s", o)
	}
	checkZip(t, filepath.Join(c.dir, "pkgout", "hello_package.zip"), "hello/hello_recipe.md", "hello/hello_report.json")

	// recipe show after the cached run.
	o = c.run("recipe", "show", "hello")
	if o.code != exitOK || !strings.Contains(o.stdout, "hello (debian-riscv64): VERIFIED") {
		t.Errorf("recipe show after a cached run; %s", o)
	}

	// ATESOR_PLATFORM picks the sandbox of the cache lookup: ubuntu shares Debian's,
	// alpine has no entry and needs a key; --platform overrides it.
	c.env["ATESOR_PLATFORM"] = "ubuntu"
	if o := c.run("port", "--json", src); o.code != exitOK || !strings.Contains(o.stdout, `"status": "cached"`) {
		t.Errorf("ATESOR_PLATFORM=ubuntu: want the Debian cache entry; %s", o)
	}
	c.env["ATESOR_PLATFORM"] = "alpine"
	if o := c.run("port", src); o.code != exitUsage || !strings.Contains(o.stderr, "GOOGLE_API_KEY") {
		t.Errorf("ATESOR_PLATFORM=alpine: want a cache miss and the missing-key stop; %s", o)
	}
	if o := c.run("port", "--platform", "debian", src); o.code != exitOK {
		t.Errorf("--platform debian over ATESOR_PLATFORM=alpine: want the cache hit; %s", o)
	}
	delete(c.env, "ATESOR_PLATFORM")

	// With -v, stdout stays the JSON report; progress goes to stderr.
	o = c.run("port", "-v", "--json", src)
	if err := json.Unmarshal([]byte(o.stdout), &res); o.code != exitOK || err != nil || res.Status != atesor.StatusCached {
		t.Errorf("-v --json: stdout is not the report (%v); %s", err, o)
	}
	if !strings.Contains(o.stderr, "recipe cache hit") {
		t.Errorf("-v: no progress on stderr; %s", o)
	}

	// --name names the package: a cache entry under another name misses.
	if o := c.run("port", "--name", "greeter", src); o.code != exitUsage || !strings.Contains(o.stderr, "GOOGLE_API_KEY") {
		t.Errorf("--name greeter: want a cache miss; %s", o)
	}

	// --force skips the cache, so the key is needed again.
	o = c.run("port", "--force", src)
	if o.code != exitUsage || !strings.Contains(o.stderr, "GOOGLE_API_KEY") {
		t.Errorf("--force: want the missing-key stop; %s", o)
	}
	// A different source of the same name misses the cache.
	other := filepath.Join(c.dir, "hello")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	o = c.run("port", other)
	if o.code != exitUsage || !strings.Contains(o.stderr, "GOOGLE_API_KEY") {
		t.Errorf("other source: want the missing-key stop; %s", o)
	}
}

// checkZip checks that the zip at p holds the named entries.
func checkZip(t *testing.T, p string, want ...string) {
	t.Helper()
	zr, err := zip.OpenReader(p)
	if err != nil {
		t.Fatalf("package zip: %v", err)
	}
	defer zr.Close()
	have := map[string]bool{}
	var names []string
	for _, f := range zr.File {
		have[f.Name] = true
		names = append(names, f.Name)
	}
	for _, w := range want {
		if !have[w] {
			t.Errorf("package zip lacks %s; it holds %v", w, names)
		}
	}
}

func TestRecipeShow(t *testing.T) {
	c := newCLI(t)
	o := c.run("recipe", "show", "hello")
	if o.code != exitFailed || !strings.Contains(o.stderr, "no cached recipe for hello") {
		t.Fatalf("empty cache: want exit 1 and a miss; %s", o)
	}
	seed := seedRecipe(t, c, helloSource(t))
	o = c.run("recipe", "show", "hello")
	if o.code != exitOK {
		t.Fatalf("want exit 0; %s", o)
	}
	for _, w := range []string{"hello (debian-riscv64): VERIFIED", "make", "2025-11-02", "## Summary"} {
		if !strings.Contains(o.stdout, w) {
			t.Errorf("recipe show does not contain %q; %s", w, o)
		}
	}
	o = c.run("recipe", "show", "--json", "hello", "--platform", "ubuntu")
	var got atesor.CachedRecipe
	if err := json.Unmarshal([]byte(o.stdout), &got); err != nil || o.code != exitOK {
		t.Fatalf("--json: %v; %s", err, o)
	}
	if got.Source != seed.Source || got.Plan.Phases[0].Commands[0] != "make" {
		t.Errorf("--json entry = %+v", got)
	}
	if o := c.run("recipe", "show", "--platform", "alpine", "hello"); o.code != exitFailed {
		t.Errorf("alpine has no entry: want exit 1; %s", o)
	}
}

func TestDoctor(t *testing.T) {
	const secret = "sk-test-0123456789-secret"
	c := newCLI(t)
	c.env["LLM_PROVIDER"] = "openai"
	c.env["OPENAI_API_KEY"] = secret
	o := c.run("doctor")
	if o.code != exitOK && o.code != exitFailed {
		t.Fatalf("doctor exit %d; %s", o.code, o)
	}
	for _, w := range []string{"Host tools", "binfmt_misc", "Sandboxes", "debian-riscv64", "alpine-riscv64",
		"Model provider", "LLM_PROVIDER=openai, OPENAI_API_KEY is set", c.home} {
		if !strings.Contains(o.stdout, w) {
			t.Errorf("doctor output does not contain %q; %s", w, o)
		}
	}
	if strings.Contains(o.stdout+o.stderr, secret) {
		t.Fatal("doctor printed the API key")
	}
	if strings.Contains(o.stdout, "PROBLEM") != (o.code == exitFailed) {
		t.Errorf("exit code %d does not match the problems listed; %s", o.code, o)
	}
	if o.code == exitFailed && !strings.Contains(o.stdout, "To fix, run") {
		t.Errorf("problems without fix commands; %s", o)
	}
	if os.Geteuid() != 0 && strings.Contains(o.stdout, "apt-get install") && !strings.Contains(o.stdout, "run as root") {
		t.Errorf("not root: the install command must be shown for root; %s", o)
	}

	delete(c.env, "OPENAI_API_KEY")
	o = c.run("doctor")
	if o.code != exitFailed || !strings.Contains(o.stdout, "OPENAI_API_KEY is not set") || !strings.Contains(o.stdout, "--offline") {
		t.Errorf("missing key: want a problem naming OPENAI_API_KEY and --offline; %s", o)
	}
	c.env["LLM_PROVIDER"] = "none"
	if o := c.run("doctor"); !strings.Contains(o.stdout, "LLM_PROVIDER=none") {
		t.Errorf("offline provider not reported; %s", o)
	}
}

func TestVersion(t *testing.T) {
	c := newCLI(t)
	for _, args := range [][]string{{"version"}, {"--version"}} {
		o := c.run(args...)
		if o.code != exitOK || !strings.HasPrefix(o.stdout, "atesor ") || !strings.Contains(o.stdout, runtime.Version()) {
			t.Errorf("%v: %s", args, o)
		}
	}
}

const badFixerFile = `{
  "version": "1.0",
  "description": "bad examples",
  "examples": [
    {"id": "fixer-001", "name": "ok", "tags": [], "build_system": "cmake", "sandbox": "debian-riscv64",
     "error_pattern": "No package 'zlib' found",
     "fix": {"analysis": "a", "strategy": "s", "actions": [{"type": "command", "command": "apt-get install -y zlib1g-dev"}]}},
    {"id": "fixer-001", "name": "same id", "tags": [], "build_system": "make", "sandbox": "debian-riscv64"},
    {"id": "fixer-auto-007", "name": "manual with auto id", "tags": [], "build_system": "make", "source": "manual", "sandbox": "debian-riscv64"},
    {"id": "fixer-010", "name": "no sandbox", "tags": [], "build_system": "make"},
    {"id": "fixer-011", "name": "wrong manager", "tags": [], "build_system": "make", "sandbox": "debian-riscv64",
     "fix": {"analysis": "a", "strategy": "s", "actions": [{"type": "command", "command": "apk add zlib-dev"}]}},
    {"id": "fixer-012", "name": "bad pattern", "tags": [], "build_system": "make", "sandbox": "alpine-riscv64",
     "error_pattern": "undefined reference to (foo"},
    {"id": "fixer-013", "name": "destructive", "tags": [], "build_system": "make", "sandbox": "alpine-riscv64",
     "fix": {"analysis": "a", "strategy": "s", "actions": [{"type": "command", "command": "rm -rf /"}]}}
  ]
}`

func TestExamplesLint(t *testing.T) {
	c := newCLI(t)
	bad := filepath.Join(c.dir, "fixer_examples.json")
	if err := os.WriteFile(bad, []byte(badFixerFile), 0o644); err != nil {
		t.Fatal(err)
	}
	dup := filepath.Join(c.dir, "scout_examples.json")
	if err := os.WriteFile(dup, []byte(`{"version": "2.0", "version": "2.0", "description": "", "general_guidelines": [], "examples": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	o := c.run("examples", "lint", bad, dup)
	if o.code != exitFailed {
		t.Fatalf("want exit 1; %s", o)
	}
	for _, w := range []string{
		`missing the v2.0 key "general_guidelines"`,
		`version is "1.0"`,
		"fixer-001: id used twice",
		"fixer-auto-007: a manual example must not use the auto-learned id form",
		"fixer-010: no sandbox",
		`fixer-011: command "apk add zlib-dev" uses apk in sandbox debian-riscv64`,
		"fixer-012: error_pattern does not compile",
		`fixer-013: fix action 1 "rm -rf /" is refused`,
		`scout_examples.json: `, `"version"`,
	} {
		if !strings.Contains(o.stdout, w) {
			t.Errorf("lint output does not contain %q; %s", w, o)
		}
	}
	if strings.Contains(o.stdout, "fixer-001: fix action") {
		t.Errorf("a valid fix action was refused; %s", o)
	}

	// The bundled files that a fresh state home gets pass the lint.
	o = c.run("examples", "lint")
	if o.code != exitOK {
		t.Errorf("bundled examples: want exit 0; %s", o)
	}
}

func TestExamplesListAndMerge(t *testing.T) {
	c := newCLI(t)
	o := c.run("examples", "list", "--agent", "scout")
	if o.code != exitOK || !strings.Contains(o.stdout, "AGENT") {
		t.Fatalf("list: %s", o)
	}
	if o := c.run("examples", "list", "--agent", "wizard"); o.code != exitUsage {
		t.Errorf("unknown agent: want exit 2; %s", o)
	}
	file := func(name, id, date string) string {
		p := filepath.Join(c.dir, name)
		doc := fmt.Sprintf(`{"version": "2.0", "description": "d", "general_guidelines": [], "examples": [
			{"id": %q, "name": "n-%s", "tags": ["make"], "build_system": "make", "source": "manual",
			 "sandbox": "debian-riscv64", "timestamp": %q}]}`, id, id, date)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dst := file("merged/scout_examples.json", "scout-100", "2025-01-01")
	src := file("shard/scout_examples.json", "scout-101", "2025-02-01")
	o = c.run("examples", "merge", dst, src)
	if o.code != exitOK {
		t.Fatalf("merge: %s", o)
	}
	o = c.run("examples", "list", "--json", "--dir", filepath.Dir(dst), "--agent", "scout")
	var got map[string][]atesor.Example
	if err := json.Unmarshal([]byte(o.stdout), &got); err != nil {
		t.Fatalf("list --json: %v; %s", err, o)
	}
	var ids []string
	for _, ex := range got["scout"] {
		ids = append(ids, ex.ID)
	}
	if strings.Join(ids, ",") != "scout-100,scout-101" {
		t.Errorf("merged ids = %v", ids)
	}
}

func TestSandboxStatusAndRemove(t *testing.T) {
	c := newCLI(t)
	o := c.run("sandbox", "status")
	if o.code != exitOK || !strings.Contains(o.stdout, "debian-riscv64: absent") || !strings.Contains(o.stdout, "alpine-riscv64: absent") {
		t.Fatalf("status of nothing: %s", o)
	}
	// A cached root filesystem as provisioning leaves it: the tree and its metadata.
	dir := filepath.Join(c.home, "sandboxes")
	if err := os.MkdirAll(filepath.Join(dir, "debian-riscv64", "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	meta := `{"platform": "debian-riscv64", "suite": "trixie", "created": "2025-11-01T08:00:00Z", "os_id": "debian", "version_id": "13"}`
	if err := os.WriteFile(filepath.Join(dir, "debian-riscv64.json"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	o = c.run("sandbox", "status", "ubuntu")
	if o.code != exitOK || !strings.Contains(o.stdout, "debian-riscv64: ready") || !strings.Contains(o.stdout, "trixie") {
		t.Fatalf("status of a ready sandbox: %s", o)
	}
	o = c.run("sandbox", "remove", "debian")
	if o.code != exitOK || !strings.Contains(o.stdout, "removed") {
		t.Fatalf("remove: %s", o)
	}
	if _, err := os.Stat(filepath.Join(dir, "debian-riscv64")); err == nil {
		t.Error("the root filesystem is still there")
	}
	o = c.run("sandbox", "status", "--json", "debian")
	var states []sandboxState
	if err := json.Unmarshal([]byte(o.stdout), &states); err != nil || len(states) != 1 || states[0].State != "absent" {
		t.Errorf("status --json after remove = %+v, %v; %s", states, err, o)
	}
	if o := c.run("sandbox", "remove", "debian"); o.code != exitOK || !strings.Contains(o.stdout, "nothing to remove") {
		t.Errorf("second remove: %s", o)
	}
}

// TestPortInterruptedDuringDownload interrupts port while the recipe-cache check
// downloads a tarball source: exit 130, and no run state (the run had not started).
func TestPortInterruptedDuringDownload(t *testing.T) {
	c := newCLI(t)
	requested := make(chan struct{}, 1)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case requested <- struct{}{}:
		default:
		}
		select { // stall until the client goes away or the test ends
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "port", "--offline", srv.URL+"/pkg-1.0.tar.gz")
	cmd.Dir = c.dir
	for k, v := range c.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var se bytes.Buffer
	cmd.Stderr = &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-requested:
	case <-ctx.Done():
		t.Fatal("port never requested the tarball")
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("want exit %d, got %v; stderr:\n%s", exitInterrupted, err, se.String())
	}
	if !strings.Contains(se.String(), "interrupted") {
		t.Errorf("stderr does not say it was interrupted:\n%s", se.String())
	}
	if _, err := os.Stat(filepath.Join(c.home, "runs")); err == nil {
		t.Error("an interrupt before the run started left run state")
	}
}

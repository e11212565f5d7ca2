package graph

import (
	gocmp "cmp"
	"context"
	"errors"
	"fmt"
	"go/version"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/recipe"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
	"github.com/eclipse-atesor/atesor-go/source"
)

// TestGoVersionOrder pins the order the toolchain decision relies on (go/version):
// a language version sorts before its release candidates, which sort before its
// first release.
func TestGoVersionOrder(t *testing.T) {
	order := []string{"go1.20", "go1.21", "go1.21rc1", "go1.21.0", "go1.22", "go1.22.0", "go1.22.1",
		"go1.22.10", "go1.23rc1", "go1.23rc2", "go1.23.0", "go1.24.4", "go1.27.3"}
	for i := range order {
		for j := range order {
			got := version.Compare(order[i], order[j])
			want := gocmp.Compare(i, j)
			if got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", order[i], order[j], got, want)
			}
		}
	}
}

func TestGoModRequired(t *testing.T) {
	tests := []struct {
		goLine, toolchain, want string
	}{
		{"", "", ""},
		{"1.16", "", "go1.16"},
		{"1.20", "", "go1.20"},
		{"1.21", "", "go1.21.0"},
		{"1.27", "", "go1.27.0"},
		{"1.27.3", "", "go1.27.3"},
		{"1.25rc1", "", "go1.25rc1"},
		{"1.22", "go1.22.5", "go1.22.5"},
		{"1.22.1", "go1.21.0", "go1.22.1"},
		{"1.22", "default", "go1.22.0"},
		{"1.22", "go1.27.3-bigcorp", "go1.27.3"},
		{"1.22", "go1.27.3+auto", "go1.27.3"},
	}
	for _, tt := range tests {
		got := goModVersions{Go: tt.goLine, Toolchain: tt.toolchain}.required()
		if got != tt.want {
			t.Errorf("go %q toolchain %q: required %q, want %q", tt.goLine, tt.toolchain, got, tt.want)
		}
	}
}

func TestNeedsNewerGo(t *testing.T) {
	tests := []struct {
		req, suite string
		want       bool
	}{
		{"", "go1.24.4", false},
		{"go1.22.0", "go1.24.4", false},
		{"go1.24.4", "go1.24.4", false},
		{"go1.24.5", "go1.24.4", true},
		{"go1.25rc1", "go1.24.4", true},
		{"go1.27.3", "go1.24.4", true},
		{"go1.21.0", "", true},
	}
	for _, tt := range tests {
		if got := needsNewerGo(tt.req, tt.suite); got != tt.want {
			t.Errorf("needsNewerGo(%q, %q) = %t, want %t", tt.req, tt.suite, got, tt.want)
		}
	}
}

func TestParseGoMod(t *testing.T) {
	tests := []struct {
		name, mod string
		want      goModVersions
		err       string
	}{
		{"plain", "module example.com/m\n\ngo 1.27.3\n", goModVersions{Go: "1.27.3"}, ""},
		{"toolchain and comments", "// go 1.99\nmodule m // go 1.98\ngo 1.22 // the language\ntoolchain go1.27.3\n",
			goModVersions{Go: "1.22", Toolchain: "go1.27.3"}, ""},
		{"blocks are skipped", "module m\nrequire (\n\tgo v1.0.0\n\ttoolchain v1.0.0 // indirect\n)\nreplace (\n go => ./go\n)\ngo 1.23rc1\n",
			goModVersions{Go: "1.23rc1"}, ""},
		{"no go line", "module m\n", goModVersions{}, ""},
		{"crlf", "module m\r\ngo 1.25.0\r\n", goModVersions{Go: "1.25.0"}, ""},
		{"repeated", "go 1.21\ngo 1.22\n", goModVersions{}, "repeated go"},
		{"bad go", "go 1.22.x\n", goModVersions{}, "invalid go version"},
		{"go prefix", "go go1.22\n", goModVersions{}, "invalid go version"},
		{"bad toolchain", "go 1.22\ntoolchain 1.22\n", goModVersions{}, "invalid toolchain"},
		{"two words", "go 1.22 1.23\n", goModVersions{}, "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseGoMod([]byte(tt.mod))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// FuzzParseGoMod: go.mod files are untrusted input. A parse that succeeds yields a
// go line that names a valid Go version and a required release that is one.
func FuzzParseGoMod(f *testing.F) {
	f.Add("module m\ngo 1.27.3\ntoolchain go1.27.4\n")
	f.Add("module m\nrequire (\ngo v1\n)\ngo 1.21\n")
	f.Add("go 1.22 // x\ntoolchain default\n")
	f.Add("(\n)\n)\ngo 1.2rc1")
	f.Fuzz(func(t *testing.T, mod string) {
		v, err := parseGoMod([]byte(mod))
		if err != nil {
			return
		}
		if v.Go == "" {
			if v.required() != "" {
				t.Fatalf("no go line but required %q", v.required())
			}
			return
		}
		if !version.IsValid("go" + v.Go) {
			t.Fatalf("go line %q is not a valid version", v.Go)
		}
		if req := v.required(); !version.IsValid(req) || version.Compare(req, "go"+v.Go) < 0 {
			t.Fatalf("required %q for go %q", req, v.Go)
		}
	})
}

// fakeFetcher serves the releases listed in served ("go1.27.3/amd64") from a host
// directory with a bin/go, fails others as not served, and returns err for any listed
// in broken.
type fakeFetcher struct {
	dir    string
	served map[string]bool
	broken map[string]error
	calls  []string
}

func (f *fakeFetcher) FetchGoToolchain(ctx context.Context, ver, arch string) (sandbox.FetchedGoToolchain, error) {
	key := ver + "/" + arch
	f.calls = append(f.calls, key)
	if err := f.broken[key]; err != nil {
		return sandbox.FetchedGoToolchain{}, err
	}
	if !f.served[key] {
		return sandbox.FetchedGoToolchain{}, fmt.Errorf("fake: %s: %w", key, sandbox.ErrGoToolchainNotServed)
	}
	return sandbox.FetchedGoToolchain{Version: ver, Arch: arch, Module: "golang.org/toolchain@v0.0.1-" + ver + ".linux-" + arch,
		Sum: "h1:fake=", Dir: f.dir}, nil
}

func newFakeFetcher(t *testing.T, served ...string) *fakeFetcher {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "go"), []byte("go"), 0o755); err != nil {
		t.Fatal(err)
	}
	f := &fakeFetcher{dir: dir, served: map[string]bool{}, broken: map[string]error{}}
	for _, s := range served {
		f.served[s] = true
	}
	return f
}

func TestChooseGoToolchain(t *testing.T) {
	hashErr := errors.New("verifying module: checksum mismatch")
	tests := []struct {
		name   string
		served []string
		broken map[string]error
		accel  bool
		arch   string // "" means an error
		source string
		errIs  error
		errHas []string
		calls  []string
	}{
		{name: "riscv64 served", served: []string{"go1.27.3/riscv64", "go1.27.3/amd64"}, accel: true,
			arch: "riscv64", source: atesor.GoToolchainProxyRISCV64, calls: []string{"go1.27.3/riscv64"}},
		{name: "riscv64 served without accel", served: []string{"go1.27.3/riscv64"},
			arch: "riscv64", source: atesor.GoToolchainProxyRISCV64, calls: []string{"go1.27.3/riscv64"}},
		{name: "amd64 with accel", served: []string{"go1.27.3/amd64"}, accel: true,
			arch: "amd64", source: atesor.GoToolchainProxyAMD64, calls: []string{"go1.27.3/riscv64", "go1.27.3/amd64"}},
		{name: "amd64 without accel", served: []string{"go1.27.3/amd64"}, errIs: ErrGoToolchainUnavailable,
			errHas: []string{"go1.27.3", "go1.24.4", "accelerated toolchain", "turn the accelerated toolchain on", "GOPROXY", "v0.0.1-go1.27.3.linux-riscv64"},
			calls:  []string{"go1.27.3/riscv64"}},
		{name: "neither served", accel: true, errIs: ErrGoToolchainUnavailable,
			errHas: []string{"neither", "GOPROXY"}, calls: []string{"go1.27.3/riscv64", "go1.27.3/amd64"}},
		{name: "hash mismatch never falls back", served: []string{"go1.27.3/amd64"}, accel: true,
			broken: map[string]error{"go1.27.3/riscv64": hashErr}, errIs: hashErr, calls: []string{"go1.27.3/riscv64"}},
		{name: "amd64 hash mismatch", accel: true,
			broken: map[string]error{"go1.27.3/amd64": hashErr}, errIs: hashErr, calls: []string{"go1.27.3/riscv64", "go1.27.3/amd64"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeFetcher(t, tt.served...)
			for k, v := range tt.broken {
				f.broken[k] = v
			}
			got, source, err := chooseGoToolchain(context.Background(), f, "go1.27.3", "go1.24.4", tt.accel, "the accelerated toolchain is off: --no-accel")
			if d := cmp.Diff(tt.calls, f.calls); d != "" {
				t.Errorf("fetches (-want +got):\n%s", d)
			}
			if tt.arch == "" {
				if err == nil || !errors.Is(err, tt.errIs) {
					t.Fatalf("error %v, want %v", err, tt.errIs)
				}
				for _, s := range tt.errHas {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not say %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Arch != tt.arch || source != tt.source || got.Version != "go1.27.3" {
				t.Errorf("got %s/%s from %q, want %s from %q", got.Version, got.Arch, source, tt.arch, tt.source)
			}
		})
	}
}

// acceleratedSandbox is the fake sandbox reporting an accelerated toolchain.
type acceleratedSandbox struct {
	*sandboxtest.Sandbox
	accel bool
}

func (a acceleratedSandbox) Toolchain() sandbox.Toolchain {
	if a.accel {
		return sandbox.Toolchain{Go: sandbox.ToolchainPart{Accelerated: true}}
	}
	return sandbox.Toolchain{Go: sandbox.ToolchainPart{Reason: "acceleration is turned off (--no-accel)"}}
}

// goToolchainRun is a run over a fake sandbox whose repository has go.mod mod and
// whose go command says it is suite.
func goToolchainRun(t *testing.T, mod, suite string, accel bool, f sandbox.GoToolchainFetcher) (*run, *atesor.State, *sandboxtest.Sandbox) {
	t.Helper()
	r, s, sb := testRunOver(t, atesor.BuildGo)
	r.p.opts.goToolchains = f
	r.sb = acceleratedSandbox{Sandbox: sb, accel: accel}
	if err := sb.WriteFile(context.Background(), s.RepoDir+"/go.mod", []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	if suite == "" {
		sb.OnPrefix("GOTOOLCHAIN=local go env GOVERSION", sandboxtest.Fail(127, "sh: 1: go: not found"))
	} else {
		sb.OnPrefix("GOTOOLCHAIN=local go env GOVERSION", sandboxtest.OK(suite+"\n"))
	}
	return r, s, sb
}

func TestEnsureGoToolchainFetchesAMD64WithAccel(t *testing.T) {
	f := newFakeFetcher(t, "go1.27.3/amd64")
	r, s, sb := goToolchainRun(t, "module m\ngo 1.27.3\n", "go1.24.4", true, f)
	sb.On("go version", sandboxtest.OK("go version go1.27.3 linux/amd64\n"))
	if err := r.ensureGoToolchain(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	want := &atesor.GoToolchain{Version: "go1.27.3", Arch: "amd64", Source: atesor.GoToolchainProxyAMD64, Required: "go1.27.3",
		SuiteVersion: "go1.24.4", Module: "golang.org/toolchain@v0.0.1-go1.27.3.linux-amd64", Sum: "h1:fake=",
		GOROOT: "/opt/atesor/go/go1.27.3"}
	if d := cmp.Diff(want, s.GoToolchain); d != "" {
		t.Fatalf("state (-want +got):\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(sb.Root(), "opt/atesor/go/go1.27.3/bin/go")); err != nil {
		t.Errorf("the release was not copied in: %v", err)
	}
	wrapper, err := os.ReadFile(filepath.Join(sb.Root(), "opt/atesor/go/bin/go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"GOROOT='/opt/atesor/go/go1.27.3'", "GOTOOLCHAIN=local", "GOARCH=riscv64", "CGO_ENABLED=1", `exec "$GOROOT/bin/go" "$@"`} {
		if !strings.Contains(string(wrapper), w) {
			t.Errorf("the wrapper does not set %s:\n%s", w, wrapper)
		}
	}
	lines := strings.Join(sb.Lines(), "\n")
	chmod, ver := strings.Index(lines, "-exec chmod a+x"), strings.Index(lines, "\ngo version")
	if chmod < 0 || ver < chmod || !strings.Contains(lines, "/opt/atesor/go/go1.27.3'/pkg/tool") {
		t.Errorf("the release's programs were not made executable before go version ran:\n%s", lines)
	}
	env := buildEnv(s)
	if len(env) == 0 || !strings.HasPrefix(env[0], "PATH=/opt/atesor/go/bin:") {
		t.Errorf("build environment %q does not put the wrappers first", env)
	}
	if got := goInstallLine(s, "/stage/bin"); !strings.HasPrefix(got, "go build -buildvcs=false -o '/stage/bin'/ ") {
		t.Errorf("a cross build installs with %q (go install refuses GOBIN for cross builds)", got)
	}
	if pre := goToolchainPrereq(s); !strings.Contains(pre, "golang.org/toolchain@v0.0.1-go1.27.3.linux-amd64 (h1:fake=)") || !strings.Contains(pre, "GOTOOLCHAIN=local") {
		t.Errorf("recipe prerequisite %q", pre)
	}
	// Decided once per run.
	n := len(sb.Lines())
	if err := r.ensureGoToolchain(context.Background(), s); err != nil || len(sb.Lines()) != n || len(f.calls) != 2 {
		t.Errorf("second call: err %v, commands %d -> %d, fetches %v", err, n, len(sb.Lines()), f.calls)
	}
}

func TestEnsureGoToolchainRISCV64(t *testing.T) {
	f := newFakeFetcher(t, "go1.27.3/riscv64")
	r, s, sb := goToolchainRun(t, "module m\ngo 1.25\ntoolchain go1.27.3\n", "go1.24.4", false, f)
	sb.On("go version", sandboxtest.OK("go version go1.27.3 linux/riscv64\n"))
	if err := r.ensureGoToolchain(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if s.GoToolchain.Arch != "riscv64" || s.GoToolchain.Source != atesor.GoToolchainProxyRISCV64 || s.GoToolchain.Required != "go1.27.3" {
		t.Fatalf("toolchain %+v", s.GoToolchain)
	}
	wrapper, err := os.ReadFile(filepath.Join(sb.Root(), "opt/atesor/go/bin/go"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(wrapper), "GOARCH") {
		t.Errorf("the riscv64 wrapper sets GOARCH:\n%s", wrapper)
	}
	if got := goInstallLine(s, "/b"); !strings.Contains(got, "go install") {
		t.Errorf("native build installs with %q", got)
	}
}

func TestEnsureGoToolchainSuiteIsNewEnough(t *testing.T) {
	f := newFakeFetcher(t, "go1.27.3/riscv64")
	r, s, _ := goToolchainRun(t, "module m\ngo 1.22\n", "go1.24.4", true, f)
	if err := r.ensureGoToolchain(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	want := &atesor.GoToolchain{Version: "go1.24.4", Arch: "riscv64", Source: atesor.GoToolchainSuite, Required: "go1.22.0", SuiteVersion: "go1.24.4"}
	if d := cmp.Diff(want, s.GoToolchain); d != "" {
		t.Errorf("state (-want +got):\n%s", d)
	}
	if len(f.calls) != 0 || len(goToolchainEnv(s)) != 0 || goToolchainPrereq(s) != "" {
		t.Errorf("fetched %v, env %q", f.calls, goToolchainEnv(s))
	}
}

func TestEnsureGoToolchainUnavailableIsSetupError(t *testing.T) {
	f := newFakeFetcher(t, "go1.27.3/amd64")
	r, s, _ := goToolchainRun(t, "module m\ngo 1.27.3\n", "go1.24.4", false, f)
	err := r.ensureGoToolchain(context.Background(), s)
	if !errors.Is(err, ErrGoToolchainUnavailable) {
		t.Fatalf("error %v", err)
	}
	if s.FailureClass != atesor.FailureSetup || !strings.Contains(s.EscalationReason, "--no-accel") {
		t.Errorf("class %q reason %q", s.FailureClass, s.EscalationReason)
	}
}

// TestEnsureGoToolchainWrongBinary: a release whose go does not report its version
// in the sandbox is a setup error, not a silent fallback to the suite's Go.
func TestEnsureGoToolchainWrongBinary(t *testing.T) {
	f := newFakeFetcher(t, "go1.27.3/amd64")
	r, s, sb := goToolchainRun(t, "module m\ngo 1.27.3\n", "go1.24.4", true, f)
	sb.On("go version", sandboxtest.Fail(126, "cannot execute binary file"))
	if err := r.ensureGoToolchain(context.Background(), s); err == nil || s.FailureClass != atesor.FailureSetup {
		t.Fatalf("error %v class %q", err, s.FailureClass)
	}
}

func TestUsesGo(t *testing.T) {
	for line, want := range map[string]bool{
		"go build -o bin/ ./...":                       true,
		"cd m && GOTOOLCHAIN=auto go test ./...":       true,
		"apt-get install -y golang-go":                 false,
		"echo go":                                      false,
		"make && go vet ./...":                         true,
		"cargo build --release":                        false,
		"(cd sub; go generate ./...)":                  true,
		"GOFLAGS=-mod=mod go install example.com/x@v1": true,
	} {
		if got := usesGo(line); got != want {
			t.Errorf("usesGo(%q) = %t, want %t", line, got, want)
		}
	}
}

// TestReplayUsesTheRecordedGoToolchain: a replay fetches and uses the release the port
// ran with (here the amd64 build), before the recipe's first go command.
func TestReplayUsesTheRecordedGoToolchain(t *testing.T) {
	src, err := filepath.Abs("../testdata/packages/newgo")
	if err != nil {
		t.Fatal(err)
	}
	p, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	fake := sandboxtest.New(t, p)
	fake.On("go version", sandboxtest.OK("go version go1.27.3 linux/amd64\n"))
	f := newFakeFetcher(t, "go1.27.3/amd64")
	pl, err := New(Config{Sandbox: acceleratedSandbox{Sandbox: fake, accel: true}, OutputDir: t.TempDir()}, WithGoToolchains(f))
	if err != nil {
		t.Fatal(err)
	}
	tc := &atesor.GoToolchain{Version: "go1.27.3", Arch: "amd64", Source: atesor.GoToolchainProxyAMD64, Required: "go1.27.3",
		Module: "golang.org/toolchain@v0.0.1-go1.27.3.linux-amd64", Sum: "h1:fake=", GOROOT: "/opt/atesor/go/go1.27.3"}
	in := ReplayInput{Package: "newgo", Source: src, Recipe: "## Commands\n\n```" + recipe.CommandsFence + "\ngo build -buildvcs=false -o bin/ ./...\n```\n",
		Artifacts: []atesor.Artifact{{Path: "/workspace/newgo/bin/newgo", SHA256: "00", Role: atesor.ArtifactPrimary}}, GoToolchain: tc}
	res, err := pl.Replay(context.Background(), in, "debian", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"go1.27.3/amd64"}, f.calls); d != "" {
		t.Errorf("fetches (-want +got):\n%s", d)
	}
	var build *atesor.Command
	for _, c := range fake.Commands() {
		if strings.HasPrefix(c.Line, "go build") {
			build = &c
		}
	}
	if build == nil || len(build.Env) == 0 || !strings.HasPrefix(build.Env[0], "PATH=/opt/atesor/go/bin:") {
		t.Fatalf("the recipe's go build ran with %+v (verdict %s, %s)", build, res.Verdict, res.Failure)
	}
}

// A run resumed into a fresh sandbox puts the fetched release back before it reapplies
// the fixes (which may run the go command) and whatever node resumes runs.
func TestResumeRestoresTheFetchedGoToolchain(t *testing.T) {
	f := newFakeFetcher(t, "go1.27.3/amd64")
	r, s, sb := goToolchainRun(t, "module m\ngo 1.27.3\n", "go1.24.4", true, f)
	sb.On("go version", sandboxtest.OK("go version go1.27.3 linux/amd64\n"))
	sb.OnPrefix("test -d ", sandboxtest.Fail(1, ""))
	r.src, r.hostTree, r.state = &source.Source{Kind: source.Dir}, t.TempDir(), s
	s.Request.OutputDir = t.TempDir()
	s.GoToolchain = &atesor.GoToolchain{Version: "go1.27.3", Arch: "amd64", Source: atesor.GoToolchainProxyAMD64, Required: "go1.27.3",
		Module: "golang.org/toolchain@v0.0.1-go1.27.3.linux-amd64", Sum: "h1:fake=", GOROOT: "/opt/atesor/go/go1.27.3"}
	s.FixAttempts = []atesor.FixAttempt{{Attempt: 1, Actions: []atesor.Action{{Type: atesor.ActionCommand, Command: "go mod tidy"}}}}
	if err := r.ensureRepo(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(sb.Root(), "opt/atesor/go/go1.27.3/bin/go")); err != nil {
		t.Fatalf("the recorded release is not back in the fresh sandbox: %v", err)
	}
	var tidy *atesor.Command
	version := -1
	for i, c := range sb.Commands() {
		switch {
		case c.Line == "go version":
			version = i
		case c.Line == "go mod tidy":
			tidy = &c
			if version < 0 {
				t.Errorf("the fix ran before the release was checked (commands %q)", sb.Lines())
			}
		}
	}
	if tidy == nil || len(tidy.Env) == 0 || !strings.HasPrefix(tidy.Env[0], "PATH=/opt/atesor/go/bin:") {
		t.Errorf("the reapplied fix ran with %+v", tidy)
	}
}

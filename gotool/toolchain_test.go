package gotool

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// fakeFetcher serves the releases listed in served ("go1.27.3/amd64") from a host
// directory with a bin/go, fails others as not served, and returns err for any listed
// in broken.
type fakeFetcher struct {
	dir    string
	served map[string]bool
	broken map[string]error
	calls  []string
}

func (f *fakeFetcher) Fetch(ctx context.Context, ver, arch string) (Release, error) {
	key := ver + "/" + arch
	f.calls = append(f.calls, key)
	if err := f.broken[key]; err != nil {
		return Release{}, err
	}
	if !f.served[key] {
		return Release{}, fmt.Errorf("fake: %s: %w", key, ErrNotServed)
	}
	return Release{Version: ver, Arch: arch, Module: "golang.org/toolchain@v0.0.1-" + ver + ".linux-" + arch,
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

func TestChoose(t *testing.T) {
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
		{name: "amd64 without accel", served: []string{"go1.27.3/amd64"}, errIs: ErrUnavailable,
			errHas: []string{"go1.27.3", "go1.24.4", "accelerated toolchain", "turn the accelerated toolchain on", "GOPROXY", "v0.0.1-go1.27.3.linux-riscv64"},
			calls:  []string{"go1.27.3/riscv64"}},
		{name: "neither served", accel: true, errIs: ErrUnavailable,
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
			got, source, err := choose(context.Background(), f, "go1.27.3", "go1.24.4", tt.accel, "the accelerated toolchain is off: --no-accel")
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

// ensureOver is a fake sandbox whose repository has go.mod mod and whose go command
// says it is suite, and the setup Ensure gets for it; events collects what it emits.
func ensureOver(t *testing.T, mod, suite string, accel bool, f Fetcher) (Setup, *sandboxtest.Sandbox, *[]atesor.Event) {
	t.Helper()
	p, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	sb := sandboxtest.New(t, p)
	sb.SetRepo("pkg")
	if err := sb.WriteFile(context.Background(), "/workspace/pkg/go.mod", []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	if suite == "" {
		sb.OnPrefix("GOTOOLCHAIN=local go env GOVERSION", sandboxtest.Fail(127, "sh: 1: go: not found"))
	} else {
		sb.OnPrefix("GOTOOLCHAIN=local go env GOVERSION", sandboxtest.OK(suite+"\n"))
	}
	var events []atesor.Event
	cfg := Setup{Sandbox: acceleratedSandbox{Sandbox: sb, accel: accel}, Fetcher: f,
		Emit: func(e atesor.Event) { events = append(events, e) }, Logger: slog.New(slog.DiscardHandler)}
	return cfg, sb, &events
}

// ensure runs Ensure on the repository's go.mod and keeps the toolchain it returns in
// s, as the pipeline does.
func ensure(t *testing.T, cfg Setup, s *atesor.State) error {
	t.Helper()
	tc, err := Ensure(context.Background(), cfg, ModPath(s.RepoDir, s.Detection), s.GoToolchain)
	if tc != nil {
		s.GoToolchain = tc
	}
	return err
}

func newState() *atesor.State {
	s := &atesor.State{}
	s.RepoName, s.RepoDir = "pkg", "/workspace/pkg"
	s.Detection = &atesor.Detection{BuildSystem: atesor.BuildGo}
	return s
}

func TestEnsureGoToolchainFetchesAMD64WithAccel(t *testing.T) {
	f := newFakeFetcher(t, "go1.27.3/amd64")
	cfg, sb, events := ensureOver(t, "module m\ngo 1.27.3\n", "go1.24.4", true, f)
	s := newState()
	sb.On("go version", sandboxtest.OK("go version go1.27.3 linux/amd64\n"))
	if err := ensure(t, cfg, s); err != nil {
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
	env := Env(s.GoToolchain)
	if len(env) == 0 || !strings.HasPrefix(env[0], "PATH=/opt/atesor/go/bin:") {
		t.Errorf("build environment %q does not put the wrappers first", env)
	}
	if len(*events) != 2 || !strings.Contains((*events)[0].Line, "fetching it through the Go module proxy") || (*events)[1].Line != "Go toolchain: go1.27.3 linux/amd64 (proxy amd64-accelerated)" {
		t.Errorf("events %+v", *events)
	}
	if got := InstallLine(s.GoToolchain, "/stage/bin"); !strings.HasPrefix(got, "go build -buildvcs=false -o '/stage/bin'/ ") {
		t.Errorf("a cross build installs with %q (go install refuses GOBIN for cross builds)", got)
	}
	if pre := RecipePrerequisite(s.GoToolchain); !strings.Contains(pre, "golang.org/toolchain@v0.0.1-go1.27.3.linux-amd64 (h1:fake=)") || !strings.Contains(pre, "GOTOOLCHAIN=local") {
		t.Errorf("recipe prerequisite %q", pre)
	}
}

func TestEnsureGoToolchainRISCV64(t *testing.T) {
	f := newFakeFetcher(t, "go1.27.3/riscv64")
	cfg, sb, _ := ensureOver(t, "module m\ngo 1.25\ntoolchain go1.27.3\n", "go1.24.4", false, f)
	s := newState()
	sb.On("go version", sandboxtest.OK("go version go1.27.3 linux/riscv64\n"))
	if err := ensure(t, cfg, s); err != nil {
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
	if got := InstallLine(s.GoToolchain, "/b"); !strings.Contains(got, "go install") {
		t.Errorf("native build installs with %q", got)
	}
}

func TestEnsureGoToolchainSuiteIsNewEnough(t *testing.T) {
	f := newFakeFetcher(t, "go1.27.3/riscv64")
	cfg, _, _ := ensureOver(t, "module m\ngo 1.22\n", "go1.24.4", true, f)
	s := newState()
	if err := ensure(t, cfg, s); err != nil {
		t.Fatal(err)
	}
	want := &atesor.GoToolchain{Version: "go1.24.4", Arch: "riscv64", Source: atesor.GoToolchainSuite, Required: "go1.22.0", SuiteVersion: "go1.24.4"}
	if d := cmp.Diff(want, s.GoToolchain); d != "" {
		t.Errorf("state (-want +got):\n%s", d)
	}
	if len(f.calls) != 0 || len(Env(s.GoToolchain)) != 0 || RecipePrerequisite(s.GoToolchain) != "" {
		t.Errorf("fetched %v, env %q", f.calls, Env(s.GoToolchain))
	}
}

func TestEnsureGoToolchainUnavailableIsSetupError(t *testing.T) {
	f := newFakeFetcher(t, "go1.27.3/amd64")
	cfg, _, _ := ensureOver(t, "module m\ngo 1.27.3\n", "go1.24.4", false, f)
	s := newState()
	err := ensure(t, cfg, s)
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("error %v", err)
	}
	var se *SetupError
	if !errors.As(err, &se) || !strings.Contains(se.Err.Error(), "--no-accel") || !strings.HasPrefix(err.Error(), "go toolchain: ") {
		t.Errorf("error %q is not a setup error that says why", err)
	}
}

// TestEnsureGoToolchainWrongBinary: a release whose go does not report its version
// in the sandbox is a setup error, not a silent fallback to the suite's Go.
func TestEnsureGoToolchainWrongBinary(t *testing.T) {
	f := newFakeFetcher(t, "go1.27.3/amd64")
	cfg, sb, _ := ensureOver(t, "module m\ngo 1.27.3\n", "go1.24.4", true, f)
	s := newState()
	sb.On("go version", sandboxtest.Fail(126, "cannot execute binary file"))
	var se *SetupError
	if err := ensure(t, cfg, s); !errors.As(err, &se) || s.GoToolchain == nil || s.GoToolchain.Arch != "amd64" {
		t.Fatalf("error %v (want a setup error), toolchain %+v (want the release that failed)", err, s.GoToolchain)
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
		if got := UsesGo(line); got != want {
			t.Errorf("UsesGo(%q) = %t, want %t", line, got, want)
		}
	}
}

// TestEnsureRecorded: a recorded suite toolchain is kept without a command; a recorded
// fetched release is fetched again by its version and build and put into the fresh
// sandbox, without reading the go.mod or asking the suite's go again.
func TestEnsureRecorded(t *testing.T) {
	f := newFakeFetcher(t, "go1.27.3/amd64")
	cfg, sb, _ := ensureOver(t, "module m\ngo 1.99.0\n", "go1.24.4", true, f)
	suite := &atesor.GoToolchain{Version: "go1.24.4", Arch: "riscv64", Source: atesor.GoToolchainSuite}
	if tc, err := Ensure(context.Background(), cfg, "/workspace/pkg/go.mod", suite); tc != nil || err != nil || len(sb.Lines()) != 0 || len(f.calls) != 0 {
		t.Fatalf("suite: %+v %v, commands %q, fetches %v", tc, err, sb.Lines(), f.calls)
	}
	sb.On("go version", sandboxtest.OK("go version go1.27.3 linux/amd64\n"))
	fetched := &atesor.GoToolchain{Version: "go1.27.3", Arch: "amd64", Source: atesor.GoToolchainProxyAMD64, GOROOT: Root("go1.27.3")}
	if tc, err := Ensure(context.Background(), cfg, "/workspace/pkg/go.mod", fetched); tc != nil || err != nil {
		t.Fatalf("fetched: %+v %v", tc, err)
	}
	if d := cmp.Diff([]string{"go1.27.3/amd64"}, f.calls); d != "" {
		t.Errorf("fetches (-want +got):\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(sb.Root(), "opt/atesor/go/go1.27.3/bin/go")); err != nil {
		t.Errorf("the release was not copied in: %v", err)
	}
	for _, l := range sb.Lines() {
		if strings.Contains(l, "GOVERSION") {
			t.Errorf("the suite's go was asked again: %q", sb.Lines())
		}
	}
}

func TestModPath(t *testing.T) {
	for _, tt := range []struct {
		d    *atesor.Detection
		want string
	}{
		{nil, "/workspace/pkg/go.mod"},
		{&atesor.Detection{ModuleDir: "cmd/tool", BuildDir: "x"}, "/workspace/pkg/cmd/tool/go.mod"},
		{&atesor.Detection{BuildDir: "go"}, "/workspace/pkg/go/go.mod"},
		{&atesor.Detection{ModuleDir: "../../etc"}, "/workspace/pkg/etc/go.mod"},
	} {
		if got := ModPath("/workspace/pkg", tt.d); got != tt.want {
			t.Errorf("ModPath(%+v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

package gotool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/version"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/procowner"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
	"github.com/eclipse-atesor/atesor-go/internal/textlist"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// base is where fetched Go releases live inside the sandbox; its bin directory holds
// the go and gofmt wrappers and comes first on PATH.
const base = "/opt/atesor/go"

// TempWrappers is the name prefix of the host directory in which [Ensure] writes the
// go wrappers before it copies them in (the run's cleanup of stale temporary
// directories knows it).
const TempWrappers = "atesor-go-wrappers-"

// ErrUnavailable is wrapped by the error of [Ensure] when the module needs a newer Go
// than the suite's and neither a linux-riscv64 release nor (with the accelerated
// toolchain) a linux-amd64 release can be fetched.
var ErrUnavailable = errors.New("the Go toolchain the module needs is not available")

// SetupError is an error of [Ensure] that ends a port as a setup failure: the Go the
// module needs cannot be had, or the fetched release does not run in the sandbox. The
// message says what to do. Other errors of Ensure (a copy into the sandbox that failed,
// a cancelled context) are the sandbox's.
type SetupError struct{ Err error }

var _ error = (*SetupError)(nil)

// Error returns the cause's message: it already says what failed and what to do.
func (e *SetupError) Error() string { return e.Err.Error() }

// Unwrap returns the cause, so errors.Is finds [ErrUnavailable] through a SetupError.
func (e *SetupError) Unwrap() error { return e.Err }

// Setup is what [Ensure] works with.
type Setup struct {
	// Sandbox is where the build runs. Ensure runs the go command in it, copies the
	// release in, and asks it (through [sandbox.As]) whether the accelerated toolchain
	// is on.
	Sandbox atesor.Sandbox
	// Fetcher fetches the releases (nil: [NewProxyFetcher] with the default state home).
	Fetcher Fetcher
	// Emit reports the decision as progress events (nil: none). The events carry no
	// node name: the caller adds its own.
	Emit func(atesor.Event)
	// Logger logs what was read and fetched (nil: slog.Default()).
	Logger *slog.Logger
}

// Ensure decides the Go toolchain of a build, before its first go command. goMod is the
// sandbox path of the module's go.mod ([ModPath]); recorded is the toolchain the run
// recorded before (nil on the first call).
//
// With a recorded toolchain it only puts a fetched release back into a fresh sandbox
// (resume, replay). Otherwise it reads the go.mod and compares the Go it needs with the
// sandbox's: a go.mod that is missing, unreadable or refused by the go command's parser
// leaves the choice to the suite's Go (the go command then reports the same, for the
// fixer); a newer requirement fetches the release and puts it in. It returns the
// toolchain to record (nil: nothing new to record), also with an error once a release
// was chosen, so that the state says which one failed. A nil error means the toolchain
// is decided and, when fetched, in the sandbox.
func Ensure(ctx context.Context, cfg Setup, goMod string, recorded *atesor.GoToolchain) (*atesor.GoToolchain, error) {
	cfg = cfg.withDefaults()
	if t := recorded; t != nil {
		if t.GOROOT == "" {
			return nil, nil
		}
		got, err := cfg.Fetcher.Fetch(ctx, t.Version, t.Arch)
		if err != nil {
			return nil, setupFailed(fmt.Errorf("fetch %s for linux/%s again (%s): %w", t.Version, t.Arch, t.Source, err))
		}
		return nil, put(ctx, cfg, *t, got)
	}
	data, err := sandbox.ReadBounded(ctx, cfg.Sandbox, goMod, sandbox.BoundGoMod)
	if errors.Is(err, sandbox.ErrNotRegular) || errors.Is(err, sandbox.ErrTooLarge) {
		cfg.Logger.Warn("go toolchain: go.mod is not read; the suite's Go is used", "err", err)
	}
	if err != nil {
		cfg.Logger.Debug("go toolchain: no go.mod", "path", goMod, "err", err)
		return nil, nil
	}
	mv, err := parseGoMod(data)
	if err != nil {
		cfg.Logger.Warn("go toolchain: go.mod", "err", err)
		return nil, nil // the go command reports the same, for the fixer
	}
	req := mv.required()
	suite, known := suiteVersion(ctx, cfg)
	if !known || !needsNewerGo(req, suite) {
		if suite == "" {
			return nil, nil
		}
		return &atesor.GoToolchain{Version: suite, Arch: "riscv64", Source: atesor.GoToolchainSuite, Required: req, SuiteVersion: suite}, nil
	}
	cfg.Emit(atesor.Event{Kind: atesor.EventInfo, Line: fmt.Sprintf("go.mod needs %s, newer than the sandbox's Go (%s): fetching it through the Go module proxy", req, textlist.OrNone(suite))})
	accel, why := accelInfo(cfg.Sandbox)
	got, source, err := choose(ctx, cfg.Fetcher, req, suite, accel, why)
	if err != nil {
		return nil, setupFailed(err)
	}
	t := &atesor.GoToolchain{Version: got.Version, Arch: got.Arch, Source: source, Required: req,
		SuiteVersion: suite, Module: got.Module, Sum: got.Sum, GOROOT: Root(got.Version)}
	return t, put(ctx, cfg, *t, got)
}

func (cfg Setup) withDefaults() Setup {
	if cfg.Fetcher == nil {
		cfg.Fetcher = NewProxyFetcher("", nil)
	}
	if cfg.Emit == nil {
		cfg.Emit = func(atesor.Event) {}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return cfg
}

func setupFailed(err error) error {
	return fmt.Errorf("go toolchain: %w", &SetupError{Err: err})
}

// accelInfo says whether the sandbox runs the accelerated (x86_64) toolchain, and why
// not when it does not.
func accelInfo(sb atesor.Sandbox) (bool, string) {
	var tr sandbox.ToolchainReporter
	if !sandbox.As(sb, &tr) {
		return false, "the sandbox has no accelerated toolchain (only the Debian root-filesystem sandbox has one)"
	}
	t := tr.Toolchain()
	if t.C.Accelerated || t.Go.Accelerated {
		return true, ""
	}
	why := t.Go.Reason
	if why == "" {
		why = t.C.Reason
	}
	return false, "the accelerated toolchain is off: " + why
}

// choose fetches release req: the linux-riscv64 build, else (accel) the linux-amd64
// build. It returns the fetched release and its source (atesor.GoToolchainProxy*). An
// error that is not "not served" (network, checksum) stops at once: a build whose hash
// does not match is never replaced by another one.
func choose(ctx context.Context, f Fetcher, req, suite string, accel bool, accelWhy string) (Release, string, error) {
	rv, err := f.Fetch(ctx, req, "riscv64")
	if err == nil {
		return rv, atesor.GoToolchainProxyRISCV64, nil
	}
	if !errors.Is(err, ErrNotServed) {
		return rv, "", fmt.Errorf("fetch %s for linux/riscv64: %w", req, err)
	}
	have := "the sandbox's Go is " + suite
	if suite == "" {
		have = "the sandbox has no Go"
	}
	todo := fmt.Sprintf("point GOPROXY at a Go module proxy that serves %s@v0.0.1-%s.linux-riscv64, or install a distribution whose Go is at least %s", toolchainModule, req, req)
	if !accel {
		return rv, "", fmt.Errorf("%w: go.mod needs %s but %s; the Go module proxy has no linux-riscv64 build of it (%v), and its linux-amd64 build runs only with the accelerated toolchain, and %s. To port it: turn the accelerated toolchain on (Debian profile, no --no-accel), or %s",
			ErrUnavailable, req, have, err, accelWhy, todo)
	}
	av, aerr := f.Fetch(ctx, req, "amd64")
	if aerr == nil {
		return av, atesor.GoToolchainProxyAMD64, nil
	}
	if !errors.Is(aerr, ErrNotServed) {
		return av, "", fmt.Errorf("fetch %s for linux/amd64: %w", req, aerr)
	}
	return av, "", fmt.Errorf("%w: go.mod needs %s but %s; the Go module proxy serves neither its linux-riscv64 build (%v) nor its linux-amd64 build (%v). To port it: %s",
		ErrUnavailable, req, have, err, aerr, todo)
}

// goCommandRE finds a go command on a command line (go build, GOFLAGS=... go test).
var goCommandRE = regexp.MustCompile(`(^|[;&|(]\s*|\s)go\s+[a-z]`)

// UsesGo reports whether a command line runs the go command, so that the toolchain is
// decided before it runs.
func UsesGo(line string) bool { return goCommandRE.MatchString(line) }

// put copies a fetched release into the sandbox, writes the wrappers and checks that
// the go command runs.
func put(ctx context.Context, cfg Setup, t atesor.GoToolchain, got Release) error {
	if err := cfg.Sandbox.CopyIn(ctx, got.Dir, t.GOROOT); err != nil {
		return fmt.Errorf("go toolchain: copy %s into the sandbox: %w", got.Module, err)
	}
	// The wrappers go in through CopyIn: WriteFile writes only inside the repository.
	tmp, err := procowner.MkdirTemp("", TempWrappers)
	if err != nil {
		return fmt.Errorf("go toolchain: %w", err)
	}
	defer os.RemoveAll(tmp)
	for _, name := range []string{"go", "gofmt"} {
		if err := os.WriteFile(filepath.Join(tmp, name), wrapper(t, name), 0o755); err != nil {
			return fmt.Errorf("go toolchain: %w", err)
		}
	}
	if err := cfg.Sandbox.CopyIn(ctx, tmp, path.Join(base, "bin")); err != nil {
		return fmt.Errorf("go toolchain: put the go wrappers into the sandbox: %w", err)
	}
	// A module zip keeps no execute bits: set them as the go command does on first use
	// of a downloaded toolchain (pkg/tool, lib's go_GOOS_GOARCH_exec, bin).
	root := shellwords.Quote(t.GOROOT)
	chmod := "find " + root + "/pkg/tool " + root + "/bin -type f -exec chmod a+x {} + && " +
		"if [ -d " + root + "/lib ]; then find " + root + "/lib -type f -name 'go_?*_?*_exec' -exec chmod a+x {} +; fi"
	if res, err := cfg.Sandbox.Exec(ctx, atesor.Command{Line: chmod, Dir: "/", Timeout: 2 * time.Minute}); err != nil || !res.OK() {
		return fmt.Errorf("go toolchain: make %s executable: %v: %s", t.GOROOT, err, strings.TrimSpace(res.Output))
	}
	res, err := cfg.Sandbox.Exec(ctx, atesor.Command{Line: "go version", Dir: "/", Env: Env(&t), Timeout: 2 * time.Minute})
	if err != nil {
		return fmt.Errorf("go toolchain: %w", err)
	}
	want := "go version " + t.Version + " linux/" + t.Arch
	if !res.OK() || !strings.Contains(res.Output, want) {
		return setupFailed(fmt.Errorf("%s does not run in the sandbox (wanted %q): exit %d: %s", got.Module, want, res.ExitCode, strings.TrimSpace(res.Output)))
	}
	cfg.Logger.Info("go toolchain", "toolchain", t.String(), "module", t.Module, "sum", t.Sum)
	cfg.Emit(atesor.Event{Kind: atesor.EventInfo, Line: "Go toolchain: " + t.String()})
	return nil
}

// Root is a release's GOROOT inside the sandbox. It is the same for both builds of a
// release: GOROOT paths end up in the binaries (as the same path did in the
// accelerator's bit-identical comparison), so they must not differ by the build that
// happened to be served. A replay recomputes it rather than trust a recorded one.
func Root(goVersion string) string {
	return path.Join(base, goVersion)
}

// wrapper is the script on PATH in front of a fetched release's go (or gofmt): it pins
// the release (GOROOT, GOTOOLCHAIN=local, so the go command never switches again) and,
// for the amd64 build, makes it build for riscv64 with cgo on when a C compiler is
// there, as the native go command defaults to (the build info records the setting, so
// the binaries equal the riscv64 toolchain's only then).
func wrapper(t atesor.GoToolchain, name string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "#!/bin/sh\n# atesor: %s, fetched as %s (%s) because go.mod needs %s\n", t.String(), t.Module, t.Sum, t.Required)
	fmt.Fprintf(&b, "export GOROOT=%s GOTOOLCHAIN=local\n", shellwords.Quote(t.GOROOT))
	if t.Arch != "riscv64" {
		b.WriteString("export GOARCH=riscv64\n")
		b.WriteString("if [ -z \"${CGO_ENABLED:-}\" ]; then\n" +
			"  if command -v \"${CC:-gcc}\" >/dev/null 2>&1; then export CGO_ENABLED=1; else export CGO_ENABLED=0; fi\n" +
			"fi\n")
	}
	fmt.Fprintf(&b, "exec \"$GOROOT/bin/%s\" \"$@\"\n", name)
	return b.Bytes()
}

// Env is the environment that puts a fetched release's wrappers first on PATH, for
// every command that may run the go command (build, fixes, tests, performance mode);
// nil for the suite's Go (t nil or without GOROOT).
func Env(t *atesor.GoToolchain) []string {
	if t == nil || t.GOROOT == "" {
		return nil
	}
	return []string{"PATH=" + base + "/bin:" + sandbox.DefaultPath}
}

// suiteVersion asks the sandbox's own go command for its version. known is false when
// the go command ran but its answer could not be read (then nothing is fetched and the
// build reports what it reports); "" with known true means there is no go command.
func suiteVersion(ctx context.Context, cfg Setup) (v string, known bool) {
	res, err := cfg.Sandbox.Exec(ctx, atesor.Command{Line: "GOTOOLCHAIN=local go env GOVERSION", Dir: "/", Timeout: 5 * time.Minute})
	if err != nil {
		cfg.Logger.Warn("go toolchain: cannot ask the sandbox's go for its version", "err", err)
		return "", false
	}
	if res.ExitCode == 127 {
		return "", true
	}
	v = strings.TrimSpace(res.Stdout)
	if i := strings.IndexAny(v, " -+"); i >= 0 {
		v = v[:i]
	}
	if !res.OK() || !version.IsValid(v) {
		cfg.Logger.Warn("go toolchain: unreadable suite Go version", "exit", res.ExitCode, "output", res.Output)
		return "", false
	}
	return v, true
}

// RecipePrerequisite is the recipe's prerequisite line for a Go toolchain other than
// the suite's ("" otherwise): which release, its module version and hash, and how it
// was put first on PATH, so that a reader can set up the same Go.
func RecipePrerequisite(t *atesor.GoToolchain) string {
	if t == nil || t.GOROOT == "" {
		return ""
	}
	return fmt.Sprintf("- Go %s (go.mod needs %s; the distribution has %s): %s (%s) from the Go module proxy, %s, first on PATH with GOTOOLCHAIN=local.\n",
		t.Version, t.Required, textlist.OrNone(t.SuiteVersion), t.Module, t.Sum, t.Source)
}

package graph

// Go toolchain versions. A go.mod whose go or toolchain line asks for a newer Go than
// the sandbox's distribution has cannot be built with the suite's Go (the build would
// try to switch toolchains on its own). Before the first go command of a build the run
// compares the versions; when the suite's Go is too old it fetches the release through
// the Go module proxy as the go command would (golang.org/toolchain): the linux-riscv64
// build when the proxy has it, else, when the accelerated toolchain is on, the
// linux-amd64 build, which runs natively with GOARCH=riscv64 and builds the same
// binaries. The release is copied into the sandbox and a small go wrapper on PATH pins
// it (GOROOT, GOTOOLCHAIN=local). The state and the report say which toolchain ran.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/version"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/procowner"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// goToolchainBase is where fetched Go releases live inside the sandbox; its bin
// directory holds the go and gofmt wrappers and comes first on PATH.
const goToolchainBase = "/opt/atesor/go"

// ErrGoToolchainUnavailable is wrapped by the setup error of a run whose go.mod needs
// a newer Go than the suite's when neither a linux-riscv64 release nor (with the
// accelerated toolchain) a linux-amd64 release can be fetched.
var ErrGoToolchainUnavailable = errors.New("the Go toolchain the module needs is not available")

// WithGoToolchains sets how Go releases newer than the suite's are fetched (default:
// [sandbox.NewGoProxyFetcher] with the default state home, which uses the host's go
// command, GOPROXY and GOSUMDB).
func WithGoToolchains(f sandbox.GoToolchainFetcher) Option {
	return func(o *options) { o.goToolchains = f }
}

// goModVersions are the go and toolchain lines of a go.mod ("1.27.3", "go1.27.3").
type goModVersions struct {
	Go, Toolchain string
}

// goLineRE is a go directive's version, as the go command accepts it.
var goLineRE = regexp.MustCompile(`^([1-9][0-9]*)\.(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?([a-z]+[0-9]+)?$`)

// parseGoMod reads the go and toolchain directives of a go.mod. Only top-level lines
// count (not the contents of require, replace, ... blocks); comments are ignored. A
// repeated directive or a version the go command would refuse is an error.
func parseGoMod(data []byte) (goModVersions, error) {
	var v goModVersions
	depth := 0
	for n, line := range strings.Split(string(data), "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch {
		case depth > 0 && f[0] == ")":
			depth--
			continue
		case depth > 0:
			continue
		case f[len(f)-1] == "(":
			depth++
			continue
		}
		if f[0] != "go" && f[0] != "toolchain" {
			continue
		}
		if len(f) != 2 {
			return v, fmt.Errorf("go.mod:%d: usage: %s <version>", n+1, f[0])
		}
		switch f[0] {
		case "go":
			if v.Go != "" {
				return v, fmt.Errorf("go.mod:%d: repeated go statement", n+1)
			}
			if !goLineRE.MatchString(f[1]) {
				return v, fmt.Errorf("go.mod:%d: invalid go version %q: must match format 1.23.0", n+1, f[1])
			}
			v.Go = f[1]
		case "toolchain":
			if v.Toolchain != "" {
				return v, fmt.Errorf("go.mod:%d: repeated toolchain statement", n+1)
			}
			if f[1] != "default" && !version.IsValid(toolchainVersion(f[1])) {
				return v, fmt.Errorf("go.mod:%d: invalid toolchain name %q: must be default or go1.23.0", n+1, f[1])
			}
			v.Toolchain = f[1]
		}
	}
	return v, nil
}

// toolchainVersion is the Go version of a toolchain name: go1.27.3-custom and
// go1.27.3+auto are go1.27.3; "default" and other names have none ("").
func toolchainVersion(name string) string {
	if !strings.HasPrefix(name, "go1") {
		return ""
	}
	if i := strings.IndexAny(name, "-+"); i >= 0 {
		name = name[:i]
	}
	if !version.IsValid(name) {
		return ""
	}
	return name
}

// required is the Go release the module asks for: the newer of its go line and its
// toolchain line, as the go command chooses when it switches. A go line that is a
// language version (1.27) names the first release of it (go1.27.0) from Go 1.21 on,
// as the go command does. "" when the go.mod has no go line.
func (v goModVersions) required() string {
	if v.Go == "" {
		return ""
	}
	req := "go" + v.Go
	if version.Lang(req) == req && version.Compare(req, "go1.21") >= 0 {
		req += ".0"
	}
	if t := toolchainVersion(v.Toolchain); t != "" && version.Compare(t, req) > 0 {
		req = t
	}
	return req
}

// needsNewerGo reports whether a module requiring req cannot be built by the suite's
// Go (suite == "": the sandbox has no Go at all).
func needsNewerGo(req, suite string) bool {
	if req == "" {
		return false
	}
	return suite == "" || version.Compare(req, suite) > 0
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

// chooseGoToolchain fetches release req: the linux-riscv64 build, else (accel) the
// linux-amd64 build. It returns the fetched release and its source
// (atesor.GoToolchainProxy*). An error that is not "not served" (network, checksum)
// stops at once: a build whose hash does not match is never replaced by another one.
func chooseGoToolchain(ctx context.Context, f sandbox.GoToolchainFetcher, req, suite string, accel bool, accelWhy string) (sandbox.FetchedGoToolchain, string, error) {
	rv, err := f.FetchGoToolchain(ctx, req, "riscv64")
	if err == nil {
		return rv, atesor.GoToolchainProxyRISCV64, nil
	}
	if !errors.Is(err, sandbox.ErrGoToolchainNotServed) {
		return rv, "", fmt.Errorf("fetch %s for linux/riscv64: %w", req, err)
	}
	have := "the sandbox's Go is " + suite
	if suite == "" {
		have = "the sandbox has no Go"
	}
	todo := fmt.Sprintf("point GOPROXY at a Go module proxy that serves %s@v0.0.1-%s.linux-riscv64, or install a distribution whose Go is at least %s", sandbox.GoToolchainModule, req, req)
	if !accel {
		return rv, "", fmt.Errorf("%w: go.mod needs %s but %s; the Go module proxy has no linux-riscv64 build of it (%v), and its linux-amd64 build runs only with the accelerated toolchain, and %s. To port it: turn the accelerated toolchain on (Debian profile, no --no-accel), or %s",
			ErrGoToolchainUnavailable, req, have, err, accelWhy, todo)
	}
	av, aerr := f.FetchGoToolchain(ctx, req, "amd64")
	if aerr == nil {
		return av, atesor.GoToolchainProxyAMD64, nil
	}
	if !errors.Is(aerr, sandbox.ErrGoToolchainNotServed) {
		return av, "", fmt.Errorf("fetch %s for linux/amd64: %w", req, aerr)
	}
	return av, "", fmt.Errorf("%w: go.mod needs %s but %s; the Go module proxy serves neither its linux-riscv64 build (%v) nor its linux-amd64 build (%v). To port it: %s",
		ErrGoToolchainUnavailable, req, have, err, aerr, todo)
}

// goCommandRE finds a go command on a command line (go build, GOFLAGS=... go test).
var goCommandRE = regexp.MustCompile(`(^|[;&|(]\s*|\s)go\s+[a-z]`)

// usesGo reports whether a command line runs the go command.
func usesGo(line string) bool { return goCommandRE.MatchString(line) }

// ensureGoToolchain runs before the first go command of a build: it records which Go
// the port uses and, when the module needs a newer one, fetches it and puts it in the
// sandbox. On resume (a fresh sandbox) it puts the recorded release in again. A
// toolchain that cannot be had is a setup failure, with what to do in the message.
func (r *run) ensureGoToolchain(ctx context.Context, s *atesor.State) error {
	if r.goToolchainIn {
		return nil
	}
	if t := s.GoToolchain; t != nil {
		if t.GOROOT == "" {
			r.goToolchainIn = true
			return nil
		}
		return r.installGoToolchain(ctx, s, t.Version, t.Arch, t.Source)
	}
	mod := goModPath(s)
	data, err := sandbox.ReadBounded(ctx, r.sb, mod, sandbox.BoundGoMod)
	if errors.Is(err, sandbox.ErrNotRegular) || errors.Is(err, sandbox.ErrTooLarge) {
		r.log.Warn("go toolchain: go.mod is not read; the suite's Go is used", "err", err)
	}
	if err != nil {
		r.log.Debug("go toolchain: no go.mod", "path", mod, "err", err)
		r.goToolchainIn = true
		return nil
	}
	mv, err := parseGoMod(data)
	if err != nil {
		r.log.Warn("go toolchain: go.mod", "err", err)
		r.goToolchainIn = true // the go command reports the same, for the fixer
		return nil
	}
	req := mv.required()
	suite, known := r.suiteGoVersion(ctx)
	if !known || !needsNewerGo(req, suite) {
		if suite != "" {
			s.GoToolchain = &atesor.GoToolchain{Version: suite, Arch: "riscv64", Source: atesor.GoToolchainSuite, Required: req, SuiteVersion: suite}
		}
		r.goToolchainIn = true
		return nil
	}
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeBuild, Line: fmt.Sprintf("go.mod needs %s, newer than the sandbox's Go (%s): fetching it through the Go module proxy", req, orNone(suite))})
	accel, why := accelInfo(r.sb)
	f := r.p.goToolchains()
	got, source, err := chooseGoToolchain(ctx, f, req, suite, accel, why)
	if err != nil {
		return r.goToolchainFailed(s, err)
	}
	s.GoToolchain = &atesor.GoToolchain{Version: got.Version, Arch: got.Arch, Source: source, Required: req,
		SuiteVersion: suite, Module: got.Module, Sum: got.Sum, GOROOT: goToolchainRoot(got.Version, got.Arch)}
	return r.putGoToolchain(ctx, s, got)
}

// installGoToolchain puts a recorded release into a fresh sandbox (resume).
func (r *run) installGoToolchain(ctx context.Context, s *atesor.State, ver, arch, source string) error {
	got, err := r.p.goToolchains().FetchGoToolchain(ctx, ver, arch)
	if err != nil {
		return r.goToolchainFailed(s, fmt.Errorf("fetch %s for linux/%s again (%s): %w", ver, arch, source, err))
	}
	return r.putGoToolchain(ctx, s, got)
}

func (r *run) goToolchainFailed(s *atesor.State, err error) error {
	s.FailureClass = atesor.FailureSetup
	s.EscalationReason = "go toolchain: " + err.Error()
	return fmt.Errorf("go toolchain: %w", err)
}

// putGoToolchain copies a fetched release into the sandbox, writes the wrappers and
// checks that the go command runs.
func (r *run) putGoToolchain(ctx context.Context, s *atesor.State, got sandbox.FetchedGoToolchain) error {
	t := s.GoToolchain
	if err := r.sb.CopyIn(ctx, got.Dir, t.GOROOT); err != nil {
		return fmt.Errorf("go toolchain: copy %s into the sandbox: %w", got.Module, err)
	}
	// The wrappers go in through CopyIn: WriteFile writes only inside the repository.
	tmp, err := procowner.MkdirTemp("", tempGoWrappers)
	if err != nil {
		return fmt.Errorf("go toolchain: %w", err)
	}
	defer os.RemoveAll(tmp)
	for _, name := range []string{"go", "gofmt"} {
		if err := os.WriteFile(filepath.Join(tmp, name), goWrapper(*t, name), 0o755); err != nil {
			return fmt.Errorf("go toolchain: %w", err)
		}
	}
	if err := r.sb.CopyIn(ctx, tmp, path.Join(goToolchainBase, "bin")); err != nil {
		return fmt.Errorf("go toolchain: put the go wrappers into the sandbox: %w", err)
	}
	// A module zip keeps no execute bits: set them as the go command does on first use
	// of a downloaded toolchain (pkg/tool, lib's go_GOOS_GOARCH_exec, bin).
	root := shellQuote(t.GOROOT)
	chmod := "find " + root + "/pkg/tool " + root + "/bin -type f -exec chmod a+x {} + && " +
		"if [ -d " + root + "/lib ]; then find " + root + "/lib -type f -name 'go_?*_?*_exec' -exec chmod a+x {} +; fi"
	if res, err := r.sb.Exec(ctx, atesor.Command{Line: chmod, Dir: "/", Timeout: 2 * time.Minute}); err != nil || !res.OK() {
		return fmt.Errorf("go toolchain: make %s executable: %v: %s", t.GOROOT, err, strings.TrimSpace(res.Output))
	}
	res, err := r.sb.Exec(ctx, atesor.Command{Line: "go version", Dir: "/", Env: goToolchainEnv(s), Timeout: 2 * time.Minute})
	if err != nil {
		return fmt.Errorf("go toolchain: %w", err)
	}
	want := "go version " + t.Version + " linux/" + t.Arch
	if !res.OK() || !strings.Contains(res.Output, want) {
		return r.goToolchainFailed(s, fmt.Errorf("%s does not run in the sandbox (wanted %q): exit %d: %s", got.Module, want, res.ExitCode, strings.TrimSpace(res.Output)))
	}
	r.goToolchainIn = true
	r.log.Info("go toolchain", "toolchain", t.String(), "module", t.Module, "sum", t.Sum)
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeBuild, Line: "Go toolchain: " + t.String()})
	return nil
}

// goToolchainRoot is a release's GOROOT inside the sandbox. It is the same for both
// builds of a release: GOROOT paths end up in the binaries (as the same path did in
// the accelerator's bit-identical comparison), so they must not differ by the build
// that happened to be served.
func goToolchainRoot(ver, _ string) string {
	return path.Join(goToolchainBase, ver)
}

// goWrapper is the script on PATH in front of a fetched release's go (or gofmt): it
// pins the release (GOROOT, GOTOOLCHAIN=local, so the go command never switches again)
// and, for the amd64 build, makes it build for riscv64 with cgo on when a C compiler is
// there, as the native go command defaults to (the build info records the setting, so
// the binaries equal the riscv64 toolchain's only then).
func goWrapper(t atesor.GoToolchain, name string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "#!/bin/sh\n# atesor: %s, fetched as %s (%s) because go.mod needs %s\n", t.String(), t.Module, t.Sum, t.Required)
	fmt.Fprintf(&b, "export GOROOT=%s GOTOOLCHAIN=local\n", shellQuote(t.GOROOT))
	if t.Arch != "riscv64" {
		b.WriteString("export GOARCH=riscv64\n")
		b.WriteString("if [ -z \"${CGO_ENABLED:-}\" ]; then\n" +
			"  if command -v \"${CC:-gcc}\" >/dev/null 2>&1; then export CGO_ENABLED=1; else export CGO_ENABLED=0; fi\n" +
			"fi\n")
	}
	fmt.Fprintf(&b, "exec \"$GOROOT/bin/%s\" \"$@\"\n", name)
	return b.Bytes()
}

// goToolchainEnv is the environment that puts a fetched release's wrappers first on
// PATH; nil for the suite's Go.
func goToolchainEnv(s *atesor.State) []string {
	if s.GoToolchain == nil || s.GoToolchain.GOROOT == "" {
		return nil
	}
	return []string{"PATH=" + goToolchainBase + "/bin:" + sandbox.DefaultPath}
}

// suiteGoVersion asks the sandbox's own go command for its version. known is false
// when the go command ran but its answer could not be read (then nothing is fetched and
// the build reports what it reports); "" with known true means there is no go command.
func (r *run) suiteGoVersion(ctx context.Context) (v string, known bool) {
	res, err := r.sb.Exec(ctx, atesor.Command{Line: "GOTOOLCHAIN=local go env GOVERSION", Dir: "/", Timeout: 5 * time.Minute})
	if err != nil {
		r.log.Warn("go toolchain: cannot ask the sandbox's go for its version", "err", err)
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
		r.log.Warn("go toolchain: unreadable suite Go version", "exit", res.ExitCode, "output", res.Output)
		return "", false
	}
	return v, true
}

// goModPath is the sandbox path of the go.mod the build uses.
func goModPath(s *atesor.State) string {
	dir := "."
	if d := s.Detection; d != nil {
		switch {
		case d.ModuleDir != "":
			dir = d.ModuleDir
		case d.BuildDir != "":
			dir = d.BuildDir
		}
	}
	return path.Join(s.RepoDir, path.Clean("/"+dir), "go.mod")
}

// goToolchains is the pipeline's fetcher of Go releases.
func (p *Pipeline) goToolchains() sandbox.GoToolchainFetcher {
	if p.opts.goToolchains != nil {
		return p.opts.goToolchains
	}
	return sandbox.NewGoProxyFetcher()
}

// goToolchainPrereq is the recipe's prerequisite line for a Go toolchain other than the
// suite's ("" otherwise).
func goToolchainPrereq(s *atesor.State) string {
	t := s.GoToolchain
	if t == nil || t.GOROOT == "" {
		return ""
	}
	return fmt.Sprintf("- Go %s (go.mod needs %s; the distribution has %s): %s (%s) from the Go module proxy, %s, first on PATH with GOTOOLCHAIN=local.\n",
		t.Version, t.Required, orNone(t.SuiteVersion), t.Module, t.Sum, t.Source)
}

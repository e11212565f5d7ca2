package gotool

// Go toolchain releases fetched through the Go module proxy, the way the go command
// itself fetches them when GOTOOLCHAIN asks for a newer Go: module golang.org/toolchain,
// version v0.0.1-go1.27.3.linux-riscv64. The host's go command does the download, so
// the proxy is the host's GOPROXY and the zip's hash is checked against the checksum
// database (GOSUMDB) exactly as the go command checks any module.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/version"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/internal/hostenv"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// toolchainModule is the module path of Go toolchain releases on the module proxy.
const toolchainModule = "golang.org/toolchain"

// ErrNotServed is returned (wrapped) by a [Fetcher] when the module proxy does not
// serve the requested release for the requested architecture. Only this error lets
// [Ensure] try the other build of a release: any other failure stops it.
var ErrNotServed = errors.New("the Go module proxy does not serve this toolchain")

// Release is a Go release on the host, ready to be copied into a sandbox.
type Release struct {
	// Version is the Go version (go1.27.3); Arch the architecture of its programs
	// (riscv64, amd64).
	Version string `json:"version"`
	Arch    string `json:"arch"`
	// Module is the module version fetched
	// (golang.org/toolchain@v0.0.1-go1.27.3.linux-amd64) and Sum its go.sum hash.
	Module string `json:"module"`
	Sum    string `json:"sum"`
	// Dir is the host directory of the release: its GOROOT (bin/go, pkg/tool, src).
	// Treat it as read-only: it is shared by every run.
	Dir string `json:"dir"`
}

// Fetcher fetches Go releases for linux/arch. A release the proxy does not have returns
// an error wrapping [ErrNotServed]; any other error (no network, a hash that does not
// match the checksum database) is returned as it is.
type Fetcher interface {
	// Fetch returns release goVersion (go1.27.3) built for linux/arch (riscv64, amd64).
	Fetch(ctx context.Context, goVersion, arch string) (Release, error)
}

// moduleVersion returns the golang.org/toolchain module version of a Go release for
// linux/arch: v0.0.1-go1.27.3.linux-riscv64. It rejects what is not a Go release
// version (go1.27.3, go1.28rc1) or a known architecture name.
func moduleVersion(goVersion, arch string) (string, error) {
	// From Go 1.21 on a language version (go1.27) names no release; go1.27.0 does.
	if !version.IsValid(goVersion) || version.Lang(goVersion) == goVersion && version.Compare(goVersion, "go1.21") >= 0 {
		return "", fmt.Errorf("%q is not a Go release version (go1.27.3)", goVersion)
	}
	if !goArchName.MatchString(arch) {
		return "", fmt.Errorf("%q is not an architecture name", arch)
	}
	return "v0.0.1-" + goVersion + ".linux-" + arch, nil
}

var goArchName = regexp.MustCompile(`^[a-z0-9]+$`)

// ProxyFetcher fetches Go releases with the host's go command (`go mod download`),
// into a module cache under the state home (<home>/toolchains/go/modcache). The go
// command's module cache does what the sandbox cache does for root filesystems: it
// locks, extracts into a temporary directory and renames, so concurrent runs share one
// download and a half-extracted release is never used. The extracted tree is read-only;
// remove the cache with `GOMODCACHE=<dir> go clean -modcache`.
type ProxyFetcher struct {
	home   string
	goCmd  string
	logger *slog.Logger
}

var _ Fetcher = (*ProxyFetcher)(nil)

// NewProxyFetcher returns a fetcher whose module cache is under the state home home
// ("": [sandbox.StateHome]) and which uses the go command found on the host's PATH;
// it logs each download to logger (nil: slog.Default()).
func NewProxyFetcher(home string, logger *slog.Logger) *ProxyFetcher {
	if home == "" {
		home = sandbox.StateHome()
	}
	if logger == nil {
		logger = slog.Default()
	}
	return &ProxyFetcher{home: home, goCmd: "go", logger: logger}
}

// ModCache returns the module cache the fetcher downloads into.
func (f *ProxyFetcher) ModCache() string {
	return filepath.Join(f.home, "toolchains", "go", "modcache")
}

// goModDownload is the JSON `go mod download -json` prints for one module.
type goModDownload struct {
	Path, Version, Error, Zip, Dir, Sum string
}

// Fetch downloads golang.org/toolchain@v0.0.1-<goVersion>.linux-<arch> through the
// host's GOPROXY, checked against GOSUMDB, and returns its directory.
func (f *ProxyFetcher) Fetch(ctx context.Context, goVersion, arch string) (Release, error) {
	v, err := moduleVersion(goVersion, arch)
	if err != nil {
		return Release{}, fmt.Errorf("gotool: fetch Go toolchain: %w", err)
	}
	mod := toolchainModule + "@" + v
	goCmd, err := exec.LookPath(f.goCmd)
	if err != nil {
		return Release{}, fmt.Errorf("gotool: fetching %s needs the go command on the host (it downloads through GOPROXY and checks GOSUMDB): install Go on the host: %w", mod, err)
	}
	cache := f.ModCache()
	if got, ok := cachedGoToolchain(cache, goVersion, arch, v); ok {
		return got, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return Release{}, fmt.Errorf("gotool: %w", err)
	}
	// An empty working directory, so no go.mod or go.work of the caller is consulted.
	work, err := os.MkdirTemp(filepath.Dir(cache), ".download-")
	if err != nil {
		return Release{}, fmt.Errorf("gotool: %w", err)
	}
	defer os.RemoveAll(work)
	cmd := exec.CommandContext(ctx, goCmd, "mod", "download", "-json", mod)
	cmd.Dir = work
	// The host's GOPROXY, GOSUMDB, GONOSUMDB, GOPRIVATE, GOINSECURE and netrc stay as
	// they are: the download is the go command's own. Provider keys and other
	// credentials go (hostenv), except GOAUTH, the go command's own credential setting
	// for a private proxy.
	extra := []string{"GOMODCACHE=" + cache, "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GO111MODULE=on", "GOWORK=off"}
	if v, ok := os.LookupEnv("GOAUTH"); ok {
		extra = append([]string{"GOAUTH=" + v}, extra...)
	}
	cmd.Env = hostenv.Environ(extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var d goModDownload
	if err := json.Unmarshal(stdout.Bytes(), &d); err != nil && runErr == nil {
		return Release{}, fmt.Errorf("gotool: go mod download %s: unreadable output: %w", mod, err)
	}
	if d.Error == "" && runErr != nil {
		d.Error = strings.TrimSpace(stderr.String() + " " + runErr.Error())
	}
	if d.Error != "" {
		if ctx.Err() != nil {
			return Release{}, fmt.Errorf("gotool: go mod download %s: %w", mod, ctx.Err())
		}
		if notServed(d.Error) {
			return Release{}, fmt.Errorf("gotool: %s: %w (%s)", mod, ErrNotServed, excerpt.FirstLine(d.Error))
		}
		return Release{}, fmt.Errorf("gotool: go mod download %s failed: %s: check the host's GOPROXY and GOSUMDB (go env GOPROXY GOSUMDB)", mod, excerpt.FirstLine(d.Error))
	}
	if d.Dir == "" || d.Sum == "" {
		return Release{}, fmt.Errorf("gotool: go mod download %s returned no directory or hash", mod)
	}
	if _, err := os.Stat(filepath.Join(d.Dir, "bin", "go")); err != nil {
		return Release{}, fmt.Errorf("gotool: %s has no bin/go: %w", mod, err)
	}
	f.logger.Info("gotool: Go toolchain fetched", "module", mod, "sum", d.Sum, "dir", d.Dir)
	return Release{Version: goVersion, Arch: arch, Module: mod, Sum: d.Sum, Dir: d.Dir}, nil
}

// cachedGoToolchain returns a release already in the module cache: the go command
// extracts a module into its directory only after the zip's hash was checked, marks an
// unfinished extraction with <dir>.partial, and records the hash in <version>.ziphash.
// (The go command itself asks the proxy again even for a cached version.)
func cachedGoToolchain(cache, goVersion, arch, v string) (Release, bool) {
	dir := filepath.Join(cache, filepath.FromSlash(toolchainModule)+"@"+v)
	if _, err := os.Stat(filepath.Join(dir, "bin", "go")); err != nil {
		return Release{}, false
	}
	if _, err := os.Stat(dir + ".partial"); err == nil {
		return Release{}, false
	}
	sum, err := os.ReadFile(filepath.Join(cache, "cache", "download", filepath.FromSlash(toolchainModule), "@v", v+".ziphash"))
	if err != nil || !strings.HasPrefix(string(sum), "h1:") {
		return Release{}, false
	}
	return Release{Version: goVersion, Arch: arch, Module: toolchainModule + "@" + v,
		Sum: strings.TrimSpace(string(sum)), Dir: dir}, true
}

// notServed reports whether a go mod download error says the proxy has no such
// version (as opposed to a network or checksum failure, which must not be retried with
// another build).
var notServedRe = regexp.MustCompile(`(?i)\b(404|410|403) (not found|gone|forbidden)|not available|unknown revision|invalid version|no matching versions|not found: `)

func notServed(msg string) bool {
	if strings.Contains(msg, "SECURITY ERROR") || strings.Contains(msg, "checksum mismatch") {
		return false
	}
	if strings.Contains(msg, "reading file://") && strings.Contains(msg, "no such file or directory") {
		return true // a file:// proxy without that version
	}
	return notServedRe.MatchString(msg)
}

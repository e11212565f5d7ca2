package sandbox

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
)

// GoToolchainModule is the module path of Go toolchain releases on the module proxy.
const GoToolchainModule = "golang.org/toolchain"

// ErrGoToolchainNotServed is returned (wrapped) by a [GoToolchainFetcher] when the
// module proxy does not serve the requested release for the requested architecture.
var ErrGoToolchainNotServed = errors.New("the Go module proxy does not serve this toolchain")

// FetchedGoToolchain is a Go release on the host, ready to be copied into a sandbox.
type FetchedGoToolchain struct {
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

// GoToolchainFetcher fetches Go releases for linux/arch. A release the proxy does not
// have returns an error wrapping [ErrGoToolchainNotServed]; any other error (no
// network, a hash that does not match the checksum database) is returned as it is.
type GoToolchainFetcher interface {
	FetchGoToolchain(ctx context.Context, goVersion, arch string) (FetchedGoToolchain, error)
}

// GoToolchainVersion returns the golang.org/toolchain module version of a Go release
// for linux/arch: v0.0.1-go1.27.3.linux-riscv64. It rejects what is not a Go release
// version (go1.27.3, go1.28rc1) or a known architecture name.
func GoToolchainVersion(goVersion, arch string) (string, error) {
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

// GoProxyFetcher fetches Go releases with the host's go command (`go mod download`),
// into a module cache under the state home (<home>/toolchains/go/modcache). The go
// command's module cache does what the sandbox cache does for root filesystems: it
// locks, extracts into a temporary directory and renames, so concurrent runs share one
// download and a half-extracted release is never used. The extracted tree is read-only;
// remove the cache with `GOMODCACHE=<dir> go clean -modcache`.
type GoProxyFetcher struct {
	home   string
	goCmd  string
	logger *slog.Logger
}

var _ GoToolchainFetcher = (*GoProxyFetcher)(nil)

// NewGoProxyFetcher returns a fetcher using the state home of the options ([WithHome])
// and the go command found on the host's PATH.
func NewGoProxyFetcher(opts ...Option) *GoProxyFetcher {
	o := buildOptions(opts)
	return &GoProxyFetcher{home: o.home, goCmd: "go", logger: o.logger}
}

// ModCache returns the module cache the fetcher downloads into.
func (f *GoProxyFetcher) ModCache() string {
	return filepath.Join(f.home, "toolchains", "go", "modcache")
}

// goModDownload is the JSON `go mod download -json` prints for one module.
type goModDownload struct {
	Path, Version, Error, Zip, Dir, Sum string
}

// FetchGoToolchain downloads golang.org/toolchain@v0.0.1-<goVersion>.linux-<arch>
// through the host's GOPROXY, checked against GOSUMDB, and returns its directory.
func (f *GoProxyFetcher) FetchGoToolchain(ctx context.Context, goVersion, arch string) (FetchedGoToolchain, error) {
	v, err := GoToolchainVersion(goVersion, arch)
	if err != nil {
		return FetchedGoToolchain{}, fmt.Errorf("sandbox: fetch Go toolchain: %w", err)
	}
	mod := GoToolchainModule + "@" + v
	goCmd, err := exec.LookPath(f.goCmd)
	if err != nil {
		return FetchedGoToolchain{}, fmt.Errorf("sandbox: fetching %s needs the go command on the host (it downloads through GOPROXY and checks GOSUMDB): install Go on the host: %w", mod, err)
	}
	cache := f.ModCache()
	if got, ok := cachedGoToolchain(cache, goVersion, arch, v); ok {
		return got, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return FetchedGoToolchain{}, fmt.Errorf("sandbox: %w", err)
	}
	// An empty working directory, so no go.mod or go.work of the caller is consulted.
	work, err := os.MkdirTemp(filepath.Dir(cache), ".download-")
	if err != nil {
		return FetchedGoToolchain{}, fmt.Errorf("sandbox: %w", err)
	}
	defer os.RemoveAll(work)
	cmd := exec.CommandContext(ctx, goCmd, "mod", "download", "-json", mod)
	cmd.Dir = work
	// The host's GOPROXY, GOSUMDB, GONOSUMDB, GOPRIVATE, GOINSECURE and netrc stay as
	// they are: the download is the go command's own.
	cmd.Env = append(os.Environ(), "GOMODCACHE="+cache, "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local",
		"GO111MODULE=on", "GOWORK=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var d goModDownload
	if err := json.Unmarshal(stdout.Bytes(), &d); err != nil && runErr == nil {
		return FetchedGoToolchain{}, fmt.Errorf("sandbox: go mod download %s: unreadable output: %w", mod, err)
	}
	if d.Error == "" && runErr != nil {
		d.Error = strings.TrimSpace(stderr.String() + " " + runErr.Error())
	}
	if d.Error != "" {
		if ctx.Err() != nil {
			return FetchedGoToolchain{}, fmt.Errorf("sandbox: go mod download %s: %w", mod, ctx.Err())
		}
		if notServed(d.Error) {
			return FetchedGoToolchain{}, fmt.Errorf("sandbox: %s: %w (%s)", mod, ErrGoToolchainNotServed, firstLineOf(d.Error))
		}
		return FetchedGoToolchain{}, fmt.Errorf("sandbox: go mod download %s failed: %s: check the host's GOPROXY and GOSUMDB (go env GOPROXY GOSUMDB)", mod, firstLineOf(d.Error))
	}
	if d.Dir == "" || d.Sum == "" {
		return FetchedGoToolchain{}, fmt.Errorf("sandbox: go mod download %s returned no directory or hash", mod)
	}
	if _, err := os.Stat(filepath.Join(d.Dir, "bin", "go")); err != nil {
		return FetchedGoToolchain{}, fmt.Errorf("sandbox: %s has no bin/go: %w", mod, err)
	}
	f.logger.Info("sandbox: Go toolchain fetched", "module", mod, "sum", d.Sum, "dir", d.Dir)
	return FetchedGoToolchain{Version: goVersion, Arch: arch, Module: mod, Sum: d.Sum, Dir: d.Dir}, nil
}

// cachedGoToolchain returns a release already in the module cache: the go command
// extracts a module into its directory only after the zip's hash was checked, marks an
// unfinished extraction with <dir>.partial, and records the hash in <version>.ziphash.
// (The go command itself asks the proxy again even for a cached version.)
func cachedGoToolchain(cache, goVersion, arch, v string) (FetchedGoToolchain, bool) {
	dir := filepath.Join(cache, filepath.FromSlash(GoToolchainModule)+"@"+v)
	if _, err := os.Stat(filepath.Join(dir, "bin", "go")); err != nil {
		return FetchedGoToolchain{}, false
	}
	if _, err := os.Stat(dir + ".partial"); err == nil {
		return FetchedGoToolchain{}, false
	}
	sum, err := os.ReadFile(filepath.Join(cache, "cache", "download", filepath.FromSlash(GoToolchainModule), "@v", v+".ziphash"))
	if err != nil || !strings.HasPrefix(string(sum), "h1:") {
		return FetchedGoToolchain{}, false
	}
	return FetchedGoToolchain{Version: goVersion, Arch: arch, Module: GoToolchainModule + "@" + v,
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

func firstLineOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

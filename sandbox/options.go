package sandbox

import (
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/eclipse-atesor/atesor-go/internal/archive"
	"github.com/eclipse-atesor/atesor-go/internal/statehome"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/jail"
)

// Option configures a sandbox backend or [Provision].
type Option func(*options)

type options struct {
	home          string
	suite         string
	mirror        string
	alpineMirror  string
	alpineVersion string
	repo          string
	keep          bool
	caBundle      *string
	timeout       time.Duration
	cc, cxx       string
	progress      func(Progress)
	logger        *slog.Logger
	image         string
	workdir       string
	dockerBin     string
	limits        Limits
	extract       archive.Limits
	noAccel       bool
	base          string // a kept run's upper directory, layered over the cache (WithBase)
}

func buildOptions(opts []Option) *options {
	o := &options{timeout: DefaultTimeout}
	for _, f := range opts {
		f(o)
	}
	if o.home == "" {
		o.home = StateHome()
	}
	if o.logger == nil {
		o.logger = slog.Default()
	}
	return o
}

// WithHome sets the state home (default [StateHome]).
func WithHome(dir string) Option { return func(o *options) { o.home = dir } }

// WithSuite sets the Debian suite to bootstrap (default trixie).
func WithSuite(suite string) Option { return func(o *options) { o.suite = suite } }

// WithMirror sets the Debian mirror URL (default: the first main archive of the host's
// apt configuration, else the one mmdebstrap picks).
func WithMirror(url string) Option { return func(o *options) { o.mirror = url } }

// WithAlpine sets the Alpine mirror base URL (the directory that holds v3.x/) and the
// Alpine release (for example 3.22.1) of the minirootfs tarball, both needed for the
// Alpine profile (the CLI sets them from ATESOR_ALPINE_MIRROR and ATESOR_ALPINE_VERSION).
func WithAlpine(mirror, version string) Option {
	return func(o *options) { o.alpineMirror, o.alpineVersion = mirror, version }
}

// WithRepo names the package repository: its directory is /workspace/<name>, commands
// run there by default, and file writes must stay inside it. Without it, the first
// CopyIn below /workspace decides.
func WithRepo(name string) Option { return func(o *options) { o.repo = name } }

// WithKeep keeps the per-run overlay upper directory (what the run changed) on Close.
func WithKeep(keep bool) Option { return func(o *options) { o.keep = keep } }

// WithCABundle sets the host CA bundle bound read-only over the sandbox's
// /etc/ssl/certs/ca-certificates.crt; "" disables it. The default is $SSL_CERT_FILE, else
// /etc/ssl/certs/ca-certificates.crt when it exists.
func WithCABundle(path string) Option { return func(o *options) { o.caBundle = &path } }

// WithTimeout sets the timeout of commands whose Command.Timeout is zero (default
// [DefaultTimeout]).
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithCompilers sets CC and CXX inside the sandbox.
func WithCompilers(cc, cxx string) Option { return func(o *options) { o.cc, o.cxx = cc, cxx } }

// WithProgress reports the steps of provisioning to fn (the CLI prints them).
func WithProgress(fn func(Progress)) Option { return func(o *options) { o.progress = fn } }

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithImage sets the Docker image (default debian:trixie or alpine:latest by profile).
func WithImage(image string) Option { return func(o *options) { o.image = image } }

// WithWorkdir sets the host directory of a [Host] or [Docker] sandbox's file tree (the
// sandbox's /workspace is <dir>/workspace). Default: a new directory under the state
// home, removed on Close.
func WithWorkdir(dir string) Option { return func(o *options) { o.workdir = dir } }

// WithDockerBinary sets the docker CLI program (default "docker" from PATH).
func WithDockerBinary(bin string) Option { return func(o *options) { o.dockerBin = bin } }

// StateHome returns the state home a sandbox uses without [WithHome]: the one the
// command line finds too (memory.Home: $ATESOR_HOME, else $XDG_DATA_HOME/atesor-ai, else
// ~/.local/share/atesor-ai), so an embedder that passes nothing shares the machine's
// cached root filesystems. When the environment names no home, it is a directory under
// the system's temporary directory rather than a guess at another user's home. The
// command line passes its home with WithHome.
func StateHome() string {
	if h, err := statehome.Find(os.Getenv); err == nil {
		return h
	}
	return filepath.Join(os.TempDir(), "atesor-home")
}

func (o *options) caBundlePath() string {
	if o.caBundle != nil {
		return *o.caBundle
	}
	if p := os.Getenv("SSL_CERT_FILE"); p != "" {
		return p
	}
	if _, err := os.Stat("/etc/ssl/certs/ca-certificates.crt"); err == nil {
		return "/etc/ssl/certs/ca-certificates.crt"
	}
	return ""
}

// WithExtractLimits bounds what a CopyIn of a host directory or tarball writes into the
// sandbox: maxBytes bytes (a hard link counts its bytes again) and maxEntries entries.
// Zero means the default (16 GiB, one million entries), a negative value no bound.
func WithExtractLimits(maxBytes int64, maxEntries int) Option {
	return func(o *options) { o.extract = archive.Limits{MaxBytes: maxBytes, MaxEntries: maxEntries} }
}

// WithLimits sets the per-command limits of the rootfs and Docker sandboxes (zero fields
// keep their defaults, see [Limits]).
func WithLimits(l Limits) Option { return func(o *options) { o.limits = l } }

// jailConfig is what the jail of a root-filesystem sandbox takes from the options.
func (o *options) jailConfig() jail.Config {
	return jail.Config{Logger: o.logger, Limits: o.limits, CABundle: o.caBundlePath}
}

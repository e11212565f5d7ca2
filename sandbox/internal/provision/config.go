package provision

import (
	"log/slog"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox/internal/jail"
)

// Progress is one step of a long sandbox operation (provisioning), reported to the
// callback in [Config.Progress].
type Progress struct {
	// Stage is a short machine-readable name: check, binfmt, lock, bootstrap, verify,
	// apt-update, ready.
	Stage string
	// Message is a human line, for example a line of mmdebstrap's output.
	Message string
	// Elapsed is the time since the operation started.
	Elapsed time.Duration
}

// Config is what provisioning takes from its caller: where the state home is, which
// distribution release to make from where, the checks of the host it needs, and where
// progress goes.
type Config struct {
	// Home is the state home; caches live in <Home>/sandboxes.
	Home string
	// Suite and Mirror are the Debian suite and mirror ("": [DefaultSuite] and the
	// mirror mmdebstrap picks).
	Suite, Mirror string
	// AlpineMirror and AlpineVersion are the Alpine mirror and release, both needed for
	// the Alpine profile (the CLI sets them from ATESOR_ALPINE_MIRROR and
	// ATESOR_ALPINE_VERSION).
	AlpineMirror, AlpineVersion string
	// Progress gets each step (nil: none); Logger gets the details (nil: slog.Default()).
	Progress func(Progress)
	Logger   *slog.Logger
	// Jail is how provisioning's own commands (uname -m, the package index update, apk
	// add) are entered into the tree.
	Jail jail.Config
	// CheckHost reports the host tools the platform's sandbox needs that are missing,
	// and CheckBinfmt whether riscv64 programs run (nil: no check). Provisioning calls
	// them first and changes nothing on the host for them.
	CheckHost   func(atesor.Platform) error
	CheckBinfmt func() error
}

// WithDefaults returns a copy of cfg with its nil fields filled.
func (cfg Config) WithDefaults() *Config {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Jail.Logger == nil {
		cfg.Jail.Logger = cfg.Logger
	}
	if cfg.CheckHost == nil {
		cfg.CheckHost = func(atesor.Platform) error { return nil }
	}
	if cfg.CheckBinfmt == nil {
		cfg.CheckBinfmt = func() error { return nil }
	}
	return &cfg
}

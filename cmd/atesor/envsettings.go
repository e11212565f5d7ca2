package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go/graph"
	"github.com/eclipse-atesor/atesor-go/internal/archive"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/memory"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/source"
)

// The library reads no environment variable: the command line turns the ATESOR_*
// settings into graph.Config fields and sandbox options here, so an embedder sets the
// same things in code.

// withEnvSettings sets the fields of cfg that come from environment variables: the
// copy-out bounds (see [withCopyLimits]) and the Debian mirror ($ATESOR_DEBIAN_MIRROR).
func withEnvSettings(cfg graph.Config) (graph.Config, error) {
	cfg.DebianMirror = debianMirrorSetting()
	x := envExtractLimits()
	cfg.ExtractMaxBytes, cfg.ExtractMaxEntries = x.MaxBytes, x.MaxEntries
	cfg.DownloadMaxBytes, cfg.DownloadStall = envDownloadLimits()
	return withCopyLimits(cfg)
}

// envExtractLimits are the extraction bounds from $ATESOR_EXTRACT_MAX_BYTES (bytes with
// an optional K, M or G suffix, negative: no bound) and $ATESOR_EXTRACT_MAX_ENTRIES; an
// unset or unreadable variable leaves its field zero (the default).
func envExtractLimits() archive.Limits {
	var l archive.Limits
	if v, err := sandbox.ParseSize(os.Getenv(archive.EnvMaxBytes)); err == nil {
		l.MaxBytes = v
	}
	if v, err := strconv.Atoi(strings.TrimSpace(os.Getenv(archive.EnvMaxEntries))); err == nil {
		l.MaxEntries = v
	}
	return l
}

// envDownloadLimits are the bounds of a source download from $ATESOR_DOWNLOAD_MAX_BYTES
// and $ATESOR_DOWNLOAD_STALL_TIMEOUT (a Go duration); an unset, unreadable or
// non-positive value leaves its bound zero (the default).
func envDownloadLimits() (maxBytes int64, stall time.Duration) {
	if v, err := sandbox.ParseSize(os.Getenv(source.EnvDownloadMaxBytes)); err == nil && v > 0 {
		maxBytes = v
	}
	if d, err := time.ParseDuration(strings.TrimSpace(os.Getenv(source.EnvDownloadStall))); err == nil && d > 0 {
		stall = d
	}
	return maxBytes, stall
}

// debianMirrorSetting is $ATESOR_DEBIAN_MIRROR, "" (the host's apt configuration) when
// unset or blank.
func debianMirrorSetting() string { return strings.TrimSpace(os.Getenv(knowledge.DebianMirrorEnv)) }

// envSandboxOptions are the sandbox options that come from environment variables, for
// every sandbox the command line opens, provisions, inspects or removes: the state home
// (the one [memory.Home] finds), the Debian mirror to bootstrap from
// ($ATESOR_DEBIAN_MIRROR), the Alpine mirror and release ($ATESOR_ALPINE_MIRROR,
// $ATESOR_ALPINE_VERSION), the copy-in's extraction bounds and the per-command limits.
func envSandboxOptions() []sandbox.Option {
	var opts []sandbox.Option
	if home, err := memory.Home(); err == nil {
		opts = append(opts, sandbox.WithHome(home))
	}
	if m := debianMirrorSetting(); m != "" {
		opts = append(opts, sandbox.WithMirror(m))
	}
	if m, v := os.Getenv("ATESOR_ALPINE_MIRROR"), os.Getenv("ATESOR_ALPINE_VERSION"); m != "" || v != "" {
		opts = append(opts, sandbox.WithAlpine(m, v))
	}
	if x := envExtractLimits(); x != (archive.Limits{}) {
		opts = append(opts, sandbox.WithExtractLimits(x.MaxBytes, x.MaxEntries))
	}
	if l, _ := envLimits(); l != (sandbox.Limits{}) {
		opts = append(opts, sandbox.WithLimits(l))
	}
	return opts
}

// envLimits are the per-command limits from $ATESOR_SANDBOX_MEMORY, $ATESOR_SANDBOX_PIDS
// and $ATESOR_SANDBOX_DISK; a variable that is unset, zero or unreadable leaves its
// field zero (the sandbox's default), and the error names the first unreadable one.
func envLimits() (sandbox.Limits, error) {
	var l sandbox.Limits
	var first error
	note := func(name, v string, err error) {
		if first == nil {
			first = fmt.Errorf("%s=%q: %w", name, v, err)
		}
	}
	if v := os.Getenv(sandbox.EnvDiskLimit); strings.TrimSpace(v) != "" {
		if n, err := sandbox.ParseSize(v); err != nil {
			note(sandbox.EnvDiskLimit, v, err)
		} else {
			l.Disk = n
		}
	}
	if v := os.Getenv(sandbox.EnvMemoryLimit); strings.TrimSpace(v) != "" {
		if n, err := sandbox.ParseSize(v); err != nil {
			note(sandbox.EnvMemoryLimit, v, err)
		} else {
			l.Memory = n
		}
	}
	if v := os.Getenv(sandbox.EnvPidsLimit); strings.TrimSpace(v) != "" {
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err != nil {
			note(sandbox.EnvPidsLimit, v, err)
		} else {
			l.Pids = n
		}
	}
	return l, first
}

// stateHomeText is the state home for messages: the directory, or why there is none.
func stateHomeText() string {
	home, err := memory.Home()
	if err != nil {
		return "(none: " + err.Error() + ")"
	}
	return home
}

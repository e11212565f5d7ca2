package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/eclipse-atesor/atesor-go/graph"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/memory"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// The library reads no environment variable: the command line turns the ATESOR_*
// settings into graph.Config fields and sandbox options here, so an embedder sets the
// same things in code.

// withEnvSettings sets the fields of cfg that come from environment variables: the
// copy-out bounds (see [withCopyLimits]) and the Debian mirror ($ATESOR_DEBIAN_MIRROR).
func withEnvSettings(cfg graph.Config) (graph.Config, error) {
	cfg.DebianMirror = debianMirrorSetting()
	return withCopyLimits(cfg)
}

// debianMirrorSetting is $ATESOR_DEBIAN_MIRROR, "" (the host's apt configuration) when
// unset or blank.
func debianMirrorSetting() string { return strings.TrimSpace(os.Getenv(knowledge.DebianMirrorEnv)) }

// envSandboxOptions are the sandbox options that come from environment variables, for
// every sandbox the command line opens, provisions, inspects or removes: the state home
// (the one [memory.Home] finds) and the Debian mirror to bootstrap from
// ($ATESOR_DEBIAN_MIRROR).
func envSandboxOptions() []sandbox.Option {
	var opts []sandbox.Option
	if home, err := memory.Home(); err == nil {
		opts = append(opts, sandbox.WithHome(home))
	}
	if m := debianMirrorSetting(); m != "" {
		opts = append(opts, sandbox.WithMirror(m))
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

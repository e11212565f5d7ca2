package main

import (
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go/graph"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// TestDebianMirrorSetting: $ATESOR_DEBIAN_MIRROR reaches the pipeline's Config, the
// sandboxes the command line opens and the debian:NAME resolver; unset, each falls back
// to the host's apt configuration.
func TestDebianMirrorSetting(t *testing.T) {
	t.Setenv("ATESOR_HOME", t.TempDir())
	t.Setenv("ATESOR_DEBIAN_MIRROR", " http://mirror.invalid/debian/ ")
	cfg, err := withEnvSettings(graph.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DebianMirror != "http://mirror.invalid/debian/" {
		t.Errorf("Config.DebianMirror = %q", cfg.DebianMirror)
	}
	if got := debianResolver(t.TempDir()).Mirror; got != "http://mirror.invalid/debian/" {
		t.Errorf("resolver mirror = %q", got)
	}
	if n := len(envSandboxOptions()); n != 2 {
		t.Errorf("%d sandbox options, want the home's and the mirror's", n)
	}
	t.Setenv("ATESOR_DEBIAN_MIRROR", "")
	if cfg, _ := withEnvSettings(graph.Config{}); cfg.DebianMirror != "" || len(envSandboxOptions()) != 1 {
		t.Errorf("unset: Config.DebianMirror = %q, %d sandbox options", cfg.DebianMirror, len(envSandboxOptions()))
	}
}

// TestEnvLimits: the sandbox limits come from $ATESOR_SANDBOX_MEMORY, _PIDS and _DISK
// (the library's defaults no longer read them); an unreadable value is named and
// leaves its field to the default.
func TestEnvLimits(t *testing.T) {
	t.Setenv("ATESOR_SANDBOX_MEMORY", "2G")
	t.Setenv("ATESOR_SANDBOX_PIDS", "100")
	t.Setenv("ATESOR_SANDBOX_DISK", "")
	l, err := envLimits()
	if err != nil || l != (sandbox.Limits{Memory: 2 << 30, Pids: 100}) {
		t.Errorf("envLimits = %+v, %v", l, err)
	}
	t.Setenv("ATESOR_SANDBOX_PIDS", "lots")
	l, err = envLimits()
	if err == nil || !strings.Contains(err.Error(), "ATESOR_SANDBOX_PIDS") || l.Pids != 0 || l.Memory != 2<<30 {
		t.Errorf("envLimits with PIDS=lots = %+v, %v", l, err)
	}
}

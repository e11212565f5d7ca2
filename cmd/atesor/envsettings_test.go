package main

import (
	"strings"
	"testing"
	"time"

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

// TestEnvSourceBounds: the extraction and download bounds come from their variables
// into the pipeline's Config (and the extraction bounds into the sandboxes' copy-in);
// unset, the library's defaults apply.
func TestEnvSourceBounds(t *testing.T) {
	t.Setenv("ATESOR_DEBIAN_MIRROR", "")
	t.Setenv("ATESOR_SANDBOX_MEMORY", "")
	t.Setenv("ATESOR_SANDBOX_PIDS", "")
	t.Setenv("ATESOR_SANDBOX_DISK", "")
	t.Setenv("ATESOR_HOME", t.TempDir())
	t.Setenv("ATESOR_EXTRACT_MAX_BYTES", "1G")
	t.Setenv("ATESOR_EXTRACT_MAX_ENTRIES", "-1")
	t.Setenv("ATESOR_DOWNLOAD_MAX_BYTES", "64M")
	t.Setenv("ATESOR_DOWNLOAD_STALL_TIMEOUT", "5s")
	cfg, err := withEnvSettings(graph.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ExtractMaxBytes != 1<<30 || cfg.ExtractMaxEntries != -1 || cfg.DownloadMaxBytes != 64<<20 || cfg.DownloadStall != 5*time.Second {
		t.Errorf("Config = extract %d/%d, download %d/%s", cfg.ExtractMaxBytes, cfg.ExtractMaxEntries, cfg.DownloadMaxBytes, cfg.DownloadStall)
	}
	if n := len(envSandboxOptions()); n != 2 {
		t.Errorf("%d sandbox options, want the home's and the extraction bounds'", n)
	}
	for _, v := range []string{"ATESOR_EXTRACT_MAX_BYTES", "ATESOR_EXTRACT_MAX_ENTRIES", "ATESOR_DOWNLOAD_MAX_BYTES", "ATESOR_DOWNLOAD_STALL_TIMEOUT"} {
		t.Setenv(v, "")
	}
	cfg, _ = withEnvSettings(graph.Config{})
	if cfg.ExtractMaxBytes != 0 || cfg.ExtractMaxEntries != 0 || cfg.DownloadMaxBytes != 0 || cfg.DownloadStall != 0 {
		t.Errorf("unset: Config = %+v", cfg)
	}
}

// TestEnvAlpine: the Alpine mirror and release reach the sandbox options (provisioning
// reads no environment variable).
func TestEnvAlpine(t *testing.T) {
	for _, v := range []string{"ATESOR_DEBIAN_MIRROR", "ATESOR_SANDBOX_MEMORY", "ATESOR_SANDBOX_PIDS", "ATESOR_SANDBOX_DISK", "ATESOR_EXTRACT_MAX_BYTES", "ATESOR_EXTRACT_MAX_ENTRIES"} {
		t.Setenv(v, "")
	}
	t.Setenv("ATESOR_HOME", t.TempDir())
	t.Setenv("ATESOR_ALPINE_MIRROR", "")
	t.Setenv("ATESOR_ALPINE_VERSION", "")
	if n := len(envSandboxOptions()); n != 1 {
		t.Fatalf("%d sandbox options without Alpine settings, want the home's", n)
	}
	t.Setenv("ATESOR_ALPINE_MIRROR", "http://alpine.invalid/alpine")
	t.Setenv("ATESOR_ALPINE_VERSION", "3.22.1")
	if n := len(envSandboxOptions()); n != 2 {
		t.Errorf("%d sandbox options, want the home's and Alpine's", n)
	}
}

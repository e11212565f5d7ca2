package main

import (
	"testing"

	"github.com/eclipse-atesor/atesor-go/graph"
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

package graph

import (
	"context"
	"slices"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// TestFailedConfigureForgetsItsCache: after a CMake configure that stopped at an error,
// the rebuild configures afresh, as a replay does (arpon's prefix is set only on a first
// configure); a failure after a configure that finished keeps the cache.
func TestFailedConfigureForgetsItsCache(t *testing.T) {
	const configure = "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j$(nproc)"
	const forget = "find . -maxdepth 4 -type f -name CMakeCache.txt -delete"
	tests := []struct {
		name   string
		output string
		forgot bool
	}{
		{"the configure stopped at an error",
			"CMake Error at CMakeLists.txt:118 (add_subdirectory):\n  add_subdirectory given source \"doc\" which is not an existing directory.\n\n\n-- Configuring incomplete, errors occurred!\n", true},
		{"the configure finished and a compile failed",
			"-- Configuring done (1.5s)\n-- Generating done (0.0s)\nsrc/a.c:1:10: fatal error: b.h: No such file or directory\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, s, sb := testRunOver(t, atesor.BuildCMake)
			s.Request.OutputDir = t.TempDir()
			r.state = s
			r.failBuild(context.Background(), s, "build", configure, sandboxtest.Fail(1, tt.output))
			if got := slices.Contains(sb.Lines(), forget); got != tt.forgot {
				t.Errorf("ran %q: %v, want %v (ran %q)", forget, got, tt.forgot, sb.Lines())
			}
			if s.Status != atesor.StatusBuildFailed || s.LastError == nil {
				t.Errorf("status %s, last error %+v", s.Status, s.LastError)
			}
		})
	}
}

package main

import (
	"fmt"
	"os"

	"github.com/eclipse-atesor/atesor-go/graph"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// withCopyLimits sets the run's copy-out bounds of cfg from $ATESOR_COPY_MAX_FILE_BYTES
// (each file) and $ATESOR_COPY_MAX_BYTES (the whole run); unset leaves the library's
// defaults, a negative size removes the bound.
func withCopyLimits(cfg graph.Config) (graph.Config, error) {
	for _, v := range []struct {
		name string
		dst  *int64
	}{
		{sandbox.EnvCopyMaxFileBytes, &cfg.ArtifactMaxBytes},
		{sandbox.EnvCopyMaxBytes, &cfg.CopyOutMaxBytes},
	} {
		s, ok := os.LookupEnv(v.name)
		if !ok || s == "" {
			continue
		}
		n, err := sandbox.ParseSize(s)
		if err != nil {
			return cfg, fmt.Errorf("%s=%q: %w (give bytes with an optional K, M or G suffix)", v.name, s, err)
		}
		*v.dst = n
	}
	return cfg, nil
}

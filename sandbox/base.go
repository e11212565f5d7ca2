package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WithBase layers a kept run's changes (the upper directory [WithKeep] left, see
// [Rootfs.UpperDir]) between the cached root filesystem and the new instance's own
// upper directory: the instance starts where that run ended, and what it does is still
// its own. The kept directory is never written.
func WithBase(upperDir string) Option { return func(o *options) { o.base = upperDir } }

// baseLayers is the overlay lowerdir option: the kept upper directory over lower.
func baseLayers(o *options, lower string) string {
	if o.base == "" {
		return lower
	}
	return o.base + ":" + lower
}

// KeptUpper resolves what a user gives for a kept run: its upper directory or the run
// directory that holds it (under <home>/sandboxes/runs/). It returns the upper directory
// and the package names under its /workspace.
func KeptUpper(dir string) (string, []string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, err
	}
	if fi, err := os.Stat(filepath.Join(abs, "upper")); err == nil && fi.IsDir() {
		abs = filepath.Join(abs, "upper")
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return "", nil, fmt.Errorf("kept run %s: not a directory (give the run directory or its upper directory that port --keep-sandbox left)", dir)
	}
	if strings.ContainsAny(abs, ":,\\") {
		return "", nil, fmt.Errorf("kept run %s: the overlay cannot layer a path with ':', ',' or '\\\\'; move it", abs)
	}
	entries, _ := os.ReadDir(filepath.Join(abs, "workspace"))
	var repos []string
	for _, e := range entries {
		if e.IsDir() {
			repos = append(repos, e.Name())
		}
	}
	return abs, repos, nil
}

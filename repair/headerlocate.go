package repair

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
)

// includeRoots are the directories the header-subdir rule searches: the distribution's
// include root and the local one.
var includeRoots = []string{"/usr/include", "/usr/local/include"}

// HeaderFile is a file below the sandbox's include roots.
type HeaderFile struct {
	// Path is the file's absolute path in the sandbox.
	Path string
	// Packages are the packages that install it (dpkg's record); none for a file no
	// package owns.
	Packages []string
}

// LocateFunc installs packages in the sandbox (none: nothing is installed) and then
// lists the files below the include roots whose path ends in name, an include as a
// source writes it ("doctest.h", "Eigen/Dense").
type LocateFunc func(ctx context.Context, name string, install []string) ([]HeaderFile, error)

// Bounds of a search: how deep below an include root a file may be, and how many are
// reported.
const (
	locateDepth = 6
	locateMax   = 64
)

// SandboxLocator is the [LocateFunc] of a sandbox: the platform's update and install
// commands for the packages (with network), then a fixed find below the include roots
// and dpkg-query for each file's packages (without network), with env as the commands'
// environment. The name and the packages are checked before they reach a command line.
// Without dpkg (Alpine) the files come back with no packages, and the header-subdir
// rule, which takes only a file of a package it can relate to the source, makes no fix.
func SandboxLocator(sb atesor.Sandbox, p atesor.Platform, env []string) LocateFunc {
	return func(ctx context.Context, name string, install []string) ([]HeaderFile, error) {
		if !includeName.MatchString(name) || len(name) > 200 {
			return nil, fmt.Errorf("%q is not an include name the search takes", name)
		}
		if err := installIn(ctx, sb, p, env, install); err != nil {
			return nil, err
		}
		res, err := sb.Exec(ctx, atesor.Command{Line: locateScript(name), Dir: "/", Env: env, Timeout: 2 * time.Minute})
		if err != nil {
			return nil, err
		}
		if !res.OK() {
			return nil, fmt.Errorf("the search exited %d: %s", res.ExitCode, strings.TrimSpace(excerpt.Tail(res.Stderr, 300)))
		}
		return parseLocated(res.Stdout, name), nil
	}
}

// locateScript finds the files whose path ends in /name below the include roots,
// bounded, and prints each with dpkg-query's line for it (empty when no package owns
// it, or there is no dpkg), separated by a tab. name must match includeName, which
// keeps quotes, globs and ".." out of it.
func locateScript(name string) string {
	return fmt.Sprintf(`find %s -maxdepth %d -path '*/%s' \( -type f -o -type l \) 2>/dev/null | head -n %d | `+
		`while IFS= read -r f; do printf '%%s\t%%s\n' "$f" "$(dpkg-query -S "$f" 2>/dev/null | grep -v '^diversion' | head -n 1)"; done`,
		strings.Join(includeRoots, " "), locateDepth, name, locateMax)
}

// parseLocated reads locateScript's output: lines of a path, a tab and dpkg-query's
// "pkg[:arch], pkg[:arch]: path" line. A path outside the include roots or not ending in
// /name, and a package word that is not a package name, are dropped.
func parseLocated(out, name string) []HeaderFile {
	var files []HeaderFile
	for _, line := range strings.Split(out, "\n") {
		file, owners, _ := strings.Cut(strings.TrimRight(line, "\r"), "\t")
		if !strings.HasSuffix(file, "/"+name) || strings.Contains(file, "/../") || strings.Contains(file, "/./") ||
			!slices.ContainsFunc(includeRoots, func(r string) bool { return strings.HasPrefix(file, r+"/") }) {
			continue
		}
		if slices.ContainsFunc(files, func(f HeaderFile) bool { return f.Path == file }) || len(files) == locateMax {
			continue
		}
		h := HeaderFile{Path: file}
		if list, at, ok := strings.Cut(owners, ": "); ok && at == file {
			for _, w := range strings.Split(list, ",") {
				w, _, _ = strings.Cut(strings.TrimSpace(w), ":")
				if debianPackage.MatchString(w) && !slices.Contains(h.Packages, w) {
					h.Packages = append(h.Packages, w)
				}
			}
		}
		files = append(files, h)
	}
	return files
}

// installIn installs packages in the sandbox with the platform's update and install
// commands, with network; none installs nothing. The names are checked before they
// reach a command line.
func installIn(ctx context.Context, sb atesor.Sandbox, p atesor.Platform, env []string, pkgs []string) error {
	if len(pkgs) == 0 {
		return nil
	}
	for _, pkg := range pkgs {
		if !debianPackage.MatchString(pkg) {
			return fmt.Errorf("%q is not a package name", pkg)
		}
	}
	cmd := strings.TrimSpace(p.InstallCommand)
	if cmd == "" {
		return errors.New("the platform has no install command")
	}
	line := cmd + " " + strings.Join(pkgs, " ")
	if u := strings.TrimSpace(p.UpdateCommand); u != "" {
		line = u + " && " + line
	}
	res, err := sb.Exec(ctx, atesor.Command{Line: line, Dir: "/", Env: env, Network: true, Timeout: 20 * time.Minute})
	if err != nil {
		return fmt.Errorf("installing %s: %w", strings.Join(pkgs, " "), err)
	}
	if !res.OK() {
		return fmt.Errorf("%s exited %d: %s", line, res.ExitCode, strings.TrimSpace(excerpt.Tail(res.Stdout+res.Stderr, 300)))
	}
	return nil
}

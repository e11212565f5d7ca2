package crates

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"unicode"
)

// sections are the dependency tables and their kinds (the underscore spellings are
// the old ones cargo still reads).
var sections = []struct{ key, kind string }{
	{"dependencies", KindNormal},
	{"build-dependencies", KindBuild}, {"build_dependencies", KindBuild},
	{"dev-dependencies", KindDev}, {"dev_dependencies", KindDev},
}

func (r *reader) readDecls(c *crate, tables map[string]any, target string) error {
	for _, s := range sections {
		deps := table(tables, s.key)
		for _, key := range slices.Sorted(maps.Keys(deps)) {
			d, err := r.readDecl(c, key, deps[key], s.kind, target)
			if err != nil {
				return err
			}
			r.patch(&d)
			c.decls = append(c.decls, d)
		}
	}
	return nil
}

func (r *reader) readDecl(c *crate, key string, v any, kind, target string) (decl, error) {
	d := decl{Dependency: Dependency{Name: key, Kind: kind, Target: target, Manifest: c.file, DefaultFeatures: true}, key: key}
	if !validName(key) {
		return d, fmt.Errorf("crates: %s: %q is not a valid dependency name", c.file, key)
	}
	switch v := v.(type) {
	case string:
		d.Req = v
		return d, nil
	case map[string]any:
		base, baseDir := v, c.dir
		if boolean(v, "workspace", false) {
			w, ok := r.wsDeps[key]
			if !ok {
				return d, fmt.Errorf("crates: %s inherits %s from [workspace.dependencies], which does not list it", c.file, key)
			}
			baseDir = "."
			switch w := w.(type) {
			case string:
				base = map[string]any{"version": w}
			case map[string]any:
				base = w
			default:
				return d, fmt.Errorf("crates: [workspace.dependencies] %s is neither a version nor a table", key)
			}
			// Features add up; default-features of the workspace entry holds unless
			// the member turns them on.
			d.Features = stringList(base["features"])
			d.DefaultFeatures = defaultFeatures(base) || boolean(v, "default-features", false)
		} else {
			d.DefaultFeatures = defaultFeatures(v)
		}
		d.Features = append(d.Features, stringList(v["features"])...)
		d.Optional = boolean(v, "optional", false)
		d.Req = str(base, "version")
		if p := str(base, "package"); p != "" {
			if !validName(p) {
				return d, fmt.Errorf("crates: %s: dependency %s names %q, not a valid package name", c.file, key, p)
			}
			d.Name, d.Rename = p, key
		}
		if g := str(base, "git"); g != "" {
			d.git = g
			return d, nil
		}
		if p := str(base, "path"); p != "" {
			dir, ok := within(baseDir, p)
			if !ok {
				return d, fmt.Errorf("crates: %s's path dependency %s (%s) is outside the package root; bring it into the tree or use a packaged version", c.file, key, p)
			}
			d.path = dir
		}
		return d, nil
	}
	return d, fmt.Errorf("crates: %s's dependency %s is neither a version nor a table", c.file, key)
}

// validName reports whether s is a name cargo accepts for a package, a dependency
// key or a binary target: letters, digits, "-" and "_", not starting with a digit or
// "-". Checking it keeps path separators and control characters out of the names
// that end up in file names and messages.
func validName(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	for i, r := range s {
		ok := r == '_' || unicode.IsLetter(r) || i > 0 && (r == '-' || unicode.IsDigit(r))
		if !ok {
			return false
		}
	}
	return true
}

func defaultFeatures(t map[string]any) bool {
	if b, ok := t["default-features"].(bool); ok {
		return b
	}
	return boolean(t, "default_features", true)
}

// within joins a slash path to dir and reports whether it stays inside the root.
func within(dir, p string) (string, bool) {
	if strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return "", false
	}
	j := path.Join(dir, p)
	if j == ".." || strings.HasPrefix(j, "../") {
		return "", false
	}
	return j, true
}

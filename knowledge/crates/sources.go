package crates

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
)

// Where crates come from besides the registry: [patch.crates-io] in the root manifest,
// which swaps a registry crate for a path or git one, and a vendor directory that the
// package's own .cargo/config.toml puts in place of crates.io (the output of cargo
// vendor, which release tarballs of Rust programs often carry).

// readPatches reads the root manifest's [patch.crates-io] table.
func (r *reader) readPatches(rootRaw map[string]any) error {
	patches := table(table(rootRaw, "patch"), "crates-io")
	r.patches = map[string]decl{}
	root := &crate{dir: ".", file: "Cargo.toml"}
	for _, key := range slices.Sorted(maps.Keys(patches)) {
		d, err := r.readDecl(root, key, patches[key], KindNormal, "")
		if err != nil {
			return fmt.Errorf("crates: [patch.crates-io]: %w", err)
		}
		if d.path != "" || d.git != "" {
			r.patches[Normalize(d.Name)] = d
		}
	}
	return nil
}

// patch points a registry dependency at the path or git crate that
// [patch.crates-io] puts in its place.
func (r *reader) patch(d *decl) {
	if d.path != "" || d.git != "" {
		return
	}
	if p, ok := r.patches[Normalize(d.Name)]; ok {
		d.path, d.git, d.patched = p.path, p.git, true
	}
}

// cargoConfigs are the files of a package's own cargo configuration, in the order
// cargo prefers them.
var cargoConfigs = []string{".cargo/config.toml", ".cargo/config"}

// readVendor finds the directory source the package's cargo configuration replaces
// crates.io with and, when it is inside the tree, the crates in it. It returns "" when
// the package configures no replacement.
func (r *reader) readVendor() (string, map[string][]Version, error) {
	var cfg map[string]any
	for _, name := range cargoConfigs {
		data, err := r.t.read(name)
		if err != nil {
			continue
		}
		if cfg, err = r.decode(name, data); err != nil {
			return "", nil, err
		}
		break
	}
	sources := table(cfg, "source")
	name := str(table(sources, "crates-io"), "replace-with")
	dir := str(table(sources, name), "directory")
	if dir == "" {
		return "", nil, nil
	}
	rel, ok := within(".", dir)
	if !ok {
		// A directory elsewhere on the build machine: cargo would use it, but its
		// crates cannot be read from the tree.
		return dir, nil, nil
	}
	if r.t.list == nil {
		return "", nil, fmt.Errorf("crates: the crates vendored in %s need a directory listing; read the tree with ReadManifestFS", rel)
	}
	entries, err := r.t.list(rel)
	if err != nil {
		return "", nil, fmt.Errorf("crates: the package's cargo configuration names %s as its crates, which cannot be listed: %w", rel, err)
	}
	if len(entries) > maxCrates*4 {
		return "", nil, fmt.Errorf("crates: %s holds more than %d entries", rel, maxCrates*4)
	}
	vendored := map[string][]Version{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		raw, err := r.readCargoToml(path.Join(rel, e.Name(), "Cargo.toml"))
		if r.overBudget() {
			return "", nil, err
		}
		if err != nil {
			continue // cargo skips what is not a crate, too
		}
		pkg := table(raw, "package")
		v, err := ParseVersion(str(pkg, "version"))
		if name := str(pkg, "name"); name != "" && err == nil {
			vendored[Normalize(name)] = append(vendored[Normalize(name)], v)
		}
	}
	for _, vs := range vendored {
		sort.Slice(vs, func(i, j int) bool { return vs[i].Compare(vs[j]) > 0 })
	}
	return rel, vendored, nil
}

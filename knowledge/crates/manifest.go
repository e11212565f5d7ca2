package crates

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
)

// Dependency is one dependency of one manifest (path and git dependencies are not Dependencies).
type Dependency struct {
	Name            string   // the crate's registry name (the `package =` key when renamed)
	Req             string   // the version requirement as written ("1.0", "^0.8", ">=1.2, <2"); "" means any
	Features        []string // features asked for explicitly
	DefaultFeatures bool     // false when default-features = false
	Optional        bool
	Kind            string // "normal", "dev" or "build"
	Target          string // the cfg expression or triple of a [target.X] table; "" for all targets
	Manifest        string // the Cargo.toml that declares it, slash-relative to the package root
	// Rename is the key the dependency is declared under when it differs from Name
	// (`serde1 = { package = "serde" }`); features refer to the dependency by it.
	Rename string
}

// GitDependency is a dependency fetched from a git repository. No distribution package
// stands in for one, and offline cargo cannot fetch it.
type GitDependency struct {
	Name, URL, Kind, Target, Manifest string
	Optional                          bool

	key string // the key it is declared under
}

// Manifest is what a cargo package's Cargo.toml files say (the root and every workspace member,
// [workspace.dependencies] inheritance resolved).
type Manifest struct {
	Dependencies []Dependency
	Members      []string // workspace member directories (slash-relative), "." for a single package
	RustVersion  string   // the highest rust-version any member asks for; "" when none does
	Binaries     []string // names of the [[bin]] targets and src/main.rs packages (programs)
	// (Binaries are the programs a plain cargo build makes: those of the default
	// members, a [[bin]] only when the default features meet its required-features.)
	Library  bool // some member has a library target
	Lockfile bool // a Cargo.lock is present at the root
	// Git lists the git dependencies of the members and the local crates they use.
	Git []GitDependency
	// Vendor is the directory source the package's own .cargo/config.toml replaces
	// crates.io with (slash-relative when inside the tree, as cargo vendor writes it);
	// "" when it configures none. Cargo prefers that configuration to one made for the
	// run: [Manifest.ResolveVendored] checks the dependencies against the vendored
	// crates.
	Vendor string

	// build and lock say which optional dependencies are on and which features the
	// feature tables ask of each dependency: build for the default members built with
	// their default features, lock for cargo's lock-file resolution, which turns on
	// every feature of every member. built holds the manifests of the crates the build
	// compiles. All are nil for a Manifest made by hand: then every crate counts as
	// built and no optional dependency is on.
	build, lock map[string]depState
	built       map[string]bool
	// vendored holds the crates in Vendor by normalized name, highest version first;
	// nil when Vendor is empty or outside the tree.
	vendored map[string][]Version
}

// depState is what the feature tables make of one declared dependency.
type depState struct {
	on    bool
	extra []string
}

// Dependency kinds.
const (
	KindNormal = "normal"
	KindDev    = "dev"
	KindBuild  = "build"
)

// Limits on a workspace: far above real ones (the largest have a few hundred
// members), low enough that a hostile tree cannot make ReadManifest read without end.
const (
	maxCrates   = 2000
	maxFeatures = 20000
	// maxTreeBytes and maxTreeKeys bound all manifests read together (a workspace,
	// its local crates and vendored crates): coreutils' 107 manifests hold 170 KB.
	maxTreeBytes = 64 << 20
	maxTreeKeys  = 100000
)

// ReadManifest reads Cargo.toml at the package root and its workspace members through read
// (a slash-relative path in, the file's bytes out; reads are bounded by the caller).
// A member glob ("crates/*") and src/bin/ need a directory listing, which read cannot
// give: such a workspace is an error that says to use [ReadManifestFS].
func ReadManifest(read func(rel string) ([]byte, error)) (*Manifest, error) {
	return readManifest(tree{read: read})
}

// ReadManifestFS is [ReadManifest] over a file system, which also lists directories
// for member globs and the programs under src/bin/. Files are read up to
// [MaxManifestSize] bytes.
func ReadManifestFS(fsys fs.FS) (*Manifest, error) {
	return readManifest(tree{
		read: func(rel string) ([]byte, error) {
			f, err := fsys.Open(rel)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			if st, err := f.Stat(); err == nil && st.IsDir() {
				return nil, fmt.Errorf("%s is a directory", rel)
			}
			return io.ReadAll(io.LimitReader(f, MaxManifestSize+1))
		},
		list: func(dir string) ([]fs.DirEntry, error) { return fs.ReadDir(fsys, dir) },
		stat: func(rel string) error { _, err := fs.Stat(fsys, rel); return err },
	})
}

// tree is how a package's files are reached.
type tree struct {
	read func(rel string) ([]byte, error)
	list func(dir string) ([]fs.DirEntry, error) // nil: no listing
	stat func(rel string) error                  // nil: exists reads the file
}

func (t tree) exists(rel string) bool {
	if t.stat != nil {
		return t.stat(rel) == nil
	}
	_, err := t.read(rel)
	return err == nil
}

// crate is one Cargo.toml of the tree: a member or a local crate a path dependency names.
type crate struct {
	dir, file, name string
	member          bool
	raw             map[string]any
	features        map[string][]string
	decls           []decl
	rustVersion     string
	// implicit lists the optional dependencies that have a feature of their name
	// (those no feature names with the dep: syntax).
	implicit map[string]bool
}

// decl is one declared dependency: a registry one (path and git empty), a path one
// (path the crate directory) or a git one.
type decl struct {
	Dependency
	key, path, git string
	patched        bool // path or git come from [patch.crates-io]
}

func readManifest(t tree) (*Manifest, error) {
	return readManifestWithin(t, maxTreeBytes, maxTreeKeys)
}

// readManifestWithin is readManifest with the tree's budget given.
func readManifestWithin(t tree, maxBytes, maxKeys int) (*Manifest, error) {
	r := &reader{t: t, crates: map[string]*crate{}, maxBytes: maxBytes, maxKeys: maxKeys}
	rootRaw, err := r.readCargoToml("Cargo.toml")
	if err != nil {
		return nil, err
	}
	r.ws = table(rootRaw, "workspace")
	r.wsPkg = table(r.ws, "package")
	r.wsDeps = table(r.ws, "dependencies")
	for _, e := range stringList(r.ws["exclude"]) {
		if d, ok := within(".", e); ok {
			r.exclude = append(r.exclude, d)
		}
	}
	if table(rootRaw, "package") == nil && r.ws == nil {
		return nil, errors.New("crates: Cargo.toml has neither [package] nor [workspace]")
	}
	if err := r.readPatches(rootRaw); err != nil {
		return nil, err
	}
	if table(rootRaw, "package") != nil {
		if err := r.add(".", rootRaw, true); err != nil {
			return nil, err
		}
	}
	for _, pat := range stringList(r.ws["members"]) {
		dirs, err := r.expand(pat)
		if err != nil {
			return nil, err
		}
		for _, d := range dirs {
			if err := r.load(d, true); err != nil {
				return nil, err
			}
		}
	}
	// Path dependencies: a crate inside the workspace is a member too (cargo makes it
	// one), elsewhere a local crate whose own dependencies count.
	for i := 0; i < len(r.order); i++ {
		c := r.crates[r.order[i]]
		for _, d := range c.decls {
			if d.path != "" {
				if err := r.load(d.path, r.ws != nil && !d.patched && !r.excluded(d.path)); err != nil {
					return nil, fmt.Errorf("crates: %s's path dependency %s: %w", c.file, d.key, err)
				}
			}
		}
	}
	m := &Manifest{Lockfile: t.exists("Cargo.lock")}
	if m.Vendor, m.vendored, err = r.readVendor(); err != nil {
		return nil, err
	}
	var members []string
	for _, dir := range r.order {
		if r.crates[dir].member {
			members = append(members, dir)
		}
	}
	roots, err := r.defaultMembers(rootRaw, members)
	if err != nil {
		return nil, err
	}
	var on map[string]map[string]bool
	m.build, m.built, on = r.activate(roots, false)
	m.lock, r.used, _ = r.activate(members, true)
	var versions []string
	for _, dir := range r.order {
		c := r.crates[dir]
		if c.member {
			m.Members = append(m.Members, dir)
			bins, lib := r.targets(c, on[dir])
			if slices.Contains(roots, dir) {
				m.Binaries = append(m.Binaries, bins...)
			}
			m.Library = m.Library || lib
		}
		if !c.member && !r.used[c.file] {
			continue
		}
		if c.rustVersion != "" {
			versions = append(versions, c.rustVersion)
		}
		for _, d := range c.decls {
			if d.Kind == KindDev && !c.member {
				continue
			}
			switch {
			case d.git != "":
				m.Git = append(m.Git, GitDependency{Name: d.Name, URL: d.git, Kind: d.Kind, Target: d.Target, Manifest: d.Manifest, Optional: d.Optional, key: d.key})
			case d.path == "":
				m.Dependencies = append(m.Dependencies, d.Dependency)
			}
		}
	}
	m.RustVersion = highestRustVersion(versions)
	sort.Strings(m.Members)
	m.Binaries = uniqueSorted(m.Binaries)
	return m, nil
}

// reader holds the state of one ReadManifest.
type reader struct {
	t         tree
	ws, wsPkg map[string]any
	wsDeps    map[string]any
	exclude   []string
	patches   map[string]decl // [patch.crates-io] by normalized crate name
	crates    map[string]*crate
	order     []string
	used      map[string]bool // manifests of the crates the lock file takes in
	bytes     int             // read so far, against maxBytes
	keys      int             // decoded so far, against maxKeys
	maxBytes  int
	maxKeys   int
}

// defaultMembers returns the crates a plain cargo build compiles: the workspace's
// default-members, else the root package, else (a virtual workspace) every member.
func (r *reader) defaultMembers(rootRaw map[string]any, members []string) ([]string, error) {
	if pats := stringList(r.ws["default-members"]); len(pats) > 0 {
		var out []string
		for _, p := range pats {
			dirs, err := r.expand(p)
			if err != nil {
				return nil, err
			}
			out = append(out, dirs...)
		}
		return out, nil
	}
	if table(rootRaw, "package") != nil {
		return []string{"."}, nil
	}
	return members, nil
}

// readCargoToml reads and decodes one manifest of the tree, within the budget of
// the whole ReadManifest.
func (r *reader) readCargoToml(rel string) (map[string]any, error) {
	data, err := r.t.read(rel)
	if err != nil {
		return nil, fmt.Errorf("crates: read %s: %w", rel, err)
	}
	return r.decode(rel, data)
}

func (r *reader) overBudget() bool { return r.bytes > r.maxBytes || r.keys > r.maxKeys }

func (r *reader) decode(rel string, data []byte) (map[string]any, error) {
	_, keys := shape(data)
	r.bytes += len(data)
	r.keys += keys
	if r.overBudget() {
		return nil, fmt.Errorf("crates: the package's manifests hold more than %d bytes or %d keys (at %s)", r.maxBytes, r.maxKeys, rel)
	}
	return decodeTOML(rel, data)
}

func (r *reader) excluded(dir string) bool {
	for _, e := range r.exclude {
		if dir == e || strings.HasPrefix(dir, e+"/") {
			return true
		}
	}
	return false
}

// expand turns a members entry into member directories: a plain directory, or a
// pattern of path.Match syntax in any component.
func (r *reader) expand(pat string) ([]string, error) {
	clean, ok := within(".", pat)
	if !ok {
		return nil, fmt.Errorf("crates: workspace member %q is outside the package root", pat)
	}
	if !strings.ContainsAny(clean, "*?[") {
		if r.excluded(clean) {
			return nil, nil
		}
		return []string{clean}, nil
	}
	if r.t.list == nil {
		return nil, fmt.Errorf("crates: workspace member pattern %q needs a directory listing; read the tree with ReadManifestFS", pat)
	}
	if _, err := path.Match(clean, ""); err != nil {
		return nil, fmt.Errorf("crates: workspace member pattern %q: %w", pat, err)
	}
	dirs := []string{"."}
	for _, part := range strings.Split(clean, "/") {
		var next []string
		for _, d := range dirs {
			if !strings.ContainsAny(part, "*?[") {
				next = append(next, path.Join(d, part))
				continue
			}
			entries, err := r.t.list(d)
			if err != nil {
				continue
			}
			for _, e := range entries {
				if ok, _ := path.Match(part, e.Name()); ok && e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
					next = append(next, path.Join(d, e.Name()))
				}
			}
			if len(next) > maxCrates {
				return nil, fmt.Errorf("crates: workspace member pattern %q matches more than %d directories", pat, maxCrates)
			}
		}
		dirs = next
	}
	var out []string
	for _, d := range dirs {
		// cargo skips a matched directory without a Cargo.toml.
		if !r.excluded(d) && r.t.exists(d+"/Cargo.toml") {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (r *reader) load(dir string, member bool) error {
	if c, ok := r.crates[dir]; ok {
		c.member = c.member || member
		return nil
	}
	raw, err := r.readCargoToml(manifestPath(dir))
	if err != nil {
		return err
	}
	return r.add(dir, raw, member)
}

func manifestPath(dir string) string {
	if dir == "." {
		return "Cargo.toml"
	}
	return dir + "/Cargo.toml"
}

// add reads one crate's package table, feature table and dependency tables.
func (r *reader) add(dir string, raw map[string]any, member bool) error {
	if len(r.crates) >= maxCrates {
		return fmt.Errorf("crates: the workspace has more than %d crates", maxCrates)
	}
	pkg := table(raw, "package")
	if pkg == nil {
		pkg = table(raw, "project") // the old name of [package]
	}
	file := manifestPath(dir)
	if pkg == nil {
		return fmt.Errorf("crates: %s has no [package] table", file)
	}
	c := &crate{dir: dir, file: file, name: str(pkg, "name"), member: member, raw: raw,
		features: map[string][]string{}, implicit: map[string]bool{}}
	if c.name == "" {
		return fmt.Errorf("crates: %s names no package", file)
	}
	if !validName(c.name) {
		return fmt.Errorf("crates: %s: %q is not a valid package name", file, c.name)
	}
	binTables, _ := raw["bin"].([]any)
	for _, b := range binTables {
		t, _ := b.(map[string]any)
		if name := str(t, "name"); name != "" && !validName(name) {
			return fmt.Errorf("crates: %s: %q is not a valid binary target name", file, name)
		}
	}
	switch v := pkg["rust-version"].(type) {
	case string:
		c.rustVersion = v
	default:
		if inherited(v) {
			c.rustVersion = str(r.wsPkg, "rust-version")
		}
	}
	n := 0
	for name, v := range table(raw, "features") {
		list := stringList(v)
		n += len(list) + 1
		if n > maxFeatures {
			return fmt.Errorf("crates: %s has more than %d feature entries", file, maxFeatures)
		}
		c.features[name] = list
	}
	if err := r.readDecls(c, raw, ""); err != nil {
		return err
	}
	targets := table(raw, "target")
	for _, spec := range slices.Sorted(maps.Keys(targets)) {
		t, _ := targets[spec].(map[string]any)
		if err := r.readDecls(c, t, spec); err != nil {
			return err
		}
	}
	depSyntax := map[string]bool{}
	for _, list := range c.features {
		for _, f := range list {
			if k, ok := strings.CutPrefix(f, "dep:"); ok {
				depSyntax[k] = true
			}
		}
	}
	for _, d := range c.decls {
		if d.Optional && !depSyntax[d.key] {
			c.implicit[d.key] = true
		}
	}
	r.crates[dir] = c
	r.order = append(r.order, dir)
	return nil
}

func uniqueSorted(s []string) []string {
	sort.Strings(s)
	return slices.Compact(s)
}

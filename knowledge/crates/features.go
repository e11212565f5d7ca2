package crates

import (
	"slices"
	"sort"
	"strings"
)

// Feature activation, as cargo does it for the crates of one tree: a member starts
// with its default features (or, for the lock file, with every feature it has); a
// feature turns on the features and optional dependencies it lists ("dep:x" turns on
// the optional dependency x, "x/f" turns on x and its feature f, "x?/f" asks for f
// only if x is on otherwise, a bare name is another feature or the feature an optional
// dependency gets of its own name); a local crate that a path dependency names starts
// with the features that dependency asks for.

// activation is the state of one pass.
type activation struct {
	r      *reader
	active map[string]bool
	on     map[string]map[string]bool     // crate dir -> features on
	depOn  map[string]map[string]bool     // crate dir -> optional dependency keys on
	extra  map[string]map[string][]string // crate dir -> dependency key -> features asked
	weak   map[string]map[string][]string // crate dir -> key -> features of x?/f
}

// activate runs one pass from the crates roots and returns each declared dependency's
// state, keyed by depID, the manifests of the crates in use, and the features on in
// each crate (by directory). all turns on every feature of the roots (cargo's
// lock-file resolution); otherwise they have their default features.
func (r *reader) activate(roots []string, all bool) (map[string]depState, map[string]bool, map[string]map[string]bool) {
	a := &activation{r: r, active: map[string]bool{}, on: map[string]map[string]bool{}, depOn: map[string]map[string]bool{},
		extra: map[string]map[string][]string{}, weak: map[string]map[string][]string{}}
	for _, dir := range roots {
		c := r.crates[dir]
		if c == nil {
			continue
		}
		a.use(c, nil, !all)
		if all {
			names := make([]string, 0, len(c.features))
			for f := range c.features {
				names = append(names, f)
			}
			sort.Strings(names)
			for _, f := range names {
				a.feature(c, f)
			}
			for _, d := range c.decls {
				if d.Optional {
					a.dep(c, d.key)
				}
			}
		}
	}
	out, files := map[string]depState{}, map[string]bool{}
	for dir := range a.active {
		c := r.crates[dir]
		files[c.file] = true
		for _, d := range c.decls {
			if d.path != "" {
				continue
			}
			out[depID(d.Dependency)] = depState{on: !d.Optional || a.depOn[dir][d.key], extra: a.extra[dir][d.key]}
		}
	}
	return out, files, a.on
}

// depID names one declared dependency across the tree.
func depID(d Dependency) string {
	return d.Manifest + "\x00" + d.Kind + "\x00" + d.Target + "\x00" + cmpOr(d.Rename, d.Name)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// use marks c as built with features (and its defaults when defaults is true).
func (a *activation) use(c *crate, features []string, defaults bool) {
	if !a.active[c.dir] {
		a.active[c.dir] = true
		for _, d := range c.decls {
			if !d.Optional {
				a.useDecl(c, d)
			}
		}
	}
	if defaults {
		a.feature(c, "default")
	}
	for _, f := range features {
		a.ref(c, f)
	}
}

// feature turns on feature f of c.
func (a *activation) feature(c *crate, f string) {
	on := setOf(a.on, c.dir)
	if on[f] {
		return
	}
	on[f] = true
	if list, ok := c.features[f]; ok {
		for _, item := range list {
			a.ref(c, item)
		}
		return
	}
	if c.implicit[f] {
		a.dep(c, f)
	}
}

// ref follows one entry of a feature list (or of a dependency's features).
func (a *activation) ref(c *crate, item string) {
	if k, ok := strings.CutPrefix(item, "dep:"); ok {
		a.dep(c, k)
		return
	}
	key, f, ok := strings.Cut(item, "/")
	if !ok {
		a.feature(c, item)
		return
	}
	if k, weak := strings.CutSuffix(key, "?"); weak {
		w := listsOf(a.weak, c.dir)
		w[k] = appendUnique(w[k], f)
		if a.isOn(c, k) {
			a.depFeature(c, k, f)
		}
		return
	}
	if c.implicit[key] {
		a.feature(c, key)
	}
	a.dep(c, key)
	a.depFeature(c, key, f)
}

// isOn reports whether the dependency key of c is in use.
func (a *activation) isOn(c *crate, key string) bool {
	if a.depOn[c.dir][key] {
		return true
	}
	for _, d := range c.decls {
		if d.key == key && !d.Optional {
			return true
		}
	}
	return false
}

// dep turns on the optional dependency key of c.
func (a *activation) dep(c *crate, key string) {
	on := setOf(a.depOn, c.dir)
	if on[key] {
		return
	}
	on[key] = true
	for _, d := range c.decls {
		if d.key == key && d.Optional {
			a.useDecl(c, d)
		}
	}
	for _, f := range a.weak[c.dir][key] {
		a.depFeature(c, key, f)
	}
}

// depFeature asks for feature f of c's dependency key.
func (a *activation) depFeature(c *crate, key, f string) {
	x := listsOf(a.extra, c.dir)
	if slices.Contains(x[key], f) {
		return
	}
	x[key] = append(x[key], f)
	for _, d := range c.decls {
		if d.key == key && d.path != "" && (!d.Optional || a.depOn[c.dir][key]) {
			if l := a.r.crates[d.path]; l != nil && (d.Kind != KindDev || c.member) {
				a.use(l, []string{f}, false)
			}
		}
	}
}

// useDecl follows a dependency that is in use into the local crate it names.
func (a *activation) useDecl(c *crate, d decl) {
	if d.path == "" || d.Kind == KindDev && !c.member {
		return
	}
	if l := a.r.crates[d.path]; l != nil {
		a.use(l, append(slices.Clone(d.Features), a.extra[c.dir][d.key]...), d.DefaultFeatures)
	}
}

func setOf(m map[string]map[string]bool, k string) map[string]bool {
	if m[k] == nil {
		m[k] = map[string]bool{}
	}
	return m[k]
}

func listsOf(m map[string]map[string][]string, k string) map[string][]string {
	if m[k] == nil {
		m[k] = map[string][]string{}
	}
	return m[k]
}

func appendUnique(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

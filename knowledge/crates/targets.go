package crates

import (
	"path"
	"slices"
	"strings"
)

// targets returns a member's programs and whether it has a library, as cargo infers
// them: [[bin]] tables whose required-features are on, src/main.rs (named after the
// package), src/bin/NAME.rs and src/bin/NAME/main.rs unless autobins = false; [lib]
// or src/lib.rs.
func (r *reader) targets(c *crate, on map[string]bool) ([]string, bool) {
	pkg := table(c.raw, "package")
	if pkg == nil {
		pkg = table(c.raw, "project")
	}
	at := func(rel string) string { return path.Join(c.dir, rel) }
	var bins []string
	explicit := map[string]bool{}
	binTables, _ := c.raw["bin"].([]any)
	for _, b := range binTables {
		t, _ := b.(map[string]any)
		if name := str(t, "name"); name != "" {
			if p := str(t, "path"); p != "" {
				explicit[path.Clean(p)] = true
			}
			if requiredOn(stringList(t["required-features"]), on) {
				bins = append(bins, name)
			}
		}
	}
	if boolean(pkg, "autobins", true) {
		if !explicit["src/main.rs"] && r.t.exists(at("src/main.rs")) && !slices.Contains(bins, c.name) {
			bins = append(bins, c.name)
		}
		if r.t.list != nil {
			entries, _ := r.t.list(at("src/bin"))
			for _, e := range entries {
				name, rel := "", ""
				switch {
				case !e.IsDir() && strings.HasSuffix(e.Name(), ".rs"):
					name, rel = strings.TrimSuffix(e.Name(), ".rs"), "src/bin/"+e.Name()
				case e.IsDir() && r.t.exists(at("src/bin/"+e.Name()+"/main.rs")):
					name, rel = e.Name(), "src/bin/"+e.Name()+"/main.rs"
				}
				// cargo refuses a program named otherwise; it is no program here either.
				if validName(name) && !explicit[rel] && !slices.Contains(bins, name) {
					bins = append(bins, name)
				}
			}
		}
	}
	lib := table(c.raw, "lib") != nil || boolean(pkg, "autolib", true) && r.t.exists(at("src/lib.rs"))
	return bins, lib
}

// requiredOn reports whether the features a target requires are on ("dep/feature"
// entries, which name a dependency's feature, are not checked).
func requiredOn(required []string, on map[string]bool) bool {
	for _, f := range required {
		if !strings.Contains(f, "/") && !on[f] {
			return false
		}
	}
	return true
}

// highestRustVersion returns the highest of rust-version values ("1.70", "1.74.1").
func highestRustVersion(vs []string) string {
	best, bestV := "", Version{}
	for _, s := range vs {
		v, err := ParseVersion(fullVersion(s))
		if err != nil {
			continue
		}
		if best == "" || v.Compare(bestV) > 0 {
			best, bestV = s, v
		}
	}
	return best
}

// fullVersion pads "1.70" to "1.70.0".
func fullVersion(s string) string {
	switch strings.Count(s, ".") {
	case 0:
		return s + ".0.0"
	case 1:
		return s + ".0"
	}
	return s
}

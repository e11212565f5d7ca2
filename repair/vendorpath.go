package repair

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// vendoredSegments are the directory names under which sources keep a bundled copy of
// another project (include/json/external/rapidjson): a repacked tarball that strips
// the copy leaves includes of its path, which no include directory of the system's
// copy can satisfy, since the path names the bundled location.
var vendoredSegments = []string{"external", "third_party", "thirdparty", "3rdparty", "vendor", "vendored", "deps", "contrib", "bundled"}

// vendoredPath is a missing include split at its innermost vendored segment:
// "json/external/rapidjson/prettywriter.h" is prefix "json/external", project
// directory "rapidjson" and file "prettywriter.h".
type vendoredPath struct {
	prefix, dir, file string
}

// splitVendored splits an include that names a file below a directory below a vendored
// segment; ok is false for any other name, and for one includeName refuses (a "..", an
// absolute path) or longer than the sandbox search takes.
func splitVendored(name string) (v vendoredPath, ok bool) {
	if len(name) > 200 || !includeName.MatchString(name) {
		return v, false
	}
	parts := strings.Split(name, "/")
	for i := len(parts) - 3; i >= 0; i-- {
		if slices.Contains(vendoredSegments, parts[i]) {
			return vendoredPath{prefix: strings.Join(parts[:i+1], "/"), dir: parts[i+1], file: strings.Join(parts[i+2:], "/")}, true
		}
	}
	return v, false
}

// vendorLink is a bundled directory the source tree lacks and the system's copy of it.
type vendorLink struct {
	name   string // the include as the source wrote it
	tree   string // the bundled directory, relative to the repository
	system string // the system's directory of the same project
	path   string // the system's file the include resolves to through the link
	pkg    string // the package that installs it
	why    string // how the package relates to the source
}

// vendoredHome is the directory of the source tree that holds the vendored segment of
// v: the one directory whose path ends in v.prefix, else (a tarball that stripped the
// whole vendored directory) the one ending in the prefix's parent, with the segment
// added. Several candidates are ambiguous, and none is no home.
func vendoredHome(files []string, v vendoredPath) (string, string) {
	find := func(prefix string) []string {
		var dirs []string
		for _, f := range files {
			for d := path.Dir(f); d != "." && d != "/"; d = path.Dir(d) {
				if (d == prefix || strings.HasSuffix(d, "/"+prefix)) && !slices.Contains(dirs, d) {
					dirs = append(dirs, d)
				}
			}
		}
		return dirs
	}
	dirs := find(v.prefix)
	if len(dirs) == 0 {
		if parent := path.Dir(v.prefix); parent != "." {
			for _, d := range find(parent) {
				dirs = append(dirs, d+"/"+path.Base(v.prefix))
			}
		}
	}
	switch len(dirs) {
	case 0:
		return "", "the source tree has no directory " + v.prefix + " to hold the bundled " + v.dir
	case 1:
		return dirs[0], ""
	}
	slices.Sort(dirs)
	return "", "the source tree has several directories " + v.prefix + " (" + strings.Join(dirs, ", ") + "), so which one the include means is not known"
}

// vendorLink answers an include of a bundled copy the source tree lacks: when the
// system has the project's file below an include root, from a package the source
// needs, the bundled directory becomes a link to the system's. vendored says the name
// has a vendored path at all; a nil link then comes with the reason.
func (s *headerSearch) vendorLink(ctx context.Context, name string) (l *vendorLink, vendored bool, reason string) {
	v, ok := splitVendored(name)
	if !ok {
		return nil, false, ""
	}
	home, why := vendoredHome(s.env.Files, v)
	if home == "" {
		return nil, true, name + ": " + why
	}
	tree := home + "/" + v.dir
	for _, f := range s.env.Files {
		if strings.HasPrefix(f, tree+"/") {
			// Only a bundled directory the tarball emptied is replaced: files of the
			// copy that remain are the source's own (a patched copy, a wrapper).
			return nil, true, fmt.Sprintf("%s: the source tree's %s still holds files (%s)", name, tree, f)
		}
	}
	if !plainArg.MatchString(tree) || path.Clean(tree) != tree || strings.HasPrefix(tree, "/") || strings.HasPrefix(tree, "-") ||
		slices.Contains(strings.Split(tree, "/"), "..") {
		return nil, true, fmt.Sprintf("%s: %s is a path a command line would need to quote", name, tree)
	}
	system := v.dir + "/" + v.file
	f, owner, why, _, reason := s.locate(ctx, system)
	if reason != "" {
		return nil, true, "the bundled " + v.dir + " of " + name + ": " + reason
	}
	dir := strings.TrimSuffix(f.Path, "/"+v.file)
	if !plainArg.MatchString(dir) || !slices.ContainsFunc(includeRoots, func(r string) bool { return strings.HasPrefix(dir, r+"/") }) {
		return nil, true, fmt.Sprintf("%s: the system's %s is %s, a directory the link cannot name", name, system, f.Path)
	}
	return &vendorLink{name: name, tree: tree, system: dir, path: f.Path, pkg: owner, why: why}, true, ""
}

// line is the plan command that makes the link. It runs again on every build of the
// plan: an emptied directory is removed (rmdir removes only an empty one), the parent
// made, and ln -n replaces a link an earlier run made instead of linking inside it.
func (l vendorLink) line() string {
	return fmt.Sprintf("rmdir %s 2>/dev/null; mkdir -p %s && ln -sfn %s %s", l.tree, path.Dir(l.tree), l.system, l.tree)
}

// withVendorLinks returns the plan with the link lines after its install line, where
// the package that fills the system's directory is installed; a plan with no install
// line gains a setup phase. A line the plan has already is not added again.
func withVendorLinks(plan atesor.BuildPlan, install string, links []vendorLink) atesor.BuildPlan {
	var lines []string
	for _, l := range links {
		if line := l.line(); !slices.Contains(plan.Commands(), line) && !slices.Contains(lines, line) {
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return plan
	}
	phases := slices.Clone(plan.Phases)
	for i, ph := range phases {
		if j := slices.IndexFunc(ph.Commands, func(c string) bool { return strings.Contains(c, install) }); j >= 0 {
			phases[i].Commands = slices.Insert(slices.Clone(ph.Commands), j+1, lines...)
			plan.Phases = phases
			return plan
		}
	}
	plan.Phases = append([]atesor.Phase{{Name: "setup", Commands: lines}}, phases...)
	return plan
}

func vendorLinkList(links []vendorLink) string {
	var out []string
	for _, l := range links {
		out = append(out, l.tree+" to "+l.system)
	}
	return strings.Join(out, ", ")
}

// vendorLinkSaid says of each link what the include names and where the system has it.
func vendorLinkSaid(links []vendorLink) []string {
	var out []string
	for _, l := range links {
		out = append(out, fmt.Sprintf("%s, a bundled copy the source tree lacks (%s); the system's copy is %s (%s, %s),"+
			" so %s becomes a symbolic link to %s, used by the compiler inside the sandbox", l.name, l.tree, l.path, l.pkg, l.why, l.tree, l.system))
	}
	return out
}

package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

const headerDirRuleName = "header-subdir"

// includeMissing are the compilers' words for an #include they could not resolve, the
// first group the name as the source wrote it: GCC's (quoted and <> includes alike) and
// clang's. GCC's form needs the file:line prefix, so that cc1 missing a source file on
// its command line ("cc1: fatal error: x.c: No such file or directory") is not taken
// for an include.
var includeMissing = []*regexp.Regexp{
	re(`:\d+(?::\d+)?: fatal error: ([A-Za-z0-9_+][A-Za-z0-9_.+/-]*): No such file or directory`),
	re(`fatal error: '([A-Za-z0-9_+][A-Za-z0-9_.+/-]*)' file not found`),
}

// includeName is an include the rule looks for: relative path components that start
// with no dot (so no "..", no hidden directory) and hold no glob or shell character.
var includeName = re(`^[A-Za-z0-9_+][A-Za-z0-9_.+-]*(?:/[A-Za-z0-9_+][A-Za-z0-9_.+-]*)*$`)

// headerHomes are headers a repacked source includes by a name the distribution does
// not put on the compiler's default path, with the canonical name (the knowledge
// package map's) of the package that installs them in a directory of their own:
// nlohmann's json.hpp in /usr/include/nlohmann, the stb headers in /usr/include/stb,
// utfcpp's utf8.h in /usr/include/utf8cpp, Eigen in /usr/include/eigen3. The
// frameworks of the vendored-framework table count too, by their header's base name
// (doctest.h in /usr/include/doctest).
var headerHomes = []struct {
	name      *regexp.Regexp
	canonical string
}{
	{re(`^json(?:_fwd)?\.hpp$`), "nlohmann-json"},
	{re(`^stb_[a-z0-9_]+\.h$`), "stb"},
	{re(`^utf8(?:/[a-z0-9_]+)?\.h$`), "utfcpp"},
	{re(`^(?:unsupported/)?Eigen/[A-Za-z0-9_/]+$`), "eigen"},
}

func headerDirRule() Rule {
	return Rule{
		Name: headerDirRuleName,
		Doc: "an #include the compiler cannot find that the distribution installs in a directory of its own " +
			"(doctest.h in /usr/include/doctest): install its package and add the directory to CPATH, which GCC and clang read under every build system; " +
			"an include of a bundled copy's path the tree lacks (external/rapidjson/prettywriter.h): link the bundled directory to the system's copy",
		Categories: []atesor.ErrorCategory{atesor.CategoryDependency, atesor.CategoryCompilation,
			atesor.CategoryConfiguration, atesor.CategoryUnknown},
		Signatures: includeMissing,
		Make:       makeHeaderDir,
	}
}

// missingIncludes are the includes a compiler could not resolve, first mention first,
// each once, at most four.
func missingIncludes(text string) []string {
	type hit struct {
		at   int
		name string
	}
	var hits []hit
	for _, p := range includeMissing {
		for _, loc := range p.FindAllStringSubmatchIndex(text, -1) {
			hits = append(hits, hit{loc[0], text[loc[2]:loc[3]]})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return a.at - b.at })
	var out []string
	for _, h := range hits {
		if includeName.MatchString(h.name) && !slices.Contains(out, h.name) && len(out) < 4 {
			out = append(out, h.name)
		}
	}
	return out
}

// knownPackages are the packages the tables name for an include, on this platform.
func knownPackages(p atesor.Platform, name string) []string {
	var out []string
	for _, h := range headerHomes {
		if h.name.MatchString(name) {
			if pkg, ok := p.PackageFor(h.canonical); ok {
				out = append(out, pkg)
			}
		}
	}
	if p.PackageManager == "apt-get" || p.PackageManager == "apt" {
		// The framework table's package names are Debian's.
		for _, fw := range frameworks {
			if path.Base(fw.header) == name {
				out = append(out, fw.packages...)
			}
		}
	}
	return out
}

// headerSearch is one rule run's view of the packages an include may come from. The
// distribution's packaging is read at most once, and only when it decides.
type headerSearch struct {
	env      Env
	planPkgs []string // the words of the plan's install lines
	dist     *Distribution
	distRead bool
	notes    []string
}

// buildDepends are the source's Build-Depends in the distribution; nil when unknown.
func (s *headerSearch) buildDepends(ctx context.Context) []string {
	if !s.distRead {
		s.distRead = true
		if s.env.Distribution != nil {
			d, err := s.env.Distribution(ctx)
			if err != nil {
				s.notes = append(s.notes, "the distribution's packaging could not be read: "+err.Error())
			}
			s.dist = d
		}
	}
	if s.dist == nil {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(s.dist.BuildDepends), func(p string) bool { return !debianPackage.MatchString(p) })
}

// choose picks the file an include resolves to among the located ones: one whose
// package the source build-depends on first, then one of the packages the tables name,
// then one of the plan's own packages. A file of no such package is not taken, since a
// common name (config.h, version.h) may be any package's.
func (s *headerSearch) choose(ctx context.Context, located []HeaderFile, known []string) (file HeaderFile, owner, why string, ok bool) {
	if len(located) == 0 {
		return HeaderFile{}, "", "", false
	}
	tiers := []struct {
		why  string
		pkgs func() []string
	}{
		{"a build dependency of the source in the distribution", func() []string { return s.buildDepends(ctx) }},
		{"the package the header is known by", func() []string { return known }},
		{"a package the plan installs", func() []string { return s.planPkgs }},
	}
	for _, tier := range tiers {
		pkgs := tier.pkgs()
		for _, f := range located {
			for _, owner := range f.Packages {
				if slices.Contains(pkgs, owner) {
					return f, owner, tier.why, true
				}
			}
		}
	}
	return HeaderFile{}, "", "", false
}

// headerFinding is where one missing include was found.
type headerFinding struct {
	name, path, dir, pkg, why string
}

func makeHeaderDir(ctx context.Context, f Failure, env Env) (*Fix, string) {
	names := missingIncludes(f.Message + "\n" + f.Output)
	if len(names) == 0 {
		return nil, "no missing include named"
	}
	if env.Locate == nil {
		return nil, "the sandbox's include directories cannot be searched"
	}
	if env.Plan == nil {
		return nil, "no build plan to pass the include directory through"
	}
	s := &headerSearch{env: env, planPkgs: planInstalls(*env.Plan, installCommand(env))}
	var found []headerFinding
	var links []vendorLink
	var reasons []string
	for _, name := range names {
		l, vendored, vwhy := s.vendorLink(ctx, name)
		if l != nil {
			links = append(links, *l)
			continue
		}
		h, why := s.find(ctx, name)
		if h == nil {
			if vendored {
				reasons = append(reasons, vwhy)
			}
			reasons = append(reasons, why)
			continue
		}
		found = append(found, *h)
	}
	reasons = append(reasons, s.notes...)
	if len(found) == 0 && len(links) == 0 {
		return nil, strings.Join(reasons, "; ")
	}
	var dirs, pkgs, said []string
	for _, l := range links {
		if !slices.Contains(s.planPkgs, l.pkg) && !slices.Contains(pkgs, l.pkg) {
			pkgs = append(pkgs, l.pkg)
		}
	}
	for _, h := range found {
		if h.dir != "" && !slices.Contains(dirs, h.dir) {
			dirs = append(dirs, h.dir)
		}
		if !slices.Contains(s.planPkgs, h.pkg) && !slices.Contains(pkgs, h.pkg) {
			pkgs = append(pkgs, h.pkg)
		}
		where := fmt.Sprintf("%s, which is %s (%s, %s)", h.name, h.path, h.pkg, h.why)
		if h.dir == "" {
			where += ", on the compiler's default path once installed"
		}
		said = append(said, where)
	}
	plan := withPackages(*env.Plan, env, pkgs)
	plan = withIncludeDirs(plan, installCommand(env), dirs)
	plan = withVendorLinks(plan, installCommand(env), links)
	if samePlan(plan, *env.Plan) {
		return nil, "the plan already installs " + strings.Join(s.planPkgs, " ") + " and searches " + strings.Join(dirs, ":")
	}
	var strategy []string
	if len(pkgs) > 0 {
		strategy = append(strategy, "install "+strings.Join(pkgs, " "))
	}
	if len(dirs) > 0 {
		strategy = append(strategy, "add "+strings.Join(dirs, ":")+" to CPATH")
	}
	if len(links) > 0 {
		strategy = append(strategy, "link "+vendorLinkList(links))
	}
	analysis := "The compiler could not find " + strings.Join(slices.Concat(said, vendorLinkSaid(links)), "; ") + "."
	if len(dirs) > 0 {
		analysis += " The source includes the header by a name the distribution's directory layout does not put on the default include path" +
			" (a repacked tarball drops the bundled copy beside the source); CPATH, which GCC and clang read under every build system," +
			" adds the directory to every compile of the plan without editing the build files."
	}
	if len(reasons) > 0 {
		analysis += " Not resolved: " + strings.Join(reasons, "; ") + "."
	}
	return &Fix{Analysis: analysis, Strategy: strings.Join(strategy, " and "), Plan: &plan}, ""
}

// find locates one include: already in the sandbox, else after installing the packages
// the tables name for it, else after installing the source's build dependencies.
func (s *headerSearch) find(ctx context.Context, name string) (*headerFinding, string) {
	for _, p := range s.env.Files {
		if p == name || strings.HasSuffix(p, "/"+name) {
			return nil, fmt.Sprintf("the source tree has %s (%s): its own include path misses it, not the system's", name, p)
		}
	}
	f, owner, why, installed, reason := s.locate(ctx, name)
	if reason != "" {
		return nil, reason
	}
	return s.finding(name, f, owner, why, installed)
}

// locate finds the file of a system include: already in the sandbox, else after
// installing the packages the tables name for it, else the source's build
// dependencies; installed says the rule installed its package. A reason, when no file
// is taken, says why.
func (s *headerSearch) locate(ctx context.Context, name string) (f HeaderFile, owner, why string, installed bool, reason string) {
	known := knownPackages(s.env.Platform, name)
	located, err := s.env.Locate(ctx, name, nil)
	if err != nil {
		return f, "", "", false, fmt.Sprintf("%s: the include directories could not be searched: %v", name, err)
	}
	if f, owner, why, ok := s.choose(ctx, located, known); ok {
		return f, owner, why, false, ""
	}
	install, from := known, "the package the header is known by"
	if len(install) == 0 {
		install, from = s.buildDepends(ctx), "the source's build dependencies"
	}
	if len(install) == 0 {
		if len(located) > 0 {
			return f, "", "", false, fmt.Sprintf("%s is %s, of no package the source is known to need", name, locatedList(located))
		}
		return f, "", "", false, fmt.Sprintf("no package is known to install %s, and the source's build dependencies are not known", name)
	}
	located, err = s.env.Locate(ctx, name, install)
	if err != nil {
		return f, "", "", false, fmt.Sprintf("%s: installing %s (%s) failed: %v", name, strings.Join(install, " "), from, err)
	}
	if f, owner, why, ok := s.choose(ctx, located, known); ok {
		return f, owner, why, true, ""
	}
	if len(located) > 0 {
		return f, "", "", false, fmt.Sprintf("%s is %s, of no package the source is known to need", name, locatedList(located))
	}
	return f, "", "", false, fmt.Sprintf("%s is nowhere below %s after installing %s (%s)", name, strings.Join(includeRoots, " and "), strings.Join(install, " "), from)
}

// finding turns a chosen file into the directory to search: none when the file is on
// the default path (an include root, or the multiarch one of the platform's triplet),
// which helps only when the rule installed its package.
func (s *headerSearch) finding(name string, f HeaderFile, pkg, why string, installed bool) (*headerFinding, string) {
	dir := strings.TrimSuffix(f.Path, "/"+name)
	if slices.Contains(includeRoots, dir) || s.env.Platform.Triplet != "" && dir == "/usr/include/"+s.env.Platform.Triplet {
		if !installed {
			return nil, fmt.Sprintf("%s is %s, on the compiler's default path: where the header lives is not what failed", name, f.Path)
		}
		dir = ""
	} else if !plainArg.MatchString(dir) {
		return nil, fmt.Sprintf("%s is %s, a directory name a command line would need to quote", name, f.Path)
	}
	return &headerFinding{name: name, path: f.Path, dir: dir, pkg: pkg, why: why}, ""
}

func locatedList(located []HeaderFile) string {
	var out []string
	for _, f := range located {
		w := f.Path
		if len(f.Packages) > 0 {
			w += " (" + strings.Join(f.Packages, ", ") + ")"
		}
		out = append(out, w)
	}
	if len(out) > 3 {
		out = append(out[:3], fmt.Sprintf("and %d more", len(out)-3))
	}
	return strings.Join(out, ", ")
}

// planInstalls are the package words of the plan's install lines.
func planInstalls(plan atesor.BuildPlan, install string) []string {
	var out []string
	for _, c := range plan.Commands() {
		for _, part := range strings.Split(c, "&&") {
			_, rest, ok := strings.Cut(part, install)
			if !ok {
				continue
			}
			for _, w := range strings.Fields(rest) {
				if debianPackage.MatchString(w) && !slices.Contains(out, w) {
					out = append(out, w)
				}
			}
		}
	}
	return out
}

// cpathExport is the prefix the rule puts on a plan line; its group is the directories.
var cpathExport = re(`^export CPATH=([A-Za-z0-9._/+:-]+) && `)

// withIncludeDirs returns the plan with dirs on CPATH for every command line that does
// not install packages: compiles happen in configure checks, builds, tests and install
// steps alike, and CPATH is read by the compiler, whatever runs it (CMake's own
// CMAKE_CXX_FLAGS, which many CMakeLists.txt set outright, would be overridden). An
// exported variable reaches every command of the line, which a VAR=value prefix would
// not. A line that already exports CPATH gains the directories it lacks.
func withIncludeDirs(plan atesor.BuildPlan, install string, dirs []string) atesor.BuildPlan {
	if len(dirs) == 0 {
		return plan
	}
	phases := slices.Clone(plan.Phases)
	for i, ph := range phases {
		cmds := slices.Clone(ph.Commands)
		for j, c := range cmds {
			if strings.Contains(c, install) {
				continue
			}
			var have []string
			if m := cpathExport.FindStringSubmatch(c); m != nil {
				have = strings.Split(m[1], ":")
				c = c[len(m[0]):]
			}
			for _, d := range dirs {
				if !slices.Contains(have, d) {
					have = append(have, d)
				}
			}
			cmds[j] = "export CPATH=" + strings.Join(have, ":") + " && " + c
		}
		phases[i].Commands = cmds
	}
	plan.Phases = phases
	return plan
}

// PlanIncludePath is the CPATH the plan's command lines export (the header-subdir
// rule's directories), "" when none does: commands run outside the plan, such as a
// test suite configured again with its tests on, take it as their environment so they
// compile what the plan compiles.
func PlanIncludePath(plan *atesor.BuildPlan) string {
	if plan == nil {
		return ""
	}
	var dirs []string
	for _, c := range plan.Commands() {
		if m := cpathExport.FindStringSubmatch(c); m != nil {
			for _, d := range strings.Split(m[1], ":") {
				if d != "" && !slices.Contains(dirs, d) {
					dirs = append(dirs, d)
				}
			}
		}
	}
	return strings.Join(dirs, ":")
}

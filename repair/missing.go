package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// Missing is a file a build found missing.
type Missing struct {
	Kind FileKind
	Name string
}

// missingPatterns find missing files in build output. The first group is the name,
// unless the pattern names the file itself (name).
var missingPatterns = []struct {
	kind FileKind
	re   *regexp.Regexp
	name string
}{
	{KindHeader, re(`fatal error: ([A-Za-z0-9_./+-]+\.h(?:h|pp|xx)?): No such file or directory`), ""},
	{KindHeader, re(`['"]([A-Za-z0-9_./+-]+\.h(?:h|pp|xx)?)['"] file not found`), ""},
	{KindLibrary, re(`cannot find -l([A-Za-z0-9_.+-]+)`), ""},
	// configure's own message for a header its check did not find (jnettop's "Header
	// file pcap.h not found.").
	{KindHeader, re(`configure: error: [Hh]eader (?:file )?'?([A-Za-z0-9_./+-]+\.h)'? (?:not found|is required|is missing)`), ""},
	// configure's own message for a library its AC_CHECK_LIB did not find (libradsec's
	// "configure: error: required library libconfuse not found").
	{KindLibrary, re(`configure: error: (?:[Rr]equired )?(?:[Ll]ibrary )?'?lib([A-Za-z0-9_+]+(?:-[A-Za-z0-9_+]+)*?)'? (?:library )?(?:not found|is required|is missing|not installed)`), ""},
	{KindPkgConfig, re(`No package '([A-Za-z0-9_.+-]+)' found`), ""},
	{KindPkgConfig, re(`Package '?([A-Za-z0-9_.+-]+)'?,? (?:required by '[^']*', )?(?:was )?not found`), ""},
	{KindPkgConfig, re(`[Dd]ependency "?([A-Za-z0-9_.+-]+)"? (?:not found|found: NO)`), ""},
	{KindPkgConfig, re(`(?m)The following required packages were not found:\s*\n\s*\n?\s*- ([A-Za-z0-9_.+-]+)`), ""},
	{KindProgram, re(`(?m)(?:^|: )([A-Za-z][A-Za-z0-9_.+-]*): (?:command )?not found\s*$`), ""},
	{KindProgram, re(`(?m)^make(?:\[\d+\])?: ([A-Za-z][A-Za-z0-9_.+-]*): No such file or directory\s*$`), ""},
	{KindProgram, re(`Program '([A-Za-z0-9_.+-]+)' not found`), ""},
	{KindProgram, re(`Can't exec "([A-Za-z0-9_.+-]+)": No such file or directory`), ""}, // Perl's system() and exec (autoreconf running autopoint)
	{KindProgram, re(`Could not find (?:program|executable) '?([A-Za-z0-9_.+-]+)`), ""},
	{KindProgram, re(`Could NOT find (PkgConfig) `), ""},
	{KindProgram, re(`unable to find a build program corresponding to "(Ninja)"`), ""},
	{KindProgram, re(`exec: "([A-Za-z0-9_.+-]+)": executable file not found in \$PATH`), ""}, // the go command (cgo's gcc, pkg-config)
	{KindCMakePackage, re(`Could not find a package\s+configuration\s+file\s+provided\s+by\s+"([A-Za-z0-9_.+-]+)"`), ""},
	{KindGoPackage, re(`cannot find package "([A-Za-z0-9][A-Za-z0-9_.~/+-]*)" in any of`), ""}, // a GOPATH build's import
	// An old configure that stops without a Makefile, saying which tool it needs
	// (lifelines 3.0.61: "LifeLines requires GNU Bison to compile src/interp/yacc.y.").
	{KindProgram, re(`requires (?:GNU )?([Bb]ison|[Ff]lex|[Yy]acc|[Gg]perf|[Mm]4|[Ss]wig|[Rr]e2c) to (?:compile|build|generate)`), ""},
	// gettext's po/Makefile compiles a catalog into t-LANG.gmo with $(GMSGFMT), which
	// configure sets to ":" when it finds no msgfmt, and then moves the file that was
	// never written (minidlna's "mv: cannot stat 't-da.gmo'").
	{KindProgram, re(`(?m)^mv: cannot stat '?t-[A-Za-z0-9_@.-]+\.gmo'?: No such file or directory`), "msgfmt"},
}

// programAliases map what a build names to the file a package installs.
var programAliases = map[string]string{"PkgConfig": "pkg-config", "Ninja": "ninja", "yacc": "bison",
	"Bison": "bison", "Flex": "flex", "Yacc": "bison", "Gperf": "gperf", "M4": "m4", "Swig": "swig", "Re2c": "re2c"}

// notPackages are names the patterns catch that no package should be installed for:
// shell builtins, the build's own scripts, and words of other messages.
var notPackages = map[string]bool{"source": true, "export": true, "configure": true, "test": true,
	"found": true, "required": true, "package": true, "Package": true, "Dependency": true}

// FindMissing returns the missing files named in build output, first mention first,
// each once.
func FindMissing(text string) []Missing {
	type hit struct {
		at int
		m  Missing
	}
	var hits []hit
	for _, p := range missingPatterns {
		for _, loc := range p.re.FindAllStringSubmatchIndex(text, -1) {
			name := p.name
			if name == "" {
				name = text[loc[2]:loc[3]]
			}
			if p.kind == KindProgram {
				if a, ok := programAliases[name]; ok {
					name = a
				}
			}
			if notPackages[name] || strings.HasPrefix(name, ".") {
				continue
			}
			hits = append(hits, hit{loc[0], Missing{p.kind, name}})
		}
	}
	// First mention first; stable for equal positions.
	for i := 1; i < len(hits); i++ {
		for j := i; j > 0 && hits[j].at < hits[j-1].at; j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
	var out []Missing
	seen := map[Missing]bool{}
	for _, h := range hits {
		if !seen[h.m] {
			seen[h.m] = true
			out = append(out, h.m)
		}
	}
	return out
}

// configureFailed is configure stopping with its own message; pkg-config's words are
// then only in config.log (PKG_CHECK_MODULES with its own action-if-not-found).
var configureFailed = re(`configure: error: .*(?i:not (?:installed|found)|required|requirements|missing)`)

// configLogModules returns the last pkg-config module config.log reports missing: the
// check that stopped configure. Other failed checks in config.log are optional ones.
func configLogModules(ctx context.Context, f Failure, env Env) []Missing {
	if env.ReadFile == nil {
		return nil
	}
	for _, p := range configLogs(f, env) {
		b, err := env.ReadFile(ctx, p)
		if err != nil {
			continue
		}
		var last []Missing
		for _, m := range FindMissing(string(b)) {
			if m.Kind == KindPkgConfig {
				last = []Missing{m}
			}
		}
		if last != nil {
			return last
		}
	}
	return nil
}

func missingPackageRule() Rule {
	sigs := []*regexp.Regexp{configureFailed}
	for _, p := range missingPatterns {
		sigs = append(sigs, p.re)
	}
	return Rule{
		Name: "missing-package",
		Doc:  "a missing header, library, pkg-config module, program or CMake package: install the distro package that provides it",
		Categories: []atesor.ErrorCategory{atesor.CategoryDependency, atesor.CategoryLinking, atesor.CategoryMissingTool,
			atesor.CategoryConfiguration, atesor.CategoryCompilation, atesor.CategoryUnknown},
		Signatures: sigs,
		Make:       makeMissingPackage,
	}
}

func makeMissingPackage(ctx context.Context, f Failure, env Env) (*Fix, string) {
	missing := FindMissing(f.Message)
	if f.Output != "" {
		missing = append(missing, FindMissing(f.Output)...)
	}
	if len(missing) == 0 && configureFailed.MatchString(f.text()) {
		missing = configLogModules(ctx, f, env)
	}
	if len(missing) == 0 {
		return nil, "no missing file named"
	}
	var pkgs, found, notFound, fromMap, fromDeps, fromName []string
	for _, m := range missing {
		pkg, ok := providerOf(env, m)
		if m.Kind == KindGoPackage && env.GoPackage != nil {
			// The distribution's source index names the package of a Go-Import-Path; it
			// answers what the Contents index cannot read or does not list.
			if p, _, err := env.GoPackage(ctx, m.Name); err == nil && p != "" {
				pkg, ok = p, true
			}
		}
		if !ok {
			// The profile's package map knows the common tools and libraries; it answers
			// when the index cannot (not loaded, or no file of that name in it).
			if pkg, ok = mappedPackage(env.Platform, m); ok && !slices.Contains(fromMap, m.Name) {
				fromMap = append(fromMap, m.Name)
			}
		}
		if !ok && (m.Kind == KindLibrary || m.Kind == KindPkgConfig) {
			// The distribution's Build-Depends name the -dev package of a library its
			// build links by Debian's naming (libconfuse-dev for -lconfuse), which
			// answers when neither the index nor the map does. Not a header's: its
			// package may put it in a directory of its own, which header-subdir finds
			// after installing the Build-Depends.
			if pkg, ok = buildDependsDev(ctx, env, strings.ToLower(strings.TrimPrefix(m.Name, "lib"))); ok && !slices.Contains(fromDeps, m.Name) {
				fromDeps = append(fromDeps, m.Name)
			}
		}
		if !ok && indexUnread(env) {
			var file string
			if pkg, file, ok = sameNamePackage(ctx, env, m); ok {
				if note := fmt.Sprintf("%s (its file list has %s)", pkg, file); !slices.Contains(fromName, note) {
					fromName = append(fromName, note)
				}
			}
		}
		if !ok {
			notFound = append(notFound, fmt.Sprintf("%s %s", m.Kind, m.Name))
			continue
		}
		if !slices.Contains(pkgs, pkg) {
			pkgs = append(pkgs, pkg)
			found = append(found, fmt.Sprintf("%s %s is in %s", m.Kind, m.Name, pkg))
		}
		if len(pkgs) == 4 {
			break
		}
	}
	if len(pkgs) == 0 {
		if err := indexErr(env); err != nil {
			return nil, fmt.Sprintf("the Contents index could not be read (%v), and the profile's package map does not know %s",
				err, strings.Join(notFound, ", "))
		}
		if env.Packages == nil && env.Platform.PackageManager != "apk" {
			return nil, "no Contents index to look up " + strings.Join(notFound, ", ")
		}
		return nil, "no package provides " + strings.Join(notFound, ", ")
	}
	install := installCommand(env)
	if pkgs, found = notInstalled(env, pkgs, found); len(pkgs) == 0 {
		// Installing again changes nothing (unar's Foundation/Foundation.h, in
		// libgnustep-base-dev's /usr/include/<triplet>/GNUstep): the file is where the
		// build does not look, which header-subdir and the rules after it answer.
		return nil, "the packages that provide it are installed already (" + strings.Join(found, "; ") + "): the build does not look where they put it"
	}
	analysis := "The build is missing files a distro package provides: " + strings.Join(found, "; ") + "."
	if rest := otherBuildDepends(ctx, env, pkgs); len(rest) > 0 {
		// Each missing tool of a distribution's source found one at a time costs an
		// attempt (genders: bison, then flex, then the attempt limit); the packaging
		// lists them all.
		analysis += fmt.Sprintf(" The distribution's Build-Depends name %s too, so its other build dependencies are installed with it: %s.",
			strings.Join(pkgs, ", "), strings.Join(rest, " "))
		pkgs = append(pkgs, rest...)
	}
	if len(fromMap) > 0 {
		analysis += " The package of " + strings.Join(fromMap, ", ") + " is the profile's package map's"
		if indexErr(env) != nil {
			analysis += " (the Contents index could not be read)"
		}
		analysis += "."
	}
	if len(fromDeps) > 0 {
		analysis += " The package of " + strings.Join(fromDeps, ", ") + " is the -dev package of that name the distribution's Build-Depends list."
	}
	if len(fromName) > 0 {
		analysis += " With no Contents index to read, the package of the program's own name was installed and its file list checked: " +
			strings.Join(fromName, ", ") + "."
	}
	return &Fix{
		Analysis: analysis,
		Strategy: "install " + strings.Join(pkgs, " "),
		Actions:  []atesor.Action{{Type: atesor.ActionCommand, Command: install + " " + strings.Join(pkgs, " ")}},
	}, ""
}

// notInstalled drops from pkgs (and the notes in found, one per package) the packages
// the plan's setup or an earlier fix installed already, keeping found whole when none
// is left so the refusal can name them.
func notInstalled(env Env, pkgs, found []string) ([]string, []string) {
	installed := installedPackages(env)
	var keep, keepFound, gone []string
	for i, p := range pkgs {
		if slices.Contains(installed, p) {
			gone = append(gone, found[i]+", installed")
			continue
		}
		keep, keepFound = append(keep, p), append(keepFound, found[i])
	}
	if len(keep) == 0 {
		return nil, gone
	}
	return keep, keepFound
}

// otherBuildDepends returns the distribution's build dependencies of the source beside
// pkgs when every one of pkgs is among them; nil when the source has no known
// counterpart, or a package the build misses is one the distribution builds without.
func otherBuildDepends(ctx context.Context, env Env, pkgs []string) []string {
	if env.Distribution == nil {
		return nil
	}
	d, err := env.Distribution(ctx)
	if err != nil || d == nil {
		return nil
	}
	deps := d.installable()
	for _, p := range pkgs {
		if !slices.Contains(deps, p) {
			return nil
		}
	}
	return slices.DeleteFunc(deps, func(p string) bool { return slices.Contains(pkgs, p) })
}

// buildDependsDev returns the -dev package of the library stem (no lib prefix) that the
// distribution's Build-Depends name by Debian's naming: libSTEM-dev, else STEM-dev.
func buildDependsDev(ctx context.Context, env Env, stem string) (string, bool) {
	if env.Distribution == nil {
		return "", false
	}
	d, err := env.Distribution(ctx)
	if err != nil || d == nil {
		return "", false
	}
	for _, cand := range []string{"lib" + stem + "-dev", stem + "-dev"} {
		if debianPackage.MatchString(cand) && slices.Contains(d.BuildDepends, cand) {
			return cand, true
		}
	}
	return "", false
}

// mappedPackage is the profile's package for a missing program, library or pkg-config
// module that the canonical package map knows (no header: a header's name says too
// little about its package).
func mappedPackage(p atesor.Platform, m Missing) (string, bool) {
	switch m.Kind {
	case KindProgram:
		return knowledge.ProgramPackage(p, m.Name)
	case KindLibrary, KindPkgConfig:
		return knowledge.DependencyPackage(p, m.Name)
	}
	return "", false
}

// providerOf finds the package for a missing file: through the Contents index on Debian,
// through apk's own provides (cmd:, pc:) on Alpine.
func providerOf(env Env, m Missing) (string, bool) {
	if env.Platform.PackageManager == "apk" {
		switch m.Kind {
		case KindProgram:
			return "cmd:" + m.Name, true
		case KindPkgConfig:
			return "pc:" + m.Name, true
		}
		return "", false
	}
	if env.Packages == nil {
		return "", false
	}
	if p := env.Packages.Providers(m.Kind, m.Name); len(p) > 0 {
		return p[0], true
	}
	return "", false
}

// indexUnread reports whether the rule has no Contents index to look files up in: none
// given, or one that could not be read (a mirror whose Contents file is not the one its
// signed Release lists is refused).
func indexUnread(env Env) bool {
	return env.Packages == nil || indexErr(env) != nil
}

// indexErr is why the rule's Contents index could not be read; nil when it was, or when
// the finder is no index that can say.
func indexErr(env Env) error {
	if ie, ok := env.Packages.(indexError); ok {
		return ie.IndexErr()
	}
	return nil
}

// sameNamePackage answers a missing program with no Contents index to ask: the
// distribution's package of the program's own name (re2c, swig, gperf), installed in
// the sandbox and taken only when its own file list puts the program in a bin
// directory (file), so a package of that name that ships something else is not the
// answer.
func sameNamePackage(ctx context.Context, env Env, m Missing) (pkg, file string, ok bool) {
	if m.Kind != KindProgram || env.PackageFiles == nil || !debianPackage.MatchString(m.Name) {
		return "", "", false
	}
	files, err := env.PackageFiles(ctx, m.Name)
	if err != nil {
		return "", "", false
	}
	for _, f := range files {
		dir, base := path.Split(f)
		if base == m.Name && slices.Contains([]string{"/usr/bin/", "/bin/", "/usr/sbin/", "/sbin/"}, dir) {
			return m.Name, f, true
		}
	}
	return "", "", false
}

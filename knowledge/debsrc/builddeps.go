package debsrc

import (
	"context"
	"strings"
)

// Reading a source package's Build-Depends the way Debian's default build of one
// architecture does: a relation's first alternative, [arch] restrictions evaluated for
// that architecture, <profile> restrictions evaluated with no build profile active (so
// <!nocheck> and <!nodoc> relations count, <cross> ones do not), version constraints
// dropped. The field comes from the signed Sources index, but it is still text from the
// archive: it is bounded and every name checked against Debian's rules for package names.

const (
	maxBuildDependsBytes = 64 << 10 // a Build-Depends field longer than this is cut
	maxBuildDepends      = 200      // relations read
)

// packagingTools are build dependencies that only Debian's packaging machinery uses
// (debhelper's sequences, CDBS, patch systems, KDE's symbols helper): a build from the
// upstream tree outside dpkg-buildpackage has no use for them.
var packagingTools = map[string]bool{
	"debhelper": true, "debhelper-compat": true, "cdbs": true, "quilt": true, "dpatch": true,
	"pkg-kde-tools": true, "dpkg-dev": true, "dpkg-build-api": true, "build-essential": true,
}

// BuildDepends returns the packages the Build-Depends and Build-Depends-Arch fields
// (their values joined) ask Debian's default build on arch to install, in order and
// each once (of a relation's alternatives, the first whose restrictions apply), without the packaging tools (debhelper, debhelper-compat, dh-*, CDBS,
// quilt, pkg-kde-tools, dpkg-dev, dpkg-build-api, build-essential). A relation that names a package
// of another architecture (name:amd64) is left out; :any and :native are dropped.
func BuildDepends(fields, arch string) []string {
	if len(fields) > maxBuildDependsBytes {
		fields = fields[:maxBuildDependsBytes]
	}
	var out []string
	seen := map[string]bool{}
	for i, rel := range strings.Split(fields, ",") {
		if i >= maxBuildDepends {
			break
		}
		// The first alternative that applies, as Debian's build daemons resolve one:
		// alternatives whose restrictions exclude the build are removed first.
		name, ok := "", false
		for _, alt := range strings.Split(rel, "|") {
			if name, ok = relationFor(alt, arch); ok {
				break
			}
		}
		if !ok || seen[name] || packagingTools[name] || strings.HasPrefix(name, "dh-") {
			continue
		}
		seen[name] = true
		out = append(out, name)
	}
	return out
}

// relationFor reads one relation, NAME[:ARCHQUAL] [(VERSION)] [[ARCHES]] [<PROFILES>...],
// and returns its package name when it applies to arch in the default build.
func relationFor(rel, arch string) (string, bool) {
	rel = strings.TrimSpace(rel)
	end := strings.IndexAny(rel, " \t\n([<")
	if end < 0 {
		end = len(rel)
	}
	name, rest := rel[:end], rel[end:]
	if q, after, ok := strings.Cut(name, ":"); ok {
		if after != "any" && after != "native" {
			return "", false // a package of a foreign architecture
		}
		name = q
	}
	if !nameRE.MatchString(name) || strings.HasSuffix(name, "-") {
		// A trailing - tells apt-get install to remove the package.
		return "", false
	}
	// Version constraints are dropped: the suite's own version is what gets installed.
	for {
		open := strings.IndexByte(rest, '(')
		if open < 0 {
			break
		}
		close := strings.IndexByte(rest[open:], ')')
		if close < 0 {
			return "", false
		}
		rest = rest[:open] + " " + rest[open+close+1:]
	}
	if open := strings.IndexByte(rest, '['); open >= 0 {
		close := strings.IndexByte(rest[open:], ']')
		if close < 0 || !archesAllow(rest[open+1:open+close], arch) {
			return "", false
		}
		rest = rest[:open] + " " + rest[open+close+1:]
	}
	// <a b> <c> is a disjunction of conjunctions: the relation applies when one list
	// holds, or when it has no list at all.
	lists, holds := 0, false
	for {
		open := strings.IndexByte(rest, '<')
		if open < 0 {
			break
		}
		close := strings.IndexByte(rest[open:], '>')
		if close < 0 || strings.TrimSpace(rest[:open]) != "" {
			return "", false
		}
		lists++
		holds = holds || profilesHold(rest[open+1:open+close])
		rest = rest[open+close+1:]
	}
	if strings.TrimSpace(rest) != "" {
		return "", false // words the relation syntax has no place for
	}
	return name, lists == 0 || holds
}

// profilesHold evaluates one <...> list (a conjunction) with no build profile active:
// !name holds, name does not.
func profilesHold(list string) bool {
	terms := strings.Fields(list)
	if len(terms) == 0 {
		return false
	}
	for _, t := range terms {
		if !strings.HasPrefix(t, "!") {
			return false
		}
	}
	return true
}

// archesAllow evaluates an [arch ...] restriction for arch: a list of architectures and
// wildcards (linux-any, any-riscv64, any), all of them negated (!arch) or none.
func archesAllow(list, arch string) bool {
	terms := strings.Fields(list)
	if len(terms) == 0 {
		return false
	}
	negated := strings.HasPrefix(terms[0], "!")
	for _, t := range terms {
		if strings.HasPrefix(t, "!") != negated {
			return false // a mixed list is invalid (Debian Policy 7.1); nothing applies
		}
	}
	for _, t := range terms {
		if archMatches(strings.TrimPrefix(t, "!"), arch) {
			return !negated
		}
	}
	return negated
}

// archMatches reports whether a Debian architecture or wildcard names arch, a Linux
// architecture (riscv64 is linux-riscv64): arch itself, linux-ARCH, any, linux-any,
// any-ARCH.
func archMatches(term, arch string) bool {
	switch term {
	case arch, "linux-" + arch, "any", "linux-any", "any-" + arch:
		return true
	}
	return false
}

// Build is how Debian builds a source package on one architecture: the configure
// switches of its debian/rules and the packages its default build installs.
type Build struct {
	// Package and Version are the source package and its full Debian version.
	Package, Version string
	// Switches are [ConfigureSwitches] of its debian/rules.
	Switches []string
	// BuildDepends are [BuildDepends] of its Sources stanza for the architecture.
	BuildDepends []string
	// RulesErr says why debian/rules could not be read (Switches is then empty): the
	// Build-Depends come from the signed index alone and are still good.
	RulesErr error
	// GoImportPath is the import path Debian builds a Go source under (see
	// [Source.GoImportPath]).
	GoImportPath string
	// Patches are the patches of its debian/patches/series, in order (see [Patch]).
	Patches []Patch
	// PatchesErr says why the series could not be read (Patches is then empty).
	PatchesErr error
}

// Build looks the source package name (at version, the full Debian version or its
// upstream part; empty: the index's newest) up in the verified Sources index and reads
// how Debian builds it on arch: its Build-Depends, and the switches of its debian/rules
// (the packaging tarball downloaded once, checked against the index, read in memory).
// A packaging that cannot be read is Build.RulesErr and Build.PatchesErr, not an
// error: the stanza alone still says what the build installs. The error is the lookup's.
func (r *Resolver) Build(ctx context.Context, name, version, arch string) (*Build, error) {
	src, err := r.Lookup(ctx, name, version)
	if err != nil {
		return nil, err
	}
	b := &Build{Package: src.Package, Version: src.Version, BuildDepends: BuildDepends(src.BuildDepends, arch),
		GoImportPath: src.GoImportPath}
	p, err := r.packagingOf(ctx, src)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		// The series is in the same tarball: it is unread for the same reason.
		b.RulesErr, b.PatchesErr = err, err
		return b, nil
	}
	b.Switches = ConfigureSwitches(p.Rules)
	b.Patches, b.PatchesErr = p.Patches, p.PatchesErr
	return b, nil
}

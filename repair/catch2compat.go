package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
)

// Tests written for Catch2 2.x include its single header, <catch2/catch.hpp> (or
// "catch.hpp" beside them), which Catch2 3 no longer has: it split the header into
// catch_all.hpp and a library, and moved main() from the translation unit that defines
// CATCH_CONFIG_MAIN into a second library, Catch2WithMain. Debian trixie ships Catch2
// 3, so cppzmq 4.10.0's and immer 0.8.1's test programs, a header-only library's only
// evidence, stop at "fatal error: catch2/catch.hpp: No such file or directory". The
// rule writes a compat catch2/catch.hpp into the tree, as a recorded file the recipe
// replays, and puts its directory on CPATH.

const catch2CompatRuleName = "catch2-compat"

// catch2CompatDir is the repository directory the compat headers go to; its name says
// who wrote it, and the rule knows its own header there from a vendored copy.
const catch2CompatDir = ".atesor-compat"

// Bounds of the test sources the rule reads for CATCH_CONFIG_MAIN and for the Catch2 2
// interfaces it cannot bridge.
const (
	maxCatch2Files = 256
	maxCatch2Bytes = 512 << 10
)

var (
	// catch2Missing is a compiler missing Catch2 2's header, GCC's and clang's words.
	catch2Missing = []*regexp.Regexp{
		re(`:\d+(?::\d+)?: fatal error: (?:catch2/)?catch\.hpp: No such file or directory`),
		re(`fatal error: '(?:catch2/)?catch\.hpp' file not found`),
	}
	// catch2MissingAt is the same with the including file, its line and the include.
	catch2MissingAt = re(`(?m)^(\S+?):(\d+)(?::\d+)?: fatal error: '?((?:catch2/)?catch\.hpp)'?(?:: No such file or directory| file not found)`)
	// catch2VersionRequest is CMake refusing Catch2 3's package for a find_package()
	// that asks for version 2, as CMake wraps it.
	catch2VersionRequest = re(`Could\s+not\s+find\s+a\s+configuration\s+file\s+for\s+package\s+"Catch2"\s+that\s+is\s+compatible\s+with\s+requested\s+version\s+"(2[0-9.]*)"`)
	cmakeErrorAt         = re(`CMake Error at ([^\n:]+):(\d+) \(find_package\)`)
	consideredVersion    = re(`Catch2Config\.cmake,\s+version:\s+([0-9][0-9.]*)`)

	catch2ConfigMain   = re(`(?m)^[ \t]*#[ \t]*define[ \t]+CATCH_CONFIG_MAIN\b`)
	catch2ConfigRunner = re(`(?m)^[ \t]*#[ \t]*define[ \t]+CATCH_CONFIG_RUNNER\b`)
	// catch2BuildMain is CATCH_CONFIG_MAIN as a build file defines it for a target
	// (target_compile_definitions(t PUBLIC CATCH_CONFIG_MAIN), -DCATCH_CONFIG_MAIN).
	catch2BuildMain = re(`(?:^|[\s(;"])(?:-D)?CATCH_CONFIG_MAIN\b`)
	catch2WithMain  = re(`\bCatch2::Catch2WithMain\b`)
	catch2Approx    = re(`\bApprox\b`)
	catch2Matchers  = re(`\bCatch::(?:EndsWith|Equals|Matches|Predicate|StartsWith|UnorderedEquals|VectorContains|WithinAbs|WithinRel|WithinULP|MatcherBase)\b`)
	cxxSource       = re(`\.(?:c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx|ipp|inl|tpp)$`)
)

// catch2Unbridged are Catch2 2 interfaces whose shape Catch2 3 changed, so that no
// header can stand in for them: code using them needs porting to Catch2 3.
var catch2Unbridged = []struct {
	re   *regexp.Regexp
	what string
}{
	{re(`\b(?:TestEventListenerBase|IStreamingReporter|StreamingReporterBase|CumulativeReporterBase)\b`),
		"a reporter or listener written against Catch2 2's interfaces, whose virtual functions Catch2 3 changed"},
	{re(`\bMatchers::Impl::`), "Catch2 2's matcher internals (Catch::Matchers::Impl), which Catch2 3 reorganised"},
	{re(`\b(?:REQUIRE|CHECK)_THAT\s*\([^;]*?\bContains\s*\(|_THROWS_WITH\s*\([^;]*?\bContains\s*\(`),
		"Catch2 2's Contains matcher, which Catch2 3 renamed ContainsSubstring for strings (its Contains matches a range's elements, so the same call compiles to another matcher or not at all)"},
	{re(`#[ \t]*include[ \t]*[<"]catch2/catch_reporter_[a-z_]+\.hpp[>"]`), "a Catch2 2 reporter header, which Catch2 3 builds into its library under other names"},
}

func catch2CompatRule() Rule {
	return Rule{
		Name: catch2CompatRuleName,
		Doc: "tests written for Catch2 2's single header (catch2/catch.hpp, catch.hpp) built where Catch2 3 is installed: " +
			"a compat catch2/catch.hpp written into the tree (catch_all.hpp, Approx and the matchers where Catch2 2 had them, and main() running Catch::Session in the unit that defines CATCH_CONFIG_MAIN) " +
			"with its directory on CPATH; refused for a vendored copy, for Catch2 2 interfaces Catch2 3 changed (reporters, matcher internals, the Contains matcher) and for a find_package() asking for version 2",
		Categories: []atesor.ErrorCategory{atesor.CategoryDependency, atesor.CategoryCompilation,
			atesor.CategoryConfiguration, atesor.CategoryUnknown},
		Signatures: append(slices.Clone(catch2Missing), catch2VersionRequest),
		Make:       makeCatch2Compat,
	}
}

// catch2Use is what the test sources of the tree say of their use of Catch2 2.
type catch2Use struct {
	mains     []string // file:line of each CATCH_CONFIG_MAIN, in a source or a build file
	runners   []string // file:line of each CATCH_CONFIG_RUNNER
	withMain  []string // build files linking Catch2::Catch2WithMain
	approx    bool
	matchers  bool     // matchers named as members of Catch, as Catch2 2 had them
	unbridged []string // file:line: what
}

func makeCatch2Compat(ctx context.Context, f Failure, env Env) (*Fix, string) {
	text := f.Message + "\n" + f.Output
	if m := catch2VersionRequest.FindStringSubmatch(text); m != nil {
		return nil, catch2VersionRefusal(text, m[1])
	}
	var names, includers, dirs []string
	for _, m := range catch2MissingAt.FindAllStringSubmatch(text, -1) {
		if !slices.Contains(names, m[3]) {
			names = append(names, m[3])
		}
		rel, ok := locateFile(env.Files, m[1])
		if !ok {
			continue
		}
		if at := rel + ":" + m[2]; !slices.Contains(includers, at) && len(includers) < 3 {
			includers = append(includers, at)
		}
		top, _, found := strings.Cut(rel, "/")
		if !found {
			top = "."
		}
		if !slices.Contains(dirs, top) {
			dirs = append(dirs, top)
		}
	}
	if len(names) == 0 {
		return nil, "no include of catch2/catch.hpp or catch.hpp is missing"
	}
	for _, n := range names {
		if p, ok := treeCopy(env.Files, n); ok {
			if strings.HasPrefix(p, catch2CompatDir+"/") {
				return nil, fmt.Sprintf("the compat header %s is in the tree, yet the compiler still misses %s: that compile does not read the plan's CPATH", p, n)
			}
			return nil, fmt.Sprintf("the tree has its own %s (%s): a vendored Catch2, whose include directory the build misses, not Catch2 2", n, p)
		}
	}
	if env.Plan == nil {
		return nil, "no build plan to put the compat header's directory on CPATH for"
	}
	if env.ReadFile == nil {
		return nil, "the test sources cannot be read"
	}
	if !path.IsAbs(env.RepoDir) || !plainArg.MatchString(env.RepoDir) {
		return nil, "the package's directory in the sandbox is not known as a plain absolute path, which CPATH needs"
	}
	if env.Locate == nil {
		return nil, "the sandbox's include directories cannot be searched for Catch2 3's catch2/catch_all.hpp"
	}
	found, install, why := installedCatch2(ctx, env)
	if why != "" {
		return nil, why
	}
	use := readCatch2Use(ctx, env, dirs)
	if len(use.unbridged) > 0 {
		return nil, "the tests use " + strings.Join(use.unbridged, "; ") + ": a compat header cannot bridge that, the tests need porting to Catch2 3"
	}
	cpath := []string{path.Join(env.RepoDir, catch2CompatDir)}
	if root := strings.TrimSuffix(found.Path, "/catch2/catch_all.hpp"); !slices.Contains(includeRoots, root) {
		if !plainArg.MatchString(root) {
			return nil, fmt.Sprintf("Catch2 3's header is %s, in a directory a command line would need to quote", found.Path)
		}
		cpath = append(cpath, root)
	}
	actions := []atesor.Action{{Type: atesor.ActionCreateFile, Path: catch2CompatDir + "/catch2/catch.hpp", Content: catch2Shim}}
	if slices.Contains(names, "catch.hpp") {
		actions = append(actions, atesor.Action{Type: atesor.ActionCreateFile, Path: catch2CompatDir + "/catch.hpp", Content: catch2Forward})
	}
	plan := withPackages(*env.Plan, env, install)
	plan = withIncludeDirs(plan, installCommand(env), cpath)

	analysis := catch2Analysis(names, includers, found, install, use, cpath)
	strategy := "write " + catch2CompatDir + "/catch2/catch.hpp for Catch2 3"
	if len(install) > 0 {
		strategy = "install " + strings.Join(install, " ") + ", " + strategy
	}
	return &Fix{Analysis: analysis, Strategy: strategy + " and add " + strings.Join(cpath, ":") + " to CPATH", Actions: actions, Plan: &plan}, ""
}

// catch2Analysis says which header was missing and where, which Catch2 the sandbox
// has, and what the compat header maps.
func catch2Analysis(names, includers []string, found HeaderFile, install []string, use catch2Use, cpath []string) string {
	owner := "no package"
	if len(found.Packages) > 0 {
		owner = strings.Join(found.Packages, ", ")
	}
	analysis := fmt.Sprintf("The compiler could not find %s", strings.Join(names, " and "))
	if len(includers) > 0 {
		analysis += " (" + strings.Join(includers, ", ") + ")"
	}
	analysis += fmt.Sprintf(", Catch2 2's single header; the sandbox has Catch2 3 (%s, of %s), which has no such header: "+
		"it split it into catch_all.hpp and a library, and moved main() into the Catch2WithMain library.", found.Path, owner)
	if len(install) > 0 {
		analysis += " The plan installs " + strings.Join(install, " ") + ", which the build names."
	}
	analysis += " " + catch2CompatDir + "/catch2/catch.hpp is written for the tests to compile against: it includes <catch2/catch_all.hpp>"
	approx := "Approx back in the global namespace and Catch::Detail, where Catch2 2 had it (Catch2 3 has Catch::Approx)"
	if use.approx {
		approx += ", which the tests use"
	}
	matchers := "the matchers as members of Catch (Catch::Equals, Catch::StartsWith, Catch::WithinAbs, ... and Catch::MatcherBase), where Catch2 2 had them"
	if use.matchers {
		matchers += ", which the tests use"
	}
	maps := []string{approx, matchers}
	switch {
	case len(use.mains) > 0:
		maps = append(maps, "main() running Catch::Session in each translation unit that defines CATCH_CONFIG_MAIN ("+strings.Join(use.mains, ", ")+
			"), as Catch2 2's header did, so linking Catch2::Catch2, Catch2 3's library without main, links; it is weak, so a program that also links Catch2WithMain, or a target whose every unit gets the definition, still has one main")
	case len(use.runners) > 0:
		maps = append(maps, "no main(): the tests define CATCH_CONFIG_RUNNER ("+strings.Join(use.runners, ", ")+") and write their own, which Catch2 3's Catch::Session serves")
	default:
		maps = append(maps, "main() only where CATCH_CONFIG_MAIN is defined, which the test sources read do not do")
	}
	if len(use.withMain) > 0 {
		maps = append(maps, "nothing for "+strings.Join(use.withMain, ", ")+"'s Catch2::Catch2WithMain, whose main() the compat one leaves out of the link when a unit defines CATCH_CONFIG_MAIN")
	}
	analysis += ", with " + strings.Join(maps, "; ") + "."
	if slices.Contains(names, "catch.hpp") {
		analysis += " " + catch2CompatDir + "/catch.hpp forwards the v2-style include to it."
	}
	analysis += " CPATH, which GCC and clang read under every build system, adds " + strings.Join(cpath, ":") + " to the plan's compiles without editing the build files."
	return analysis
}

// treeCopy finds a file of the tree an include resolves to by its path: a vendored
// Catch2 (single_include/catch2/catch.hpp, third_party/catch.hpp).
func treeCopy(files []string, name string) (string, bool) {
	for _, p := range files {
		if p == name || strings.HasSuffix(p, "/"+name) {
			return p, true
		}
	}
	return "", false
}

// installedCatch2 finds Catch2 3's catch_all.hpp in the sandbox: already installed, or
// after installing the Catch2 package the plan or the source's Build-Depends name (the
// packages to add to the plan then). Without it the reason says what is missing.
func installedCatch2(ctx context.Context, env Env) (HeaderFile, []string, string) {
	const header = "catch2/catch_all.hpp"
	located, err := env.Locate(ctx, header, nil)
	if err != nil {
		return HeaderFile{}, nil, fmt.Sprintf("the include directories could not be searched for %s: %v", header, err)
	}
	if len(located) > 0 {
		return located[0], nil, ""
	}
	s := &headerSearch{env: env, planPkgs: planInstalls(*env.Plan, installCommand(env))}
	catch2Pkgs := append([]string{"libcatch2-dev"}, knownPackages(env.Platform, path.Base(header))...)
	var named []string
	for _, p := range slices.Concat(s.planPkgs, s.buildDepends(ctx)) {
		if slices.Contains(catch2Pkgs, p) && !slices.Contains(named, p) {
			named = append(named, p)
		}
	}
	if len(named) == 0 {
		return HeaderFile{}, nil, "Catch2 3 (" + header + ") is not installed, and neither the plan nor the source's build dependencies name a Catch2 package: " +
			"the tests want Catch2 2, which this distribution does not ship"
	}
	located, err = env.Locate(ctx, header, named)
	if err != nil {
		return HeaderFile{}, nil, fmt.Sprintf("installing %s failed: %v", strings.Join(named, " "), err)
	}
	if len(located) == 0 {
		return HeaderFile{}, nil, fmt.Sprintf("%s installs no %s: it is not Catch2 3", strings.Join(named, " "), header)
	}
	var add []string
	for _, p := range named {
		if !slices.Contains(s.planPkgs, p) {
			add = append(add, p)
		}
	}
	return located[0], add, ""
}

// readCatch2Use reads the test sources in dirs, the top directories of the files that
// include catch.hpp (bounded), and the build files there.
func readCatch2Use(ctx context.Context, env Env, dirs []string) catch2Use {
	var u catch2Use
	read := 0
	for _, p := range env.Files {
		if read == maxCatch2Files {
			break
		}
		if strings.HasPrefix(p, catch2CompatDir+"/") || !slices.ContainsFunc(dirs, func(d string) bool { return d == "." || strings.HasPrefix(p, d+"/") }) {
			continue
		}
		base := path.Base(p)
		cmake := base == "CMakeLists.txt" || strings.HasSuffix(base, ".cmake")
		other := base == "Makefile" || base == "Makefile.am" || base == "meson.build"
		if !cmake && !other && !cxxSource.MatchString(base) {
			continue
		}
		read++
		b, err := env.ReadFile(ctx, p)
		if err != nil {
			continue
		}
		src := excerpt.Head(string(b), maxCatch2Bytes)
		if cmake || other {
			for i, l := range strings.Split(src, "\n") {
				if l, _, _ = strings.Cut(l, "#"); catch2BuildMain.MatchString(l) {
					u.mains = append(u.mains, fmt.Sprintf("%s:%d, a compile definition", p, i+1))
				}
				if catch2WithMain.MatchString(l) && !slices.Contains(u.withMain, p) {
					u.withMain = append(u.withMain, p)
				}
			}
			continue
		}
		u.approx = u.approx || catch2Approx.MatchString(src)
		u.matchers = u.matchers || catch2Matchers.MatchString(src)
		for _, hit := range []struct {
			re  *regexp.Regexp
			out *[]string
		}{{catch2ConfigMain, &u.mains}, {catch2ConfigRunner, &u.runners}} {
			if loc := hit.re.FindStringIndex(src); loc != nil {
				*hit.out = append(*hit.out, fmt.Sprintf("%s:%d", p, strings.Count(src[:loc[0]], "\n")+1))
			}
		}
		for _, x := range catch2Unbridged {
			if loc := x.re.FindStringIndex(src); loc != nil {
				u.unbridged = append(u.unbridged, fmt.Sprintf("%s:%d: %s", p, strings.Count(src[:loc[0]], "\n")+1, x.what))
			}
		}
	}
	u.mains = firstFew(u.mains)
	u.runners = firstFew(u.runners)
	u.unbridged = firstFew(u.unbridged)
	return u
}

// firstFew keeps a list short enough for an analysis, saying how many it left out.
func firstFew(list []string) []string {
	if len(list) <= 4 {
		return list
	}
	return append(list[:4:4], fmt.Sprintf("%d more", len(list)-4))
}

// catch2VersionRefusal says why a find_package() asking for Catch2 2 is not bridged.
func catch2VersionRefusal(text, want string) string {
	at := "a find_package()"
	if m := cmakeErrorAt.FindStringSubmatch(text); m != nil {
		at = m[1] + ":" + m[2] + "'s find_package()"
	}
	have := "Catch2 3"
	if m := consideredVersion.FindStringSubmatch(text); m != nil {
		have += " (" + m[1] + ")"
	}
	return fmt.Sprintf("%s asks for Catch2 %s and the installed %s's CMake package accepts only its own major version: "+
		"a compat header bridges the test sources, not the version request, which the build file would have to drop", at, want, have)
}

// catch2Shim is the compat header. Its warnings are the framework's, not the
// package's: a -Werror build (immer's) must not fail on them.
const catch2Shim = `// catch2/catch.hpp: Catch2 2's single header for tests written against it, on
// Catch2 3, written by atesor's catch2-compat repair.
#ifndef ATESOR_CATCH2_COMPAT_CATCH_HPP
#define ATESOR_CATCH2_COMPAT_CATCH_HPP
#pragma GCC system_header

#include <catch2/catch_all.hpp>

// Catch2 2 declared Approx in the global namespace and in Catch::Detail; Catch2 3
// has Catch::Approx only.
using Catch::Approx;
namespace Catch {
namespace Detail {
using Catch::Approx;
}
}

// Catch2 2 also made its matchers members of Catch (using namespace Matchers) and
// called their base Catch::MatcherBase; Catch2 3 keeps them in Catch::Matchers.
namespace Catch {
using Matchers::EndsWith;
using Matchers::Equals;
using Matchers::Matches;
using Matchers::Predicate;
using Matchers::StartsWith;
using Matchers::UnorderedEquals;
using Matchers::VectorContains;
using Matchers::WithinAbs;
using Matchers::WithinRel;
using Matchers::WithinULP;
template <typename T>
using MatcherBase = Matchers::MatcherBase<T>;
}

// Catch2 2's CATCH_CONFIG_MAIN put main() into the translation unit that defines it;
// Catch2 3 moved it into the Catch2WithMain library. Weak, so that a program that
// links that library too, or a target whose every unit gets the definition, has one.
#if defined(CATCH_CONFIG_MAIN) && !defined(CATCH_CONFIG_RUNNER)
int main(int argc, char* argv[]) __attribute__((weak));
int main(int argc, char* argv[]) {
    return Catch::Session().run(argc, argv);
}
#endif

#endif
`

// catch2Forward is catch.hpp, the include Catch2 2's tests wrote when they had its
// single header beside them.
const catch2Forward = `// catch.hpp: Catch2 2's single header, included the v2 way; written by atesor's
// catch2-compat repair.
#include <catch2/catch.hpp>
`

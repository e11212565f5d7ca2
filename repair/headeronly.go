package repair

import (
	"context"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// PhaseVerify is the Phase of a Failure that is a failed verification, not a failed
// build command: only rules with [Rule.Verify] answer it.
const PhaseVerify = "verify"

const headerOnlyRuleName = "header-only-tests"

// headerOnlyUntested is the verification problem the rule answers, alone: a stub a fix
// wrote, or anything else verification found, is not repaired by building tests.
var headerOnlyUntested = re(`^verification failed: ` + regexp.QuoteMeta(atesor.ProblemHeaderOnlyUntested) + `[^;]*$`)

func headerOnlyTestsRule() Rule {
	return Rule{
		Name: headerOnlyRuleName,
		Doc: "a header-only library whose test programs are not built, so nothing compiled from its headers proves it: " +
			"configure with its tests on (the CMake option or meson option that gates them), with the distro's test framework",
		Verify:     true,
		Signatures: []*regexp.Regexp{headerOnlyUntested},
		Make:       makeHeaderOnlyTests,
	}
}

// FrameworkDir reports whether a directory name is a vendored test or benchmark
// framework's (googletest, gtest-1.11.0, benchmark, catch2, doctest, ...), and which.
// Programs built there are the framework's, not the package's.
func FrameworkDir(dir string) (string, bool) {
	fw, ok := frameworkOf(dir)
	return fw.name, ok
}

// testSwitch is one setting that turns a package's tests on, with where it was read.
type testSwitch struct {
	leaf
	at string // file:line of the command it enables
}

func makeHeaderOnlyTests(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if !headerOnlyUntested.MatchString(strings.TrimSpace(f.Message)) {
		return nil, "verification found more than an untested header-only library"
	}
	if env.Plan == nil {
		return nil, "no build plan to configure differently"
	}
	if env.ReadFile == nil {
		return nil, "the build files cannot be read"
	}
	kind, ok := planConfigureKind(*env.Plan, f.Phase)
	if !ok {
		return nil, "the plan has no cmake or meson configure command to turn the tests on with"
	}
	var (
		plan     atesor.BuildPlan
		switches []string
		pkgs     []string
		where    []string
		target   string
		why      string
	)
	switch kind.name {
	case "cmake":
		var sws []testSwitch
		sws, pkgs, target, why = cmakeTestSwitches(ctx, env)
		if why != "" {
			return nil, why
		}
		var defs []leaf
		for _, s := range sws {
			if !slices.Contains(defs, s.leaf) {
				defs = append(defs, s.leaf)
				switches = append(switches, "-D"+s.name+"="+onOff(s.want))
			}
			where = append(where, s.at)
		}
		plan = *env.Plan
		if len(defs) > 0 {
			if plan, ok = withCMakeDefines(plan, f.Phase, defs); !ok {
				return nil, "no cmake configure command in the plan to pass " + strings.Join(switches, " ") + " to"
			}
		}
		if target != "" {
			if plan, ok = withTestsTarget(plan, target); !ok {
				target = ""
			}
		}
	case "meson":
		switches, where, why = mesonTestSwitches(ctx, env)
		if why != "" {
			return nil, why
		}
		plan, _ = withSwitches(*env.Plan, f.Phase, mesonSetup, switches)
	default:
		return nil, "an autotools build builds its test programs only for make check; no configure switch turns them on"
	}
	pkgs = append(pkgs, distributionTestPackages(ctx, env, pkgs)...)
	plan = withPackages(plan, env, pkgs)
	if samePlan(plan, *env.Plan) {
		return nil, "the plan already configures the tests on and installs their framework, yet the build-system metadata names no test program"
	}
	var strategy []string
	if len(pkgs) > 0 {
		strategy = append(strategy, "install "+strings.Join(pkgs, " "))
	}
	if len(switches) > 0 {
		strategy = append(strategy, "configure with "+strings.Join(switches, " "))
	}
	if target != "" {
		strategy = append(strategy, "build the "+target+" target")
	}
	analysis := "The install step staged headers and no program or library: a header-only library, which only programs compiled from its headers prove on this platform. Its test programs are those programs, and the build does not build them"
	if strings.Contains(f.Message, "declares only INTERFACE libraries") {
		analysis = "The install step staged nothing, and the source tree's CMake project declares only INTERFACE libraries: a header-only library with no install rules, which only programs compiled from its headers prove on this platform. Its test programs are those programs, and the build does not build them"
	}
	if len(where) > 0 {
		analysis += " (" + strings.Join(slices.Compact(where), ", ") + ": built only with " + strings.Join(switches, " ") + ")"
	}
	analysis += ", so the build configures its tests on"
	if target != "" {
		analysis += " and builds its " + target + " target, which groups the test programs its default target leaves out"
	}
	if len(pkgs) > 0 {
		analysis += " with " + strings.Join(pkgs, " ") + " installed for them"
	}
	analysis += "."
	return &Fix{Analysis: analysis, Strategy: "build the test programs: " + strings.Join(strategy, " and "), Plan: &plan}, ""
}

func onOff(b bool) string {
	if b {
		return "ON"
	}
	return "OFF"
}

// maxTestScripts bounds the CMakeLists.txt files the rule follows into (the top one and
// the directories it adds, a few levels down).
const (
	maxTestScripts = 32
	maxTestDepth   = 3
)

// testCommand is a command that builds or registers a test program, with every guard
// it runs under (the add_subdirectory() calls' guards that lead to its file first).
type testCommand struct {
	file   string
	line   int
	guards []guard
	script *cmakeScript
	chain  []*cmakeScript // the scripts CMake entered to reach it, the top one first
}

// cmakeTestSwitches reads the CMake build from its top CMakeLists.txt down the
// directories it adds and returns the options to set so that its test programs are
// built (each an option or BUILD_TESTING whose name or doc says tests, set the way that
// turns them on), and the distro packages of the test frameworks the enabled tests look
// for with find_package(). It returns a reason when no option turns a test on.
func cmakeTestSwitches(ctx context.Context, env Env) ([]testSwitch, []string, string, string) {
	top := "CMakeLists.txt"
	if !slices.Contains(env.Files, top) {
		return nil, nil, "", "the repository has no top-level CMakeLists.txt"
	}
	r := subdirReader{ctx: ctx, env: env, scripts: map[string]*cmakeScript{}}
	planned := plannedDefines(*env.Plan)
	var tests []testCommand
	var finds []testCommand
	excluded := false                // a test program is left out of the default build
	aggregates := map[string]bool{}  // custom targets without a command: names of target groups
	depends := map[string][]string{} // add_dependencies(): target -> what it depends on
	type visit struct {
		file   string
		guards []guard
		depth  int
		tests  bool // the directory is a test directory: everything in it is a test
		chain  []*cmakeScript
	}
	queue := []visit{{file: top}}
	for n := 0; len(queue) > 0 && n < maxTestScripts; n++ {
		v := queue[0]
		queue = queue[1:]
		s := r.script(v.file)
		if s == nil {
			continue
		}
		for i, c := range s.cmds {
			g := append(slices.Clone(v.guards), s.guards[i]...)
			chain := append(slices.Clone(v.chain), s)
			tc := testCommand{file: v.file, line: c.Line, guards: g, script: s, chain: chain}
			switch c.Name {
			case "add_subdirectory":
				rel, ok := s.subdir(c, ".")
				if !ok || vendoredDir(rel) {
					continue
				}
				isTests := v.tests || purposeOf(path.Base(rel)) == "tests"
				if isTests {
					tests = append(tests, tc)
				}
				if child := path.Join(rel, "CMakeLists.txt"); v.depth < maxTestDepth && slices.Contains(env.Files, child) {
					queue = append(queue, visit{file: child, guards: g, depth: v.depth + 1, tests: isTests, chain: chain})
				}
			case "add_test":
				tests = append(tests, tc)
			case "add_executable":
				if len(c.Args) > 0 && (v.tests || purposeOf(c.Args[0].Text) == "tests") {
					tests = append(tests, tc)
					excluded = excluded || slices.ContainsFunc(c.Args[1:], func(a cmakeArg) bool { return !a.Quoted && a.Text == "EXCLUDE_FROM_ALL" })
				}
			case "add_custom_target":
				if len(c.Args) > 0 && !slices.ContainsFunc(c.Args[1:], func(a cmakeArg) bool { return !a.Quoted && (a.Text == "COMMAND" || a.Text == "ALL") }) {
					aggregates[c.Args[0].Text] = true
				}
			case "add_dependencies":
				if len(c.Args) > 1 {
					for _, a := range c.Args[1:] {
						depends[c.Args[0].Text] = append(depends[c.Args[0].Text], a.Text)
					}
				}
			case "find_package":
				if len(c.Args) > 0 {
					if _, ok := frameworkByFind(c.Args[0].Text); ok {
						finds = append(finds, tc)
					}
				}
			}
		}
	}
	if len(tests) == 0 {
		return nil, nil, "", "its CMake build adds no test directory, test program or add_test() the rule can read"
	}
	settings := maps.Clone(planned)
	var out []testSwitch
	var notes []string
	for _, tc := range tests {
		sws, why := enableTest(tc, settings, env.Fixes)
		if why != "" {
			notes = append(notes, why)
			continue
		}
		for _, s := range sws {
			settings[s.name] = s.want
		}
		out = append(out, sws...)
	}
	var pkgs []string
	for _, fc := range finds {
		if pathOff(fc.guards, known(fc.script, settings)) {
			continue
		}
		fw, _ := frameworkByFind(fc.script.cmds[indexAt(fc.script, fc.line)].Args[0].Text)
		for _, p := range r.frameworkPackages(fw) {
			if !slices.Contains(pkgs, p) {
				pkgs = append(pkgs, p)
			}
		}
	}
	target := ""
	if excluded {
		target = testsTarget(aggregates, depends)
	}
	if len(out) == 0 && len(pkgs) == 0 && target == "" {
		if len(notes) > 0 {
			return nil, nil, "", strings.Join(slices.Compact(notes), "; ")
		}
		return nil, nil, "", "the plan already configures every test of the CMake build on"
	}
	return out, pkgs, target, ""
}

// testsTarget is the custom target that only groups the test programs a build leaves
// out of its default target (EXCLUDE_FROM_ALL): one whose name says tests, which has
// no command of its own (immer's "tests"; never a "check" that also runs them, since a
// failing test would then fail the build) and depends on other targets; "" when there
// is none.
func testsTarget(aggregates map[string]bool, depends map[string][]string) string {
	var names []string
	for name := range aggregates {
		if purposeOf(name) == "tests" && len(depends[name]) > 0 && cmakeVarName.MatchString(name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// cmakeBuildDir finds the build directory of the plan's cmake --build command.
var cmakeBuildDir = re(`(?:^|&&\s*|;\s*)cmake\s+--build\s+([A-Za-z0-9_./+-]+)`)

// withTestsTarget returns the plan with the tests target built right after the
// plan's cmake --build command (cmake --build DIR --target NAME), and whether there
// was such a command.
func withTestsTarget(plan atesor.BuildPlan, target string) (atesor.BuildPlan, bool) {
	phases := slices.Clone(plan.Phases)
	for i := len(phases) - 1; i >= 0; i-- {
		for j, line := range phases[i].Commands {
			m := cmakeBuildDir.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			add := "cmake --build " + m[1] + " --target " + target + " -j$(nproc)"
			if slices.Contains(phases[i].Commands, add) {
				return plan, true
			}
			cmds := slices.Insert(slices.Clone(phases[i].Commands), j+1, add)
			phases[i].Commands = cmds
			plan.Phases = phases
			return plan, true
		}
	}
	return plan, false
}

// enableTest returns the settings that make every guard of a test command hold, given
// the settings so far: each guard already true, or of unknown value with no test
// option to set, is left as it is; each other one needs a way made of test options
// only (BUILD_TESTS on, SKIP_TESTS off, BUILD_TESTING on) or installable frameworks.
// An option an earlier fix of the run turned the other way is not turned back.
func enableTest(tc testCommand, settings map[string]bool, fixes []atesor.FixAttempt) ([]testSwitch, string) {
	s := tc.script
	at := fmt.Sprintf("%s:%d", tc.file, tc.line)
	var out []testSwitch
	cur := maps.Clone(settings)
	for _, g := range tc.guards {
		val := g.cond.eval(known(s, cur))
		if val == triOf(g.want) {
			continue
		}
		var chosen []leaf
		var implied []testSwitch
		refused := ""
		for _, way := range g.cond.ways(g.want, s.settable) {
			if len(way) == 0 {
				continue
			}
			sws, ok := impliedWay(tc, way, cur)
			if !ok {
				continue
			}
			if f := turnedByFix(switchLeaves(sws), fixes); f != "" {
				refused = f
				continue
			}
			if f := turnedByFix(way, fixes); f != "" {
				refused = f
				continue
			}
			chosen, implied = way, sws
			break
		}
		if chosen == nil {
			if refused != "" {
				return nil, fmt.Sprintf("%s: %s", at, refused)
			}
			if val == triUnknown {
				continue // a condition the reader cannot evaluate (the top project's own check): taken as holding
			}
			return nil, fmt.Sprintf("%s builds a test only when a condition no test option sets holds", at)
		}
		for _, l := range chosen {
			if l.op == "var" && !strings.HasSuffix(l.name, "_FOUND") {
				cur[l.name] = l.want
				if !switchesTestsOn(s, l) && s.installable(l) == "" {
					continue // set by the build itself once the implied switches are
				}
				out = append(out, testSwitch{leaf: l, at: at})
			}
		}
		for _, sw := range implied {
			out = append(out, sw)
			cur[sw.name] = sw.want
		}
	}
	return out, ""
}

// turnedByFix names the earlier fix that set one of the leaves the other way (its
// strategy says -DNAME=OFF for a leaf that wants ON), or "".
func turnedByFix(way []leaf, fixes []atesor.FixAttempt) string {
	for _, l := range way {
		opposite := "-D" + l.name + "=" + onOff(!l.want)
		for _, f := range fixes {
			if slices.Contains(strings.Fields(f.Strategy), opposite) {
				who := f.Rule
				if who == "" {
					who = string(f.Source)
				}
				return fmt.Sprintf("an earlier fix (%s) configured %s, which the tests need the other way", who, opposite)
			}
		}
	}
	return ""
}

// switchesTestsOn reports whether setting an option as the leaf says builds tests: an
// option (or CTest's BUILD_TESTING) whose name, else doc, says tests, set on when its
// name is positive (BUILD_TESTS) and off when negative (SKIP_TESTS), and not a switch
// between a system and a bundled copy.
func switchesTestsOn(s *cmakeScript, l leaf) bool {
	p, ok := s.optionPurpose(l)
	return ok && p == "tests" && l.want != negativeWords.MatchString(l.name)
}

// known evaluates a variable as CMake would see it first: a setting of the plan or the
// fix, else an option's default, else CTest's BUILD_TESTING (on by default).
func known(s *cmakeScript, settings map[string]bool) func(op, name string) tri {
	return func(op, name string) tri {
		if op != "var" {
			return triUnknown
		}
		if v, ok := settings[name]; ok {
			return triOf(v)
		}
		if o, ok := s.options[name]; ok {
			return o.Default
		}
		if name == "BUILD_TESTING" {
			return triTrue
		}
		return triUnknown
	}
}

// plannedDefines are the -DNAME=VALUE settings of the plan's cmake configure commands
// whose value is one of CMake's constants.
func plannedDefines(plan atesor.BuildPlan) map[string]bool {
	out := map[string]bool{}
	for _, ph := range plan.Phases {
		for _, line := range ph.Commands {
			if !cmakeConfig.MatchString(line) {
				continue
			}
			for _, m := range cmakeDefine.FindAllStringSubmatch(line, -1) {
				if v, ok := cmakeConst(m[2]); ok {
					out[m[1]] = v
				}
			}
		}
	}
	return out
}

func indexAt(s *cmakeScript, line int) int {
	for i, c := range s.cmds {
		if c.Line == line {
			return i
		}
	}
	return 0
}

// vendoredDir reports whether a repository directory holds a vendored project: a
// framework's directory or a third-party directory, whose tests are not the package's.
func vendoredDir(rel string) bool {
	for _, d := range strings.Split(rel, "/") {
		if _, ok := frameworkOf(d); ok {
			return true
		}
		switch strings.ToLower(d) {
		case "third_party", "third-party", "thirdparty", "3rdparty", "vendor", "external", "extern", "deps", "subprojects":
			return true
		}
	}
	return false
}

// distributionTestPackages are the packages of the source's Build-Depends that its
// tests may need and the plan does not have: the test frameworks and the libraries'
// development packages (-dev), not the documentation and packaging tools.
func distributionTestPackages(ctx context.Context, env Env, have []string) []string {
	if env.Distribution == nil {
		return nil
	}
	d, err := env.Distribution(ctx)
	if err != nil || d == nil {
		return nil
	}
	var out []string
	for _, p := range d.BuildDepends {
		if !debianPackage.MatchString(p) || slices.Contains(have, p) || slices.Contains(out, p) {
			continue
		}
		if strings.HasSuffix(p, "-dev") || slices.ContainsFunc(frameworks, func(fw framework) bool { return slices.Contains(fw.packages, p) }) {
			out = append(out, p)
		}
	}
	return out
}

// mesonTestSwitches returns the meson switches that build the tests: each boolean or
// feature option of meson_options.txt (meson.options) whose name, else description,
// says tests, set on where the plan or its default leaves it off, and where each is
// declared. It returns a reason when the build has no such option.
func mesonTestSwitches(ctx context.Context, env Env) ([]string, []string, string) {
	file := ""
	for _, f := range []string{"meson.options", "meson_options.txt"} {
		if slices.Contains(env.Files, f) {
			file = f
			break
		}
	}
	if file == "" {
		return nil, nil, "its meson build declares no options, so none turns its tests on"
	}
	data, err := env.ReadFile(ctx, file)
	if err != nil {
		return nil, nil, file + " could not be read: " + err.Error()
	}
	tokens, err := lexMeson(string(data))
	if err != nil {
		return nil, nil, file + ": " + err.Error()
	}
	planned := mesonPlanned(*env.Plan)
	var switches, where []string
	found := false
	for _, c := range mesonCalls(tokens, "option") {
		if len(c.Args) == 0 || !mesonOptionName.MatchString(c.Args[0]) {
			continue
		}
		name := c.Args[0]
		typ, def := tokenText(c.Kw["type"]), tokenText(c.Kw["value"])
		on := "true"
		switch typ {
		case "boolean":
		case "feature":
			on = "enabled"
		default:
			continue
		}
		p := purposeOf(name)
		if p == "" {
			p = purposeOf(tokenText(c.Kw["description"]))
		}
		if p != "tests" || negativeWords.MatchString(name) || systemWords.MatchString(name) || bundledWords.MatchString(name) {
			continue
		}
		found = true
		cur, set := planned[name]
		if !set {
			cur = def
			if cur == "" && typ == "boolean" {
				cur = "true" // meson's default of a boolean option without a value
			}
		}
		if cur == on {
			continue
		}
		switches = append(switches, "-D"+name+"="+on)
		where = append(where, fmt.Sprintf("%s:%d", file, c.Line))
	}
	switch {
	case len(switches) > 0:
		return switches, where, ""
	case found:
		return nil, nil, "the plan already configures the meson build's test options on"
	}
	return nil, nil, "no option of " + file + " turns the tests on"
}

var mesonOptionName = re(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// tokenText is the text of a keyword argument that is one string or identifier.
func tokenText(ts []mesonToken) string {
	if len(ts) == 1 && (ts[0].kind == 's' || ts[0].kind == 'i') {
		return ts[0].text
	}
	return ""
}

// mesonPlanned are the -Dname=value switches of the plan's meson setup commands.
func mesonPlanned(plan atesor.BuildPlan) map[string]string {
	out := map[string]string{}
	for _, ph := range plan.Phases {
		for _, line := range ph.Commands {
			if !mesonSetup.MatchString(line) {
				continue
			}
			for _, w := range strings.Fields(line) {
				if name, v, ok := strings.Cut(strings.TrimPrefix(w, "-D"), "="); ok && strings.HasPrefix(w, "-D") {
					out[name] = v
				}
			}
		}
	}
	return out
}

package testresult

import (
	"regexp"
	"strings"
)

var (
	// cmakeOption is an option() declaration: option(NAME "help" OFF).
	cmakeOption = regexp.MustCompile(`(?im)^\s*option\s*\(\s*([A-Za-z0-9_]+)\s+("[^"]*"|\S+)\s*([^)\s]*)\s*\)`)
	// cmakeTesting marks a project that registers tests through CTest's BUILD_TESTING.
	cmakeTesting = regexp.MustCompile(`(?i)\binclude\s*\(\s*CTest\s*\)|\bBUILD_TESTING\b`)
	// testOption is the name of an option that switches tests on.
	testOption = regexp.MustCompile(`(?i)TEST`)
	// notTestOption names options that mention tests but do not build them.
	notTestOption = regexp.MustCompile(`(?i)DISABLE|WITHOUT|NO_?TEST|SKIP|INSTALL|COVERAGE|FUZZ|BENCH|VALGRIND|SANITI|ASAN`)
)

// CMakeTestOptions returns the -D options that switch a CMake project's tests on, read
// from its CMakeLists.txt files (their contents, joined): BUILD_TESTING when the
// project includes CTest or tests it, and each option() whose name says it enables
// tests and whose default is not ON. The result is sorted and without duplicates; nil
// means the project gates no tests.
func CMakeTestOptions(cmakeLists string) []string {
	var out []string
	if cmakeTesting.MatchString(cmakeLists) {
		out = append(out, "BUILD_TESTING")
	}
	for _, m := range cmakeOption.FindAllStringSubmatch(cmakeLists, -1) {
		name, def := m[1], strings.ToUpper(strings.Trim(m[3], `"`))
		if !testOption.MatchString(name) || notTestOption.MatchString(name) {
			continue
		}
		switch def {
		case "ON", "YES", "TRUE", "1":
			continue // already on by default
		}
		out = append(out, name)
	}
	return sorted(uniq(out))
}

// makeTarget is a rule's target list at the start of a line: "check: all".
var makeTarget = regexp.MustCompile(`(?m)^([A-Za-z0-9_.\- ]+?)\s*::?(?:[^=]|$)`)

// MakeTestTargets returns the test targets a Makefile defines, in the order a person
// would try them: check, test, tests.
func MakeTestTargets(makefile string) []string {
	have := map[string]bool{}
	for _, m := range makeTarget.FindAllStringSubmatch(makefile, -1) {
		for _, t := range strings.Fields(m[1]) {
			have[t] = true
		}
	}
	var out []string
	for _, t := range []string{"check", "test", "tests"} {
		if have[t] {
			out = append(out, t)
		}
	}
	return out
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// RerunCommand returns the command that reruns only the named tests of a command that
// ran with framework, and false when the framework cannot select tests (then the whole
// command is rerun).
func RerunCommand(framework, cmd string, names []string) (string, bool) {
	if len(names) == 0 || strings.ContainsAny(cmd, ";|&`$<>\n") {
		return "", false
	}
	switch framework {
	case CTest:
		var alt []string
		for _, n := range names {
			alt = append(alt, regexp.QuoteMeta(n))
		}
		return cmd + " -R " + shellQuote("^("+strings.Join(alt, "|")+")$"), true
	case Meson:
		parts := []string{cmd}
		for _, n := range names {
			parts = append(parts, shellQuote(mesonTestName(n)))
		}
		return strings.Join(parts, " "), true
	case Automake:
		return cmd + " TESTS=" + shellQuote(strings.Join(names, " ")), true
	}
	return "", false
}

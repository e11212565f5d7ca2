package testresult

import (
	"regexp"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
)

var (
	// makeNothing is make's report of a target with nothing to do.
	makeNothing = regexp.MustCompile("(?m)^make(?:\\[\\d+\\])?: Nothing to be done for [`'‘](check|test|tests)['’]")
	// makeNoRule is top-level make's report of a test target the Makefile lacks.
	makeNoRule = regexp.MustCompile("(?m)^make: \\*\\*\\* No rule to make target [`'‘](check|test|tests)['’]\\.  Stop\\.")
	// makeNoise is what make itself prints around the recipes it runs.
	makeNoise = regexp.MustCompile(`^make(?:\[\d+\])?: `)
)

// parseMakeNothing recognises a make test target that ran nothing: the Makefile has
// no such target, or the target printed nothing but make's own lines. The framework
// parsers read the output before this one.
func parseMakeNothing(out string) (Result, bool) {
	if m := makeNoRule.FindStringSubmatch(out); m != nil {
		return Result{Counts: &atesor.TestCounts{Framework: "make"}, NoTests: true, Note: "make: no rule to make target " + m[1]}, true
	}
	m := makeNothing.FindStringSubmatch(out)
	if m == nil {
		return Result{}, false
	}
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" && !makeNoise.MatchString(l) {
			return Result{}, false // the target ran something
		}
	}
	return Result{Counts: &atesor.TestCounts{Framework: "make"}, NoTests: true, Note: "make: nothing to be done for " + m[1]}, true
}

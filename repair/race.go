package repair

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/eclipse-atesor/atesor-go/buildlog"
)

// parallelJobs finds a parallel job count on a build command line: make -j4,
// -j$(nproc), -j `nproc`, --jobs=4, cmake --build --parallel 4, ninja -j 8.
var parallelJobs = re("(\\s)(?:-j\\s*(?:\\$\\(nproc\\)|`nproc`|\\$\\{?\\w+\\}?|[2-9]|\\d{2,})|--jobs(?:=|\\s+)(?:\\$\\(nproc\\)|\\d+)|--parallel(?:\\s+(?:\\$\\(nproc\\)|\\d+))?|-j)(\\s|$|&|;)")

// raceSignatures are failures that happen when parallel jobs use a file another job is
// still writing: a truncated or half-written object, a program run before it is linked,
// a build-tree file not there yet.
var raceSignatures = []*regexp.Regexp{
	// buildlog's verdict after the build node's serial rerun for evidence succeeded.
	re(`(?m)^parallel build race: `),
	re(`file truncated`),
	re(`file format not recognized`),
	re(`Text file busy`),
	re(`(?:error reading|cannot open|can't open|could not read symbols:).*\.(?:o|a|so|lo|la)\b`),
	re(`(?m)\./[A-Za-z0-9_./-]+: (?:not found|No such file or directory)\s*$`),
	re(`(?m)(?:ar|ranlib|ld|cp|mv|install)(?:\S*): .*[A-Za-z0-9_-]+\.(?:o|a|so|lo|la)(?:\S*)?: No such file or directory`),
	re(`No rule to make target '[^']*\.(?:o|lo)', needed by`),
	re(`(?i)(?:test|check)\S*: (?:not found|No such file or directory)`),
}

var ninja = re(`(^|&&\s*|;\s*)(ninja|samu|meson compile)(\s|$)`)

func parallelRaceRule() Rule {
	return Rule{
		Name:       "parallel-make-race",
		Doc:        "a parallel-make race: the failing phase again, serially",
		Signatures: raceSignatures,
		Make:       makeSerial,
	}
}

// serialLine rewrites a command line's parallel job options as -j1 and reports whether
// it changed; a ninja or meson compile without an option gets -j1 (ninja is parallel by
// default).
func serialLine(line string) (string, bool) {
	if s, ok := buildlog.Serial(line); ok && s != line {
		return s, true
	}
	out := parallelJobs.ReplaceAllString(line, "${1}-j1${2}")
	if out != line {
		return out, true
	}
	if ninja.MatchString(line) && !strings.Contains(line, "-j1") {
		return ninja.ReplaceAllString(line, "${1}${2} -j1${3}"), true
	}
	return line, false
}

func makeSerial(_ context.Context, f Failure, env Env) (*Fix, string) {
	if env.Plan == nil {
		return nil, "no build plan"
	}
	if f.Command != "" {
		if _, ok := serialLine(f.Command); !ok {
			return nil, "the failing command " + f.Command + " does not run parallel jobs"
		}
	}
	plan := *env.Plan
	plan.Phases = slices.Clone(plan.Phases)
	for i, ph := range plan.Phases {
		if ph.Name != f.Phase && f.Phase != "" {
			continue
		}
		cmds := slices.Clone(ph.Commands)
		changed := false
		for j, c := range cmds {
			if n, ok := serialLine(c); ok {
				cmds[j], changed = n, true
			}
		}
		if !changed {
			continue
		}
		plan.Phases[i].Commands = cmds
		return &Fix{
			Analysis: "The failure looks like a parallel-build race (a file used while another job was still writing it); a serial run of the phase has none.",
			Strategy: fmt.Sprintf("run phase %s again serially: %s", ph.Name, strings.Join(cmds, "; ")),
			Plan:     &plan,
		}, ""
	}
	return nil, "no phase runs parallel jobs"
}

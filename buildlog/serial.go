package buildlog

import (
	"regexp"
	"strings"
)

var (
	// a job-count flag of make, ninja, cmake --build, meson compile or cargo, with its value.
	jobsFlag = regexp.MustCompile(`(^|[\s"'=])(-j|--jobs|--parallel)(?:([= ]?)(\$\([^)]*\)|\$\{?\w+\}?|"[^"]*"|'[^']*'|\d+))?`)
	// a tool that builds in parallel without being asked: ninja, samu, meson compile,
	// and cmake --build when the output shows ninja's progress lines.
	parallelTool = regexp.MustCompile(`(?:^|[;&|(]\s*|\s)(?:\S*/)?(?:ninja|samu|meson\s+compile|cmake\s+--build)\b`)
	ninjaOutput  = regexp.MustCompile(`(?m)^\[\d+/\d+\] `)
)

// Parallel reports whether command line built with more than one job, from its flags or
// from what its output shows (make's "Waiting for unfinished jobs", ninja's progress).
func Parallel(line, output string) bool {
	if strings.Contains(output, "Waiting for unfinished jobs") {
		return true
	}
	for _, m := range jobsFlag.FindAllStringSubmatch(line, -1) {
		if v := strings.Trim(m[4], `"'`); v != "1" {
			return true
		}
	}
	if jobsFlag.MatchString(line) {
		return false // every job count is 1
	}
	loc := parallelTool.FindStringIndex(line)
	if loc == nil {
		return false
	}
	if strings.Contains(line[loc[0]:loc[1]], "cmake") {
		return ninjaOutput.MatchString(output) // cmake --build is parallel only with ninja
	}
	return true
}

// Serial returns command line rewritten to build with one job: every job-count flag set
// to 1, and -j1 given to a tool that builds in parallel by default. ok is false when the
// line has nothing to rewrite.
func Serial(line string) (serial string, ok bool) {
	if jobsFlag.MatchString(line) {
		serial = jobsFlag.ReplaceAllStringFunc(line, func(m string) string {
			sm := jobsFlag.FindStringSubmatch(m)
			if sm[2] == "-j" {
				return sm[1] + "-j1"
			}
			sep := sm[3]
			if sep == "" {
				sep = " "
			}
			return sm[1] + sm[2] + sep + "1"
		})
		return serial, serial != line
	}
	loc := parallelTool.FindStringIndex(line)
	if loc == nil {
		return line, false
	}
	// Append -j1 to the end of that simple command: before the next && ; || or |, and
	// before a "--" that hands the rest to the native tool.
	rest := line[loc[1]:]
	end := len(rest)
	for _, sep := range []string{"&&", "||", ";", "|", " -- "} {
		if k := strings.Index(rest, sep); k >= 0 && k < end {
			end = k
		}
	}
	cmd := strings.TrimRight(rest[:end], " ")
	return line[:loc[1]] + cmd + " -j1" + rest[len(cmd):], true
}

// RacePrefix starts the diagnostic of a proven parallel race (see [Rerun]), so that
// scripted repairs can recognise it.
const RacePrefix = "parallel build race: "

// KindRace is the kind of the evidence of a parallel build that failed and whose serial
// rerun succeeded: a race between make targets (a missing dependency in the build files).
const KindRace Kind = "parallel_race"

// Rerun combines the evidence of a parallel build that failed with what its serial rerun
// (serialLine, see [Serial]) printed. A serial rerun that succeeded proves a race; one
// that failed gives its own, cleaner, error when that is at least as strong, with a note
// saying where it came from.
func Rerun(parallel Evidence, parallelLine, serialLine, serialOutput string, serialOK bool) Evidence {
	if serialOK {
		diag := RacePrefix + "`" + parallelLine + "` failed and its serial rerun `" + serialLine + "` succeeded"
		ev := Evidence{Diagnostic: cutString(diag, maxDiagnosticChars), Kind: KindRace, Strength: Strong, Target: parallel.Target,
			Context: "the parallel build's error was: " + parallel.Diagnostic}
		ev.Text = cutString(ev.Diagnostic+"\n"+ev.Context+"\n"+tailHeader+"\n"+parallel.Text, MaxChars)
		return ev
	}
	serial := Extract(serialOutput)
	if serial.Strength < parallel.Strength || serial.Kind == KindTail && serialOutput == "" {
		return parallel
	}
	note := "(from a serial rerun for evidence: `" + serialLine + "`; the parallel build `" + parallelLine + "` failed without a clean error)"
	if serial.Context == "" {
		serial.Context = note
	} else {
		serial.Context = note + "\n" + serial.Context
	}
	rest := strings.TrimPrefix(serial.Text, serial.Diagnostic)
	serial.Text = cutString(serial.Diagnostic+"\n"+note+rest, MaxChars)
	return serial
}

package repair

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// An upstream often asks find_package() for the release it was last built with, one
// minor release ahead of what a stable distribution ships: libbgcode's tests ask for
// Catch2 3.8 and trixie has 3.7.1, so CMake rejects the installed package's
// configuration file. A porter lowers the request to the installed release of the same
// major version and builds; when the code does need the newer release, the compile
// says so next. A different major version (another API) and an EXACT request are left
// alone, with the reason.

var (
	// cmakeVersionRejected is CMake's report of a package configuration file found
	// whose version does not satisfy the request, raw or joined into one line.
	cmakeVersionRejected = re(`Could not find a configuration file for package\s+"[^"]+"\s+that\s+(?:is\s+compatible\s+with|exactly\s+matches)\s+requested\s+version`)
	// versionHeader is the report's first sentence: the package, whether the request is
	// EXACT, whether it is a range, and the version asked for.
	versionHeader = re(`Could not find a configuration file for package\s+"([^"\n]{1,200})"\s+that\s+(is\s+compatible\s+with|exactly\s+matches)\s+requested\s+version\s+(range\s+)?"([^"\n]{1,100})"\.?`)
	// versionConsidered introduces the list of the files CMake read and refused.
	versionConsidered = re(`^\s*The following configuration files were considered but not\s+accepted:`)
	// versionEntry is one refused file: its absolute path and version, and the note CMake's
	// version files add to a version that is unsuitable for another reason ("(32bit)").
	versionEntry = re(`^\s*(/[^\n,]{0,1000}?),\s+version:\s+([^\s,()]{1,100})(\s+\([^)\n]{0,100}\))?`)
	// versionAtBefore is the "CMake Error at" line that opens the report, at the end of
	// the text before it; versionAtAfter the same line after the list, where the run's
	// one-line error record puts it.
	versionAtBefore = re(`CMake (Error|Warning) at ([^\n:]{1,1000}):(\d{1,9}) \(find_package\):\s*$`)
	versionAtAfter  = re(`^\s*CMake (Error|Warning) at ([^\n:]{1,1000}):(\d{1,9}) \(find_package\):`)
)

// Bounds of the report parser, whose input is untrusted build output.
const (
	maxVersionReports    = 16
	maxVersionConsidered = 64
)

func dependencyVersionRule() Rule {
	return Rule{
		Name: "dependency-version-lowered",
		Doc: "a find_package(<pkg> <version>) whose installed package has the same major version but an older release " +
			"(Catch2 3.8 asked for, 3.7.1 installed): the request lowered to the installed release by a recorded patch of the call; " +
			"EXACT requests, version ranges and other major versions are left alone",
		Signatures: []*regexp.Regexp{cmakeVersionRejected},
		Make:       makeDependencyVersion,
	}
}

// consideredConfig is one configuration file CMake read and did not accept.
type consideredConfig struct {
	file, version string
	// note is what the package's version file added to its version ("(32bit)"): the
	// file is unsuitable for another reason than its version.
	note string
}

// versionRejection is one report of a find_package() that found only configuration
// files of versions it does not accept.
type versionRejection struct {
	pkg, requested string
	exact, isRange bool
	considered     []consideredConfig
	// file and line are the call as CMake names it; file is "" when the output does not.
	file string
	line int
	// optional is a report CMake gives as a warning: a find_package() without REQUIRED,
	// which did not stop the build.
	optional bool
}

// versionRejections reads CMake's reports of rejected package versions in text.
func versionRejections(text string) []versionRejection {
	var out []versionRejection
	for _, m := range versionHeader.FindAllStringSubmatchIndex(text, maxVersionReports) {
		r := versionRejection{
			pkg:       text[m[2]:m[3]],
			exact:     strings.HasPrefix(text[m[4]:m[5]], "exactly"),
			isRange:   m[6] >= 0,
			requested: strings.TrimSpace(text[m[8]:m[9]]),
		}
		if at := versionAtBefore.FindStringSubmatch(text[max(0, m[0]-1100):m[0]]); at != nil {
			r.optional, r.file, r.line = at[1] == "Warning", strings.TrimSpace(at[2]), atoiBounded(at[3])
		}
		rest := text[m[1]:]
		if loc := versionConsidered.FindStringIndex(rest); loc != nil {
			rest = rest[loc[1]:]
			for len(r.considered) < maxVersionConsidered {
				e := versionEntry.FindStringSubmatchIndex(rest)
				if e == nil {
					break
				}
				c := consideredConfig{file: strings.TrimSpace(rest[e[2]:e[3]]), version: rest[e[4]:e[5]]}
				if e[6] >= 0 {
					c.note = strings.TrimSpace(rest[e[6]:e[7]])
				}
				r.considered = append(r.considered, c)
				rest = rest[e[1]:]
			}
		}
		if r.file == "" {
			if at := versionAtAfter.FindStringSubmatch(rest); at != nil {
				r.optional, r.file, r.line = at[1] == "Warning", strings.TrimSpace(at[2]), atoiBounded(at[3])
			}
		}
		if r.line < 1 {
			r.file, r.line, r.optional = "", 0, false
		}
		out = append(out, r)
	}
	return out
}

func atoiBounded(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// parseVersion reads a dotted numeric version ("3.7.1"); false for anything else
// ("unknown", "3.8-rc1").
func parseVersion(s string) ([]int, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 8 {
		return nil, false
	}
	out := make([]int, len(parts))
	for i, p := range parts {
		if p == "" || len(p) > 9 || strings.Trim(p, "0123456789") != "" {
			return nil, false
		}
		out[i], _ = strconv.Atoi(p)
	}
	return out, true
}

// compareVersions compares dotted versions as CMake does: missing components are 0.
func compareVersions(a, b []int) int {
	for i := range max(len(a), len(b)) {
		x, y := 0, 0
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return cmpInt(x, y)
		}
	}
	return 0
}

func cmpInt(x, y int) int {
	if x < y {
		return -1
	}
	return 1
}

// lowerTo chooses the considered version the request is lowered to: the highest
// release older than the one requested with the same major version. It returns the
// chosen file or why there is none.
func (r versionRejection) lowerTo() (consideredConfig, string) {
	want, ok := parseVersion(r.requested)
	if !ok {
		return consideredConfig{}, fmt.Sprintf("the requested version %q is not a dotted release number", r.requested)
	}
	var best consideredConfig
	var bestV []int
	var other, unsuitable []string
	for _, c := range r.considered {
		v, ok := parseVersion(c.version)
		switch {
		case !ok:
			continue
		case c.note != "":
			unsuitable = append(unsuitable, c.version+" "+c.note)
		case v[0] != want[0]:
			other = append(other, c.version)
		case compareVersions(v, want) < 0 && (bestV == nil || compareVersions(v, bestV) > 0):
			best, bestV = c, v
		}
	}
	switch {
	case bestV != nil:
		return best, ""
	case len(other) > 0:
		return consideredConfig{}, fmt.Sprintf("the installed %s is %s, another major version than the %s asked for: its API may differ, so the request is not lowered",
			r.pkg, strings.Join(dedupe(other), ", "), r.requested)
	case len(unsuitable) > 0:
		return consideredConfig{}, fmt.Sprintf("the installed %s (%s) is unsuitable for another reason than its version", r.pkg, strings.Join(dedupe(unsuitable), ", "))
	case len(r.considered) == 0:
		return consideredConfig{}, "CMake names no configuration file it considered"
	}
	return consideredConfig{}, fmt.Sprintf("no installed %s is an older release of major version %d than %s", r.pkg, want[0], r.requested)
}

func dedupe(s []string) []string {
	var out []string
	for _, v := range s {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func makeDependencyVersion(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.ReadFile == nil {
		return nil, "the build files cannot be read"
	}
	text := f.text()
	if f.Output != "" {
		text += "\n" + f.Message
	}
	reports := versionRejections(text)
	if len(reports) == 0 {
		return nil, "the output does not say which package and version CMake rejected"
	}
	rd := subdirReader{ctx: ctx, env: env, scripts: map[string]*cmakeScript{}}
	var actions []atesor.Action
	var why, strategy, notes []string
	seen := map[string]bool{}
	for _, rep := range reports {
		key := fmt.Sprintf("%s:%d:%s", rep.file, rep.line, rep.pkg)
		if seen[key] {
			continue
		}
		seen[key] = true
		if rep.optional {
			// An optional package CMake went on without is not what stopped the build.
			notes = append(notes, fmt.Sprintf("%s:%d's find_package(%s %s) is optional (a CMake warning), not what stopped the build", rep.file, rep.line, rep.pkg, rep.requested))
			continue
		}
		a, analysis, to, note := rd.lowerVersion(rep)
		if note != "" {
			notes = append(notes, note)
			continue
		}
		if slices.ContainsFunc(actions, func(b atesor.Action) bool { return b.File == a.File }) {
			continue // one patch per file a fix; CMake stops at the first failing call anyway
		}
		actions = append(actions, a)
		why = append(why, analysis)
		strategy = append(strategy, fmt.Sprintf("lower %s's find_package(%s %s) to %s", a.File, rep.pkg, rep.requested, to))
	}
	if len(actions) == 0 {
		return nil, strings.Join(notes, "; ")
	}
	analysis := strings.Join(why, " ")
	if len(notes) > 0 {
		analysis += " Not handled: " + strings.Join(notes, "; ") + "."
	}
	return &Fix{Analysis: analysis, Strategy: strings.Join(strategy, " and "), Actions: actions}, ""
}

// lowerVersion makes the patch that lowers the reported call's version, with the
// analysis and the version it lowers to; or the reason it makes none.
func (r *subdirReader) lowerVersion(rep versionRejection) (patch atesor.Action, analysis, version, why string) {
	no := func(format string, a ...any) (atesor.Action, string, string, string) {
		return atesor.Action{}, "", "", fmt.Sprintf(format, a...)
	}
	asked := rep.pkg + " " + rep.requested
	if rep.file == "" {
		return no("CMake does not say which find_package() call asked for %s", asked)
	}
	file, ok := r.locate(rep.file, "find_package", rep.line)
	if !ok {
		return no("%s:%d, which asks for %s, is not a find_package() call in the package's tree", rep.file, rep.line, asked)
	}
	s := r.script(file)
	c := s.cmds[s.at("find_package", rep.line)]
	at := fmt.Sprintf("%s:%d", file, rep.line)
	if len(c.Args) < 2 || !strings.EqualFold(c.Args[0].Text, rep.pkg) {
		return no("%s is not a find_package(%s <version>) call", at, rep.pkg)
	}
	exact := rep.exact || slices.ContainsFunc(c.Args, func(a cmakeArg) bool { return !a.Quoted && a.Text == "EXACT" })
	switch {
	case exact:
		return no("%s asks for %s EXACT, that release and no other, so the request is not lowered", at, asked)
	case rep.isRange || strings.Contains(c.Args[1].Text, "..."):
		return no("%s asks for the version range %s of %s, which is not lowered", at, rep.requested, rep.pkg)
	case strings.Contains(c.Args[1].Text, "${"):
		return no("%s takes %s's version from %s, not written in the call", at, rep.pkg, c.Args[1].Text)
	case c.Args[1].Text != rep.requested:
		return no("%s asks for %s %q, not the %s CMake reports", at, rep.pkg, c.Args[1].Text, rep.requested)
	}
	to, reason := rep.lowerTo()
	if reason != "" {
		return no("%s: %s", at, reason)
	}
	b, err := r.env.ReadFile(r.ctx, file)
	if err != nil || len(b) > maxCMakeBytes {
		return no("%s cannot be read", file)
	}
	src := string(b)
	lines := strings.SplitAfter(src, "\n")
	if rep.line > len(lines) {
		return no("%s has no line %d", file, rep.line)
	}
	call := regexp.MustCompile(`(?i)(\bfind_package\s*\(\s*"?` + regexp.QuoteMeta(c.Args[0].Text) + `"?\s+"?)` +
		regexp.QuoteMeta(rep.requested) + `("?(?:[\s)#]|$))`)
	body := lines[rep.line-1]
	loc := call.FindStringSubmatchIndex(body)
	if loc == nil {
		return no("%s's version %s is not on the call's first line", at, rep.requested)
	}
	next := slices.Clone(lines)
	next[rep.line-1] = body[:loc[3]] + to.version + body[loc[4]:]
	diff, ok := changedLinesDiff(file, src, strings.Join(next, ""))
	if !ok {
		return no("%s cannot be patched", at)
	}
	analysis = fmt.Sprintf("%s asks find_package() for %s, but the installed %s is %s (%s), an older release of the same major version, "+
		"which CMake does not accept for %s; the request is lowered to %s, as a porter does: if the code needs %s's additions, the compile names them next.",
		at, asked, rep.pkg, to.version, to.file, rep.requested, to.version, rep.requested)
	return atesor.Action{Type: atesor.ActionPatch, File: file, Diff: diff}, analysis, to.version, ""
}

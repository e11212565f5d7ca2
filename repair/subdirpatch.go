package repair

import (
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// A repacked tarball often drops a directory that only holds documentation, examples
// or tests (a +dfsg repack strips non-free docs), while the top-level CMakeLists.txt
// still adds it with nothing that gates it: arpon's add_subdirectory(doc). No option
// leaves it out, so a porter comments the one call out. That is what leaveOutDecision
// does, as a recorded patch the recipe replays: it changes which parts are built, never
// what the package's libraries and programs are built from.

// aloneCall is an add_subdirectory() call alone on its line with one plain argument
// (a trailing comment allowed): the only shape commented out, so the patch is one line
// and cannot swallow another command.
var aloneCall = regexp.MustCompile(`(?i)^\s*add_subdirectory\s*\(\s*"?([^\s"()$]+)"?\s*\)\s*(?:#.*)?$`)

// leaveOutDecision makes d, a missing directory whose name says it is tests,
// benchmarks, examples, docs or fuzzers and that nothing gates off, a patch that
// comments out its add_subdirectory() line; false when the call is not alone on its
// line, the directory is not entirely absent from the tarball, or the file cannot be read.
func (r *subdirReader) leaveOutDecision(d decision) (decision, bool) {
	if d.purpose == "" || d.fw != "" || d.sub.cmd != "add_subdirectory" || d.sub.rel == "" || r.inTree(d.sub.rel) {
		return d, false
	}
	if strings.HasPrefix(strings.ToLower(path.Base(d.sub.rel)), "lib") {
		// libtest/ may be a library the rest of the build links: not left out.
		return d, false
	}
	b, err := r.env.ReadFile(r.ctx, d.sub.file)
	if err != nil || len(b) > maxCMakeBytes {
		return d, false
	}
	src := string(b)
	lines := strings.SplitAfter(src, "\n")
	if d.sub.line < 1 || d.sub.line > len(lines) {
		return d, false
	}
	body := strings.TrimRight(lines[d.sub.line-1], "\r\n")
	m := aloneCall.FindStringSubmatch(body)
	if m == nil || path.Clean(path.Join(path.Dir(d.sub.file), m[1])) != d.sub.rel {
		return d, false
	}
	next := slices.Clone(lines)
	next[d.sub.line-1] = strings.Replace(lines[d.sub.line-1], body, "# "+body+" # left out: "+d.sub.rel+"/ is not in this source", 1)
	diff, ok := changedLinesDiff(d.sub.file, src, strings.Join(next, ""))
	if !ok {
		return d, false
	}
	d.patch = &atesor.Action{Type: atesor.ActionPatch, File: d.sub.file, Diff: diff}
	return d, true
}

// inTree reports whether the tarball has any file at or below dir.
func (r *subdirReader) inTree(dir string) bool {
	return slices.ContainsFunc(r.env.Files, func(f string) bool { return f == dir || strings.HasPrefix(f, dir+"/") })
}

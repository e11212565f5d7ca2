package repair

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// The distribution-patches rule. Debian's source package is its upstream tarball with
// the patches of debian/patches/series applied (dpkg-source -x does it before every
// build Debian makes, riscv64's among them): the fixes its maintainers carry for GCC 14,
// a newer library's API, a glibc that dropped sys_errlist, a repacked tree. A port of
// the upstream tarball alone meets every one of those failures again; when no specific
// rule answers one, applying the series the distribution builds with is what a porter
// does first. The patches are applied with patch(1) in the sandbox like any fix's, so
// the recipe records and replays them.

const distPatchesRuleName = "distribution-patches"

// DistributionPatch is one patch of the distribution's series.
type DistributionPatch struct {
	// Name is its name in the series (relative to debian/patches).
	Name string
	// Level is the path components patch(1) strips from its file names (-pN).
	Level int
	// Diff is the patch file's text.
	Diff string
}

func distributionPatchesRule() Rule {
	return Rule{
		Name: distPatchesRuleName,
		Doc: "a distribution source that fails where no other rule helps (rungetty's sys_errlist under today's glibc): " +
			"apply the patch series the distribution builds it with (debian/patches/series), in order, as dpkg-source does",
		Categories: distributionCategories,
		// Any failure: the rule is tried last, for what the specific rules leave.
		Signatures: anyFailure,
		Packaged:   true,
		Make:       makeDistributionPatches,
	}
}

// autotoolsInput names the files autoreconf regenerates configure and Makefile.in from.
var autotoolsInput = re(`(^|/)(configure\.(ac|in)|Makefile\.am|acinclude\.m4|[^/]*\.m4)$`)

func makeDistributionPatches(ctx context.Context, f Failure, env Env) (*Fix, string) {
	return distributionPatchesFix(ctx, f, env, nil)
}

// distributionPatchesFix applies the distribution's series. With named files (the
// distribution-patched-file rule) it does so only when a patch of the series changes
// one of them, and says which.
func distributionPatchesFix(ctx context.Context, f Failure, env Env, named []string) (*Fix, string) {
	if env.Distribution == nil {
		return nil, "the source has no counterpart in the distribution"
	}
	if f.Phase == "setup" {
		return nil, "the setup phase failed, before the package's own files are used"
	}
	for _, a := range env.Fixes {
		if a.Source == atesor.FixSourceScripted && (a.Rule == distPatchesRuleName || a.Rule == distPatchedFileRuleName) {
			return nil, "the distribution's patches were already applied in this run"
		}
	}
	d, err := env.Distribution(ctx)
	if err != nil {
		return nil, "the distribution's packaging could not be read: " + err.Error()
	}
	if d == nil {
		return nil, "the source has no counterpart in the distribution"
	}
	if d.PatchesUnread != "" {
		return nil, "the distribution's patch series could not be read: " + d.PatchesUnread
	}
	if len(d.Patches) == 0 {
		return nil, fmt.Sprintf("Debian's %s %s carries no patch series", d.Package, d.Version)
	}
	var actions []atesor.Action
	var names, skipped []string
	var touched string  // "FILE, which Debian's PATCH changes", for named files
	first := len(named) // the named file touched, by its place in the error: the first wins
	autotools := false
	for _, p := range d.Patches {
		diff, files, why := normalizedPatch(p.Diff, p.Level)
		if why != "" {
			skipped = append(skipped, p.Name+" ("+why+")")
			continue
		}
		for _, file := range files {
			autotools = autotools || autotoolsInput.MatchString(file)
			if i, ok := namesFile(named, file); ok && i < first {
				first = i
				touched = fmt.Sprintf("%s, which Debian's patch %s changes (as %s)", named[i], p.Name, file)
			}
		}
		actions = append(actions, atesor.Action{Type: atesor.ActionPatch, File: files[0], Diff: diff})
		names = append(names, p.Name)
	}
	if len(actions) == 0 {
		return nil, fmt.Sprintf("no patch of Debian's %s %s series can be applied here: %s", d.Package, d.Version, strings.Join(skipped, "; "))
	}
	lead := "No specific rule answers this failure, and"
	if named != nil {
		if touched == "" {
			return nil, fmt.Sprintf("no patch of Debian's %s %s series changes %s", d.Package, d.Version, strings.Join(named, ", "))
		}
		lead = "The error is in " + touched + ":"
	}
	fix := &Fix{
		Analysis: fmt.Sprintf("%s Debian builds %s %s with the %s of its debian/patches/series applied to this upstream tarball "+
			"(dpkg-source applies them before each of Debian's builds, riscv64's among them): the fixes its maintainers carry for a newer compiler, library or tree. "+
			"They are applied in the series' order.", lead, d.Package, d.Version, patchCount(len(d.Patches))),
		Strategy: "apply Debian's patches " + strings.Join(names, " "),
		Actions:  actions,
	}
	if len(skipped) > 0 {
		fix.Analysis += " Left out: " + strings.Join(skipped, "; ") + "."
	}
	if autotools && env.Plan != nil {
		if plan, regen, ok := withAutoreconf(*env.Plan, f.Phase, env); ok && regen {
			fix.Plan = &plan
			fix.Strategy += ", and run autoreconf -fi before ./configure (they change the autotools inputs, as dh_autoreconf would regenerate)"
		}
	}
	return fix, ""
}

// patchCount says n patches in words, "one patch" for one.
func patchCount(n int) string {
	if n == 1 {
		return "one patch"
	}
	return fmt.Sprintf("%d patches", n)
}

// hunkHeader is a unified diff's hunk header; the counts default to 1.
var hunkHeader = regexp.MustCompile(`^@@ -[0-9]+(?:,([0-9]+))? \+[0-9]+(?:,([0-9]+))? @@`)

// normalizedPatch rewrites a patch file of the series for patch -p1: the file names of
// its ---/+++ headers stripped of level leading components and given a/ and b/
// prefixes, timestamps dropped, and git headers of another level dropped. Hunk bodies
// are walked by their counts, so a removed line that starts with "-- " is never taken
// for a header. It returns the new text and the files it changes, or why it is left
// out.
func normalizedPatch(text string, level int) (string, []string, string) {
	if strings.Contains(text, "\nGIT binary patch") {
		return "", nil, "a git binary patch, which patch(1) cannot apply"
	}
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	var files []string
	oldLeft, newLeft := 0, 0
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		body := strings.TrimRight(l, "\r\n")
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case strings.HasPrefix(body, "\\"):
			case strings.HasPrefix(body, "-"):
				oldLeft--
			case strings.HasPrefix(body, "+"):
				newLeft--
			default: // context, an empty line being an empty context line
				oldLeft--
				newLeft--
			}
			b.WriteString(l)
			continue
		}
		if m := hunkHeader.FindStringSubmatch(body); m != nil {
			oldLeft, newLeft = hunkCount(m[1]), hunkCount(m[2])
			b.WriteString(l)
			continue
		}
		if strings.HasPrefix(body, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ") {
			from, okFrom := strippedName(strings.TrimPrefix(body, "--- "), level)
			to, okTo := strippedName(strings.TrimPrefix(strings.TrimRight(lines[i+1], "\r\n"), "+++ "), level)
			if !okFrom || !okTo {
				return "", nil, "a file name with fewer than " + strconv.Itoa(level+1) + " path components"
			}
			target := to
			if to == "/dev/null" {
				target = from
			}
			if target == "/dev/null" || !localName(target) {
				return "", nil, "a file outside the tree: " + target
			}
			if strings.HasPrefix(target, "debian/") || target == ".pc" || strings.HasPrefix(target, ".pc/") {
				return "", nil, "it changes the packaging, not the upstream tree"
			}
			files = append(files, target)
			fmt.Fprintf(&b, "--- %s\n+++ %s\n", prefixed("a/", from), prefixed("b/", to))
			i++
			continue
		}
		if level != 1 && (strings.HasPrefix(body, "diff --git ") || strings.HasPrefix(body, "Index: ")) {
			continue
		}
		b.WriteString(l)
	}
	if len(files) == 0 {
		return "", nil, "no file diff in it"
	}
	return b.String(), files, ""
}

func hunkCount(s string) int {
	if s == "" {
		return 1
	}
	n, _ := strconv.Atoi(s)
	return n
}

// strippedName is a header's file name without its timestamp and level leading
// components; /dev/null stays as it is.
func strippedName(field string, level int) (string, bool) {
	name := field
	if i := strings.IndexByte(name, '\t'); i >= 0 {
		name = name[:i]
	}
	name = strings.TrimSpace(name)
	if name == "/dev/null" {
		return name, true
	}
	for range level {
		i := strings.IndexByte(name, '/')
		if i < 0 {
			return "", false
		}
		name = strings.TrimLeft(name[i+1:], "/")
	}
	return path.Clean(name), name != ""
}

// localName reports whether p names a file inside the tree: relative, no ".." climbing
// out, and nothing a shell line or a C string would cut short.
func localName(p string) bool {
	return filepath.IsLocal(p) && !strings.ContainsAny(p, "\x00\n")
}

func prefixed(prefix, name string) string {
	if name == "/dev/null" {
		return name
	}
	return prefix + name
}

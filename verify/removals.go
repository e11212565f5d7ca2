package verify

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/escape"
	"github.com/eclipse-atesor/atesor-go/internal/fixfiles"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
	"github.com/eclipse-atesor/atesor-go/internal/textlist"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// Removal tracking: the original tree's code and build files are remembered at init
// (non-blank line counts, and the source files each build file names); after every fix
// the tree is measured again and what the fixes took away from the original is recorded
// per fix (deleted, emptied, mostly cut, dropped from a build file's source list). A port
// with removals must prove itself (see [JudgeRemovals] and [Port]).

const (
	// maxTrackedFiles bounds the files the tracker remembers.
	maxTrackedFiles = 20000
	// maxTrackedSize bounds the size of a file the tracker reads.
	maxTrackedSize = 4 << 20
	// cutMinLines is the smallest original file whose cutting counts: a file that lost
	// more than half of at least this many non-blank lines lost most of its code.
	cutMinLines = 10
)

// trackedBound is the gate's bound on a file the tracker reads.
var trackedBound = sandbox.Bound{Kind: "tracked source file", Max: maxTrackedSize}

var (
	// buildListFile names the build files whose source lists the tracker compares.
	buildListFile = regexp.MustCompile(`(^|/)(Makefile|GNUmakefile|makefile|Makefile\.am|Makefile\.in|CMakeLists\.txt|meson\.build|Kbuild|SConstruct|SConscript)$|\.(cmake|mk|pro|pri)$`)
	// sourceToken is a source file name as build files write it.
	sourceToken = regexp.MustCompile(`[A-Za-z0-9_./+-]*[A-Za-z0-9_]\.(c|cc|cpp|cxx|c\+\+|C|S|s|asm|m|mm|f|f90)\b`)
	// skipTreeDir are directories the tracker does not descend into.
	skipTreeDir = map[string]bool{".git": true, ".hg": true, ".svn": true, "node_modules": true, "autom4te.cache": true}
)

// isTrackedFile reports whether the tracker remembers p: code files and build files.
func isTrackedFile(p string) bool {
	return fixfiles.IsCode(p) || buildListFile.MatchString(p)
}

// snapshotFS measures the code and build files of a tree: non-blank lines, and for a
// build file the source file names it mentions. Paths are slash-separated and relative.
func snapshotFS(ctx context.Context, fsys fs.FS) ([]atesor.SourceFile, error) {
	var out []atesor.SourceFile
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			return nil // unreadable entries are not part of the comparison
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (skipTreeDir[d.Name()] || isNoisePath("/"+p+"/")) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !isTrackedFile(p) || len(out) >= maxTrackedFiles {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > maxTrackedSize {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil
		}
		out = append(out, measure(p, data))
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, err
}

// measure counts a file's non-blank lines and, for a build file, its source names.
func measure(p string, data []byte) atesor.SourceFile {
	f := atesor.SourceFile{Path: p, Lines: nonBlankLines(data)}
	if buildListFile.MatchString(p) {
		seen := map[string]bool{}
		for _, tok := range sourceToken.FindAll(data, -1) {
			t := strings.TrimPrefix(string(tok), "./")
			if !seen[t] {
				seen[t] = true
				f.Sources = append(f.Sources, t)
			}
		}
		sort.Strings(f.Sources)
	}
	return f
}

func nonBlankLines(data []byte) int {
	n := 0
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			n++
		}
	}
	return n
}

// OriginalSources measures the original tree, the source as it is on the host before
// any fix (hostTree), read through the gate's bounds: the code and build files later
// trees are compared with (see [TrackRemovals]).
func OriginalSources(ctx context.Context, hostTree string) ([]atesor.SourceFile, error) {
	return snapshotFS(ctx, sandbox.TreeFS(ctx, hostTree, trackedBound))
}

// snapshotCurrent measures the package's tree as it is now in the sandbox: directly on
// the host when the sandbox's files are visible there, else with a command.
func snapshotCurrent(ctx context.Context, sb atesor.Sandbox, repoDir string, orig []atesor.SourceFile) ([]atesor.SourceFile, error) {
	if fsys, ok := sandbox.SandboxFS(ctx, sb, repoDir, trackedBound); ok {
		return snapshotFS(ctx, fsys)
	}
	// Only the original files matter: count their non-blank lines in the sandbox.
	var names []string
	for _, f := range orig {
		names = append(names, shellwords.Quote(f.Path))
	}
	if len(names) == 0 {
		return nil, nil
	}
	var out []atesor.SourceFile
	for start := 0; start < len(names); start += 500 {
		chunk := names[start:min(start+500, len(names))]
		line := "for f in " + strings.Join(chunk, " ") + `; do [ -f "$f" ] && printf '%s\t%s\n' "$(grep -c '[^[:space:]]' "$f")" "$f"; done; true`
		res, err := sb.Exec(ctx, atesor.Command{Line: line, Dir: repoDir, Timeout: 5 * time.Minute})
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(strings.NewReader(res.Stdout))
		for sc.Scan() {
			n, p, ok := strings.Cut(sc.Text(), "\t")
			lines, err := strconv.Atoi(n)
			if !ok || err != nil {
				continue
			}
			f := atesor.SourceFile{Path: p, Lines: lines}
			if buildListFile.MatchString(p) {
				if data, err := sandbox.ReadBounded(ctx, sb, path.Join(repoDir, p), trackedBound); err == nil {
					f = measure(p, data)
				}
			}
			out = append(out, f)
		}
	}
	return out, nil
}

// removalsAgainst compares the tree now with the original: deleted files, source files
// left empty or with less than half of their code, and source files the original build
// files named that they no longer name.
func removalsAgainst(orig, now []atesor.SourceFile) []atesor.Removal {
	cur := make(map[string]atesor.SourceFile, len(now))
	for _, f := range now {
		cur[f.Path] = f
	}
	byBase := map[string][]string{}
	for _, f := range orig {
		if fixfiles.IsCode(f.Path) {
			byBase[path.Base(f.Path)] = append(byBase[path.Base(f.Path)], f.Path)
		}
	}
	var out []atesor.Removal
	dropped := map[string]bool{}
	for _, o := range orig {
		n, exists := cur[o.Path]
		switch {
		case !exists:
			if o.Lines > 0 {
				out = append(out, atesor.Removal{Kind: atesor.RemovalDeleted, File: o.Path, Lines: o.Lines})
			}
			continue
		case fixfiles.IsCode(o.Path) && o.Lines > 0 && n.Lines == 0:
			out = append(out, atesor.Removal{Kind: atesor.RemovalEmptied, File: o.Path, Lines: o.Lines})
		case fixfiles.IsCode(o.Path) && o.Lines >= cutMinLines && n.Lines*2 < o.Lines:
			out = append(out, atesor.Removal{Kind: atesor.RemovalCut, File: o.Path, Lines: o.Lines, LinesLeft: n.Lines})
		}
		if len(o.Sources) == 0 {
			continue
		}
		for _, tok := range o.Sources {
			if slices.Contains(n.Sources, tok) {
				continue
			}
			file := resolveSource(o.Path, tok, byBase, cur)
			if file == "" || dropped[file] {
				continue // not a file of the original tree (a generated or optional name)
			}
			dropped[file] = true
			out = append(out, atesor.Removal{Kind: atesor.RemovalDropped, File: file, BuildFile: o.Path})
		}
	}
	return out
}

// resolveSource finds the original source file a build file's token names: relative to
// the build file, relative to the top, or by a unique base name; "" when none.
func resolveSource(buildFile, tok string, byBase map[string][]string, cur map[string]atesor.SourceFile) string {
	paths := byBase[path.Base(tok)]
	for _, cand := range []string{path.Join(path.Dir(buildFile), tok), path.Clean(tok)} {
		if slices.Contains(paths, cand) {
			return cand
		}
	}
	if len(paths) == 1 {
		return paths[0]
	}
	return ""
}

func removalKey(r atesor.Removal) string { return string(r.Kind) + "\x00" + r.File }

// TrackRemovals measures the package's tree in the sandbox (repoDir) after the last fix
// and returns what the fixes took from the original tree (orig), the current set: a
// file put back is no longer a removal. A removal not in prev (or changed since) is new
// and charged to the last fix: its Fix is last.Attempt, it is added to last.Removed and
// reported through emit. On an error prev is returned with the error.
func TrackRemovals(ctx context.Context, sb atesor.Sandbox, repoDir string, orig []atesor.SourceFile, prev []atesor.Removal, last *atesor.FixAttempt, emit func(atesor.Event)) ([]atesor.Removal, error) {
	now, err := snapshotCurrent(ctx, sb, repoDir, orig)
	if err != nil {
		return prev, err
	}
	before := map[string]atesor.Removal{}
	for _, rm := range prev {
		before[removalKey(rm)] = rm
	}
	var current []atesor.Removal
	for _, rm := range removalsAgainst(orig, now) {
		if old, ok := before[removalKey(rm)]; ok && old.LinesLeft == rm.LinesLeft {
			rm.Fix = old.Fix
		} else {
			rm.Fix = last.Attempt
			last.Removed = append(last.Removed, rm.String())
			emit(atesor.Event{Kind: atesor.EventInfo, Line: fmt.Sprintf("fix %d %s", last.Attempt, rm)})
		}
		current = append(current, rm)
	}
	return current, nil
}

// RemovalList names the removals for a reason or a prompt, at most n of them.
func RemovalList(rms []atesor.Removal, n int) string {
	var l []string
	for _, rm := range rms {
		l = append(l, rm.String())
	}
	return strings.Join(textlist.Limit(l, n), "; ")
}

// testsProveRemoval reports whether the package tests ran and passed, counted: the
// evidence a removal needs besides complete exports.
func testsProveRemoval(t *atesor.TestResult) (bool, string) {
	switch {
	case t == nil:
		return false, "the package tests did not run"
	case t.NoTests:
		return false, "no package tests ran"
	case t.Counts == nil:
		return false, "the package tests were not counted (" + t.Summary() + ")"
	case t.Counts.Ran == 0:
		return false, "no package tests ran"
	case t.FailingCount() > 0 || !t.Passed || t.TimedOut:
		return false, "the package tests did not pass (" + t.Summary() + ")"
	}
	return true, ""
}

// JudgeRemovals is the rule for a verified port whose fixes removed code (removals): it
// stays verified only when its exports are complete and its package tests ran and
// passed. JudgeRemovals returns "" when that is proven, else the reason it is not
// verified, naming what was removed and what is missing.
func JudgeRemovals(removals []atesor.Removal, exports *atesor.ExportCheck, tests *atesor.TestResult) string {
	var why []string
	if exports != nil && len(exports.Libraries) > 0 && (!exports.Checked() || len(exports.Hollowed()) > 0) {
		if m := exports.Hollowed(); len(m) > 0 {
			why = append(why, "missing functions: "+strings.Join(textlist.Limit(m, 20), ", "))
		} else {
			why = append(why, "export completeness could not be established ("+exports.Summary()+")")
		}
	}
	if ok, reason := testsProveRemoval(tests); !ok {
		why = append(why, reason)
	}
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf("fixes removed code from the package (%s) and %s: a removal is verified only by complete exports and passing package tests",
		RemovalList(removals, 5), strings.Join(why, "; "))
}

// Evidence is the recipe's paragraph on removals and exports: what each fix took from
// the original tree (as recorded in attempts), and what the export check compared and
// found missing; "" when there is neither. removals is the current set: when it is
// empty after fixes removed code, every removed file was restored.
func Evidence(exports *atesor.ExportCheck, attempts []atesor.FixAttempt, removals []atesor.Removal) string {
	var b strings.Builder
	if ec := exports; ec != nil {
		fmt.Fprintf(&b, "Exports (%s): %s.\n", escape.Markdown(strings.Join(textlist.Limit(ec.Libraries, 5), ", ")), escape.Markdown(ec.Summary()))
		for _, n := range ec.Notes {
			fmt.Fprintf(&b, "- note: %s\n", escape.Markdown(n))
		}
		for _, m := range ec.Explained {
			fmt.Fprintf(&b, "- missing %s (%s): %s\n", symbolForText(m.Name), m.Finding, m.Reason)
		}
	}
	var fixes []string
	for _, f := range attempts {
		for _, rm := range f.Removed {
			fixes = append(fixes, fmt.Sprintf("- fix %d %s\n", f.Attempt, escape.Markdown(rm)))
		}
	}
	if len(fixes) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("Removals (measured against the original tree):\n\n" + strings.Join(fixes, ""))
		if len(removals) == 0 {
			b.WriteString("\nEvery removed file was restored by a later fix.\n")
		}
	}
	return b.String()
}

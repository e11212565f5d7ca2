package graph

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/escape"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/verify"
)

// Removal tracking: the original tree's code and build files are remembered at init
// (non-blank line counts, and the source files each build file names); after every fix
// the tree is measured again and what the fixes took away from the original is recorded
// per fix (deleted, emptied, mostly cut, dropped from a build file's source list). A port
// with removals must prove itself (see judgeRemovals and verifyNode).

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
	return isCodeFile(p) || buildListFile.MatchString(p)
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
			if p != "." && (skipTreeDir[d.Name()] || verify.IsNoisePath("/"+p+"/")) {
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

// snapshotOriginal remembers the original tree (the source on the host) at init.
func (r *run) snapshotOriginal(ctx context.Context, s *atesor.State) {
	if r.hostTree == "" {
		return
	}
	files, err := snapshotFS(ctx, sandbox.TreeFS(ctx, r.hostTree, trackedBound))
	if err != nil {
		r.log.Warn("removal tracking: could not measure the original tree", "err", err)
		return
	}
	s.OriginalSources = files
}

// snapshotCurrent measures the package's tree as it is now in the sandbox: directly on
// the host when the sandbox's files are visible there, else with a command.
func (r *run) snapshotCurrent(ctx context.Context, s *atesor.State) ([]atesor.SourceFile, error) {
	if fsys, ok := sandbox.SandboxFS(ctx, r.sb, s.RepoDir, trackedBound); ok {
		return snapshotFS(ctx, fsys)
	}
	// Only the original files matter: count their non-blank lines in the sandbox.
	var names []string
	for _, f := range s.OriginalSources {
		names = append(names, shellQuote(f.Path))
	}
	if len(names) == 0 {
		return nil, nil
	}
	var out []atesor.SourceFile
	for start := 0; start < len(names); start += 500 {
		chunk := names[start:min(start+500, len(names))]
		line := "for f in " + strings.Join(chunk, " ") + `; do [ -f "$f" ] && printf '%s\t%s\n' "$(grep -c '[^[:space:]]' "$f")" "$f"; done; true`
		res, err := r.sb.Exec(ctx, atesor.Command{Line: line, Dir: s.RepoDir, Timeout: 5 * time.Minute})
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
				if data, err := sandbox.ReadBounded(ctx, r.sb, path.Join(s.RepoDir, p), trackedBound); err == nil {
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
		if isCodeFile(f.Path) {
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
		case isCodeFile(o.Path) && o.Lines > 0 && n.Lines == 0:
			out = append(out, atesor.Removal{Kind: atesor.RemovalEmptied, File: o.Path, Lines: o.Lines})
		case isCodeFile(o.Path) && o.Lines >= cutMinLines && n.Lines*2 < o.Lines:
			out = append(out, atesor.Removal{Kind: atesor.RemovalCut, File: o.Path, Lines: o.Lines, LinesLeft: n.Lines})
		}
		if len(o.Sources) == 0 {
			continue
		}
		for _, tok := range o.Sources {
			if contains(n.Sources, tok) {
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
		if contains(paths, cand) {
			return cand
		}
	}
	if len(paths) == 1 {
		return paths[0]
	}
	return ""
}

func removalKey(r atesor.Removal) string { return string(r.Kind) + "\x00" + r.File }

// trackRemovals measures the tree after the last fix and records what the fixes took
// from the original tree: new removals are charged to the last fix (FixAttempt.Removed);
// State.Removals is the current set (a file put back is no longer a removal).
func (r *run) trackRemovals(ctx context.Context, s *atesor.State) {
	if len(s.OriginalSources) == 0 || len(s.FixAttempts) == 0 {
		return
	}
	now, err := r.snapshotCurrent(ctx, s)
	if err != nil {
		r.log.Warn("removal tracking: could not measure the tree after the fix", "err", err)
		return
	}
	before := map[string]atesor.Removal{}
	for _, rm := range s.Removals {
		before[removalKey(rm)] = rm
	}
	last := &s.FixAttempts[len(s.FixAttempts)-1]
	var current []atesor.Removal
	for _, rm := range removalsAgainst(s.OriginalSources, now) {
		if old, ok := before[removalKey(rm)]; ok && old.LinesLeft == rm.LinesLeft {
			rm.Fix = old.Fix
		} else {
			rm.Fix = last.Attempt
			last.Removed = append(last.Removed, rm.String())
			r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeFix, Line: fmt.Sprintf("fix %d %s", last.Attempt, rm)})
		}
		current = append(current, rm)
	}
	s.Removals = current
}

// removalList names the removals for a reason or a prompt, at most n of them.
func removalList(rms []atesor.Removal, n int) string {
	var l []string
	for _, rm := range rms {
		l = append(l, rm.String())
	}
	return strings.Join(limit(l, n), "; ")
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

// judgeRemovals is finish's rule for a verified port whose fixes removed code: it stays
// verified only when its exports are complete and its package tests ran and passed;
// otherwise it is not verified (class verify), with a reason naming what was removed.
func (r *run) judgeRemovals(s *atesor.State) {
	if !s.Verified || len(s.Removals) == 0 {
		return
	}
	var why []string
	if s.Exports != nil && len(s.Exports.Libraries) > 0 && (!s.Exports.Checked() || len(s.Exports.Hollowed()) > 0) {
		if m := s.Exports.Hollowed(); len(m) > 0 {
			why = append(why, "missing functions: "+strings.Join(limit(m, 20), ", "))
		} else {
			why = append(why, "export completeness could not be established ("+s.Exports.Summary()+")")
		}
	}
	if ok, reason := testsProveRemoval(s.Tests); !ok {
		why = append(why, reason)
	}
	if len(why) == 0 {
		r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeFinish, Line: "removals proven: exports complete and package tests passed (" + removalList(s.Removals, 5) + ")"})
		return
	}
	reason := fmt.Sprintf("fixes removed code from the package (%s) and %s: a removal is verified only by complete exports and passing package tests",
		removalList(s.Removals, 5), strings.Join(why, "; "))
	s.Verified = false
	s.Status = atesor.StatusNotVerified
	s.FailureClass = atesor.FailureVerify
	s.EscalationReason = reason
	s.VerifyProblems = append(s.VerifyProblems, reason)
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeFinish, Line: "not verified", Err: reason})
}

// hollowEvidence is the recipe's paragraph on removals and exports: what each fix took
// from the original tree, and what the export check compared and found missing.
func hollowEvidence(s *atesor.State) string {
	var b strings.Builder
	if ec := s.Exports; ec != nil {
		fmt.Fprintf(&b, "Exports (%s): %s.\n", escape.Markdown(strings.Join(limit(ec.Libraries, 5), ", ")), escape.Markdown(ec.Summary()))
		for _, n := range ec.Notes {
			fmt.Fprintf(&b, "- note: %s\n", escape.Markdown(n))
		}
		for _, m := range ec.Explained {
			fmt.Fprintf(&b, "- missing %s (%s): %s\n", symbolForText(m.Name), m.Finding, m.Reason)
		}
	}
	var fixes []string
	for _, f := range s.FixAttempts {
		for _, rm := range f.Removed {
			fixes = append(fixes, fmt.Sprintf("- fix %d %s\n", f.Attempt, escape.Markdown(rm)))
		}
	}
	if len(fixes) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("Removals (measured against the original tree):\n\n" + strings.Join(fixes, ""))
		if len(s.Removals) == 0 {
			b.WriteString("\nEvery removed file was restored by a later fix.\n")
		}
	}
	return b.String()
}

package verify

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/internal/pkgtree"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
	"github.com/eclipse-atesor/atesor-go/internal/textlist"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// Export completeness: the global functions the primary libraries define, compared with
// what the package promises — the functions its public headers declare (listed by GCC's
// -aux-info in the sandbox, so no C parser of ours decides) and, for a source from
// Debian's archive, the symbols the distribution's own build of the same version exports
// (see exports_dist.go).

const (
	maxPublicHeaders = 40
	maxIncludeDirs   = 30
	maxDistPackages  = 6
	headerMark       = "@@ATESOR-HEADER "
)

var (
	// headerSkipDir are directories whose headers are not the package's public interface.
	headerSkipDir = regexp.MustCompile(`(?i)(^|/)(tests?|testing|examples?|samples?|demos?|bench|benchmarks?|contrib|fuzz\w*|third[_-]?party|vendor|deps|external|internal|private|priv|win32|windows|msvc|vms|amiga|os2|doc|docs)/`)
	// privateHeader names headers that are internal by convention.
	privateHeader = regexp.MustCompile(`(?i)(^|[_-])(internal|private|priv|impl|config|conf|util|utils|test|tests)\.h$|^config\.h$`)
	nameNoise     = strings.NewReplacer("-", "", "_", "", ".", "", "+", "")
)

// checkExports compares the primary libraries' defined symbols with the package's
// promises. It returns nil when the port has no primary library.
func checkExports(ctx context.Context, sb atesor.Sandbox, in Input, arts []atesor.Artifact) *atesor.ExportCheck {
	var libs []atesor.Artifact
	for _, a := range arts {
		if a.Role == atesor.ArtifactPrimary && (a.Kind == atesor.KindSharedLibrary || a.Kind == atesor.KindStaticLibrary) {
			libs = append(libs, a)
		}
	}
	if len(libs) == 0 {
		return nil
	}
	ec := &atesor.ExportCheck{}
	var defined []librarySymbols
	sonames := map[string]bool{}
	count := map[string]bool{}
	for _, a := range libs {
		data, err := sandbox.ReadBounded(ctx, sb, a.Path, sandbox.BoundLibrary)
		if err != nil {
			ec.Notes = append(ec.Notes, fmt.Sprintf("%s: could not be read: %v", pkgtree.Rel(in.RepoDir, a.Path), err))
			continue
		}
		syms, err := definedSymbols(bytes.NewReader(data))
		if err != nil {
			ec.Notes = append(ec.Notes, fmt.Sprintf("%s: symbols unreadable: %v", pkgtree.Rel(in.RepoDir, a.Path), err))
			continue
		}
		ec.Libraries = append(ec.Libraries, pkgtree.Rel(in.RepoDir, a.Path))
		defined = append(defined, syms)
		if syms.Soname != "" {
			sonames[syms.Soname] = true
		}
		for _, n := range syms.Functions {
			count[n] = true
		}
		for _, n := range syms.Data {
			count[n] = true
		}
	}
	ec.Defined = len(count)
	if len(ec.Libraries) == 0 {
		return ec
	}
	definedAnywhere := func(name string) bool {
		for _, l := range defined {
			if l.Defines(name) {
				return true
			}
		}
		return false
	}
	checkDeclarations(ctx, sb, in, libs, ec, definedAnywhere)
	excuseUndistributed(ec, checkDistribution(ctx, sb, in, sonames, ec, definedAnywhere))
	return ec
}

// publicHeaders chooses the package's public C headers: those under an include/
// directory, and those named like a library or the package (zlib.h for libz of zlib,
// cJSON.h for libcjson); headers of tests, examples, vendored code and platform ports,
// and internal-by-name headers are left out. tree lists the repository's files.
func publicHeaders(tree []string, libs []atesor.Artifact, pkg string) (public, dirs []string) {
	stems := map[string]bool{normName(pkg): true}
	for _, a := range libs {
		base := path.Base(a.Path)
		stem := strings.TrimPrefix(strings.SplitN(base, ".", 2)[0], "lib")
		stems[normName(stem)] = true
		stems[normName(stem)+"lib"] = true // libz -> zlib
		stems["lib"+normName(stem)] = true
	}
	seenDir := map[string]bool{".": true}
	dirs = []string{"."}
	for _, p := range tree {
		if !strings.HasSuffix(p, ".h") || headerSkipDir.MatchString("/"+p) {
			continue
		}
		if d := path.Dir(p); !seenDir[d] && len(dirs) < maxIncludeDirs {
			seenDir[d] = true
			dirs = append(dirs, d)
		}
		base := path.Base(p)
		inInclude := strings.HasPrefix(p, "include/") || strings.Contains(p, "/include/")
		named := stems[normName(strings.TrimSuffix(base, ".h"))]
		if (inInclude || named) && !privateHeader.MatchString(base) && len(public) < maxPublicHeaders {
			public = append(public, p)
		}
	}
	return public, dirs
}

// installedHeaders are the C headers the install step staged (relative to the staging
// directory), their directories for the include path, and the staging directory; none
// when the install did not run or installed no header.
func installedHeaders(inst *atesor.Install) (headers, dirs []string, stage string) {
	if inst == nil || !inst.OK {
		return nil, nil, ""
	}
	seen := map[string]bool{}
	for _, f := range inst.DevFiles {
		if !strings.HasSuffix(f, ".h") || len(headers) >= maxPublicHeaders {
			continue
		}
		headers = append(headers, f)
		// The include root (…/include) and the header's own directory.
		for _, d := range []string{includeRoot(f), path.Dir(f)} {
			if d != "" && !seen[d] && len(dirs) < maxIncludeDirs {
				seen[d] = true
				dirs = append(dirs, d)
			}
		}
	}
	return headers, dirs, inst.StageDir
}

func includeRoot(f string) string {
	if i := strings.LastIndex(f, "/include/"); i >= 0 {
		return f[:i+len("/include")]
	}
	if strings.HasPrefix(f, "include/") {
		return "include"
	}
	return ""
}

func normName(s string) string { return strings.ToLower(nameNoise.Replace(s)) }

// repoFiles lists the repository's files (relative paths), on the host when the
// sandbox's files are visible there, else with find.
func repoFiles(ctx context.Context, sb atesor.Sandbox, repoDir string) []string {
	var out []string
	if fsys, ok := sandbox.SandboxFS(ctx, sb, repoDir, sandbox.BoundHeader); ok {
		_ = fs.WalkDir(fsys, ".", func(rp string, d fs.DirEntry, err error) error {
			if err != nil || ctx.Err() != nil {
				return nil
			}
			if d.IsDir() {
				if rp != "." && (skipTreeDir[d.Name()] || isNoisePath("/"+rp+"/")) {
					return fs.SkipDir
				}
				return nil
			}
			out = append(out, rp)
			return nil
		})
		sort.Strings(out)
		return out
	}
	res, err := sb.Exec(ctx, atesor.Command{Line: "find . -name .git -prune -o -type f -name '*.h' -print", Dir: repoDir, Timeout: 2 * time.Minute})
	if err != nil {
		return nil
	}
	for _, l := range strings.Split(res.Stdout, "\n") {
		if l = strings.TrimPrefix(strings.TrimSpace(l), "./"); l != "" {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// checkDeclarations lists the functions the public headers declare with GCC's
// -aux-info in the sandbox (each header compiled alone as C, the package's header
// directories on the include path) and finds those no library defines.
func checkDeclarations(ctx context.Context, sb atesor.Sandbox, in Input, libs []atesor.Artifact, ec *atesor.ExportCheck, defined func(string) bool) {
	headers, dirs, dir := installedHeaders(in.Install)
	ec.HeadersFrom = "installed"
	if len(headers) == 0 {
		headers, dirs = publicHeaders(repoFiles(ctx, sb, in.RepoDir), libs, in.RepoName)
		ec.HeadersFrom, dir = "source", in.RepoDir
	}
	if len(headers) == 0 {
		ec.Notes = append(ec.Notes, "no public C header found (none installed, none next to the library's sources)")
		return
	}
	var inc []string
	for _, d := range dirs {
		inc = append(inc, "-I"+shellwords.Quote(d))
	}
	var quoted []string
	for _, h := range headers {
		quoted = append(quoted, shellwords.Quote(h))
	}
	line := "for h in " + strings.Join(quoted, " ") + "; do printf '\\n" + headerMark + "%s\\n' \"$h\"; " +
		"gcc -fsyntax-only -w -x c " + strings.Join(inc, " ") + " -aux-info /dev/stdout \"$h\" 2>&1; done"
	res, err := sb.Exec(ctx, atesor.Command{Line: line, Dir: dir, Timeout: 5 * time.Minute})
	if err != nil {
		ec.Notes = append(ec.Notes, "listing the headers' declarations failed: "+err.Error())
		return
	}
	declared := map[string]bool{}
	for _, part := range strings.Split(res.Stdout+res.Stderr, headerMark)[1:] {
		h, body, _ := strings.Cut(part, "\n")
		decls := knowledge.ParseAuxInfo(body)
		if len(decls) == 0 {
			if e := firstMatch(body, "error:"); strings.Contains(body, "error:") {
				ec.Notes = append(ec.Notes, fmt.Sprintf("%s does not compile alone as C: %s", h, excerpt.Head(e, 200)))
				continue
			}
		}
		ec.Headers = append(ec.Headers, h)
		for _, d := range decls {
			f := strings.TrimPrefix(d.File, "./")
			if path.IsAbs(f) && !strings.HasPrefix(f, dir+"/") {
				continue // a system header's declaration
			}
			declared[d.Name] = true
		}
	}
	var missing []string
	for n := range declared {
		if !defined(n) {
			missing = append(missing, n)
		}
	}
	sort.Strings(missing)
	ec.Declared = len(declared)
	ec.MissingDeclared = missing
}

// exportProblems runs the export check on the built artifacts (in [Port], after the other
// checks passed), explains every missing
// function (see [atesor.ExportFinding]) and states the check's problems: missing
// functions whose code fixes took away, always; for a port whose fixes removed code,
// also a check that could not compare anything (a removal needs the evidence). The
// check is nil when the port has no primary library. Its summary, and the missing
// functions that do not fail verification, are reported through emit.
func exportProblems(ctx context.Context, sb atesor.Sandbox, in Input, built []atesor.Artifact, emit func(atesor.Event)) (*atesor.ExportCheck, []string) {
	ec := checkExports(ctx, sb, in, built)
	if ec == nil {
		return nil, nil
	}
	emit(atesor.Event{Kind: atesor.EventInfo, Line: "exports: " + ec.Summary()})
	explainExports(ctx, sb, in, ec)
	removed := ""
	if len(in.Removals) > 0 {
		removed = "; fixes removed code (" + RemovalList(in.Removals, 5) + "): restore it and port it instead"
	}
	if m := ec.Hollowed(); len(m) > 0 {
		return ec, []string{fmt.Sprintf("exports incomplete: the primary libraries (%s) do not define %d functions the package promises, whose code fixes took away: %s%s",
			strings.Join(textlist.Limit(ec.Libraries, 3), ", "), len(m), strings.Join(textlist.Limit(m, 20), ", "), removed)}
	}
	if len(in.Removals) > 0 && !ec.Checked() {
		return ec, []string{"exports not proven complete after fixes removed code (" + RemovalList(in.Removals, 5) + "): " + ec.Summary()}
	}
	if sum := explainedSummary(ec); sum != "" {
		emit(atesor.Event{Kind: atesor.EventInfo, Line: "exports: missing but not removed by a fix, explained in the report: " + sum})
	}
	return ec, nil
}

// HollowReason says why a built port that did not verify is not proven when its
// exports lack functions whose code fixes took away ("missing functions: a, b; fixes
// removed code: ..."), or "" when they lack none.
func HollowReason(exports *atesor.ExportCheck, removals []atesor.Removal) string {
	m := exports.Hollowed()
	if len(m) == 0 {
		return ""
	}
	why := "missing functions: " + strings.Join(textlist.Limit(m, 20), ", ")
	if len(removals) > 0 {
		why += "; fixes removed code: " + RemovalList(removals, 5)
	}
	return why
}

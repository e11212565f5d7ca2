package verify

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/textlist"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// Explaining missing exports. The export check exists to catch a port that removed
// what it could not port; it must not also refuse every correct build whose upstream
// defaults differ from a distribution's configuration, or whose headers declare
// functions implemented only in another architecture's assembly. So each missing
// function is looked up in the tree: only one whose definition was in a file a fix
// changed (or that is defined nowhere after fixes removed code) fails verification;
// every other one is listed with what the tree says about it.

const (
	maxExplainFiles = 5000      // source files searched
	maxExplainBytes = 256 << 20 // bytes read in all
)

var (
	// explainExt are the files searched for definitions and declarations.
	explainExt = map[string]bool{".c": true, ".cc": true, ".cpp": true, ".cxx": true, ".c++": true, ".h": true, ".hh": true,
		".hpp": true, ".hxx": true, ".inc": true, ".s": true, ".S": true, ".asm": true, ".sx": true}
	asmExt = map[string]bool{".s": true, ".S": true, ".asm": true, ".sx": true}
	// archPath names sources selected for another architecture, by directory or name.
	archPath = regexp.MustCompile(`(?i)(^|[/_.-])(x86|x86_64|x64|amd64|i[3-6]86|ia32|intel|masm\w*|nasm|sse\d*|ssse3|avx\d*|mmx|arm|arm64|aarch64|neon|armv\d\w*|ppc\w*|powerpc|altivec|vsx|mips\w*|sparc\w*|s390\w*|alpha|loongarch\w*|win32|win64)([/_.-]|$)`)
	// guardMacro takes the macro of a preprocessor condition that selects a feature.
	guardMacro = regexp.MustCompile(`\b((?:HAVE|ENABLE|USE|WITH|BUILD|SUPPORT|HAS|[A-Z][A-Z0-9]*_(?:ENABLE|USE|WITH|HAVE|HAS|SUPPORT|BUILD))_?[A-Z0-9_]*)\b`)
	ifLine     = regexp.MustCompile(`^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$`)
)

// sourceIndex is what the search read of the tree: the files' text by repository path.
type sourceIndex struct {
	files map[string]string
	paths []string
}

// readSources reads the tree's C, C++ and assembly files through the sandbox's gate,
// within the search's bounds.
func readSources(ctx context.Context, sb atesor.Sandbox, repoDir string, tree []string) sourceIndex {
	idx := sourceIndex{files: map[string]string{}}
	total := 0
	for _, p := range tree {
		if len(idx.paths) >= maxExplainFiles || total >= maxExplainBytes || ctx.Err() != nil {
			break
		}
		if !explainExt[path.Ext(p)] {
			continue
		}
		data, err := sandbox.ReadBounded(ctx, sb, path.Join(repoDir, p), sandbox.BoundSource)
		if err != nil {
			continue
		}
		total += len(data)
		idx.files[p] = string(data)
		idx.paths = append(idx.paths, p)
	}
	return idx
}

// occurrence is where a name appears: defined (a function body follows, or an
// assembly label or global directive), or declared (a prototype in a header), with the
// feature macros of the preprocessor conditions around it.
type occurrence struct {
	file    string
	defined bool
	guards  []string
}

// symbolName is what a symbol name the search looks up may be: the names come from the
// libraries' and the distribution's symbol tables, which a build controls.
var symbolName = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$.@]{0,511}$`)

// find lists the occurrences of the function name in the index (none for a name that
// is no symbol name).
func (idx sourceIndex) find(name string) []occurrence {
	if !symbolName.MatchString(name) {
		return nil
	}
	var out []occurrence
	word := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`)
	for _, p := range idx.paths {
		text := idx.files[p]
		if !strings.Contains(text, name) {
			continue
		}
		if asmExt[path.Ext(p)] {
			if asmDefines(text, name) {
				out = append(out, occurrence{file: p, defined: true})
			}
			continue
		}
		for _, loc := range word.FindAllStringIndex(text, -1) {
			rest := strings.TrimLeft(text[loc[1]:], " \t")
			if !strings.HasPrefix(rest, "(") {
				continue
			}
			o := occurrence{file: p, defined: bodyFollows(rest), guards: guardsAt(text, loc[0])}
			if o.defined || isHeader(p) {
				out = append(out, o)
				break
			}
		}
	}
	return out
}

func isHeader(p string) bool {
	switch path.Ext(p) {
	case ".h", ".hh", ".hpp", ".hxx":
		return true
	}
	return false
}

// bodyFollows reports whether the parenthesised list at the start of rest is followed
// by a function body (or K&R parameter declarations and then one).
func bodyFollows(rest string) bool {
	depth := 0
	for i, c := range rest {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				after := strings.TrimLeft(rest[i+1:], " \t\r\n")
				if strings.HasPrefix(after, "{") {
					return true
				}
				// K&R: "f(a, b) int a; char *b; {"
				if j := strings.IndexByte(after, '{'); j > 0 && j < 1024 && !strings.ContainsAny(after[:j], "()=}") {
					return strings.HasSuffix(strings.TrimSpace(after[:j]), ";")
				}
				return false
			}
		case ';', '{', '}':
			return false
		}
		if i > 4096 {
			return false
		}
	}
	return false
}

// asmDefines reports whether assembly text defines name: a label, a global directive
// (GNU as, NASM, MASM) or a PROC, with or without the leading underscore of some ABIs.
func asmDefines(text, name string) bool {
	q := `_?` + regexp.QuoteMeta(name)
	re := regexp.MustCompile(`(?mi)^\s*(?:` + q + `\s*:|\.globa?l\s+` + q + `\b|global\s+` + q + `\b|public\s+` + q + `\b|` + q + `\s+proc\b)`)
	return re.MatchString(text)
}

// guardsAt returns the feature macros of the preprocessor conditions in effect at
// offset off of text (innermost last). Include guards and conditions without a
// feature-like macro are left out.
func guardsAt(text string, off int) []string {
	var stack [][]string
	for _, line := range strings.Split(text[:off], "\n") {
		m := ifLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		switch m[1] {
		case "if", "ifdef", "ifndef":
			stack = append(stack, guardMacro.FindAllString(m[2], -1))
		case "elif":
			if len(stack) > 0 {
				stack[len(stack)-1] = guardMacro.FindAllString(m[2], -1)
			}
		case "endif":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	var out []string
	for _, g := range stack {
		out = append(out, g...)
	}
	return out
}

// buildOptionFor finds the configure, CMake or meson option that sets a feature macro
// (HAVE_FOO, ENABLE_FOO, FOO_SUPPORT ...), from the option's name in the build files:
// "--enable-foo" (configure.ac), "option(FOO" (CMakeLists.txt), "option('foo'" (meson).
func buildOptionFor(macro string, files map[string]string) string {
	stem := strings.ToLower(macro)
	for _, p := range []string{"have_", "enable_", "use_", "with_", "build_", "support_", "has_"} {
		stem = strings.TrimPrefix(stem, p)
	}
	for _, sfx := range []string{"_enable", "_use", "_with", "_have", "_has", "_support", "_build"} {
		if i := strings.Index(stem, sfx); i > 0 {
			stem = stem[i+len(sfx):]
		}
	}
	stem = strings.Trim(stem, "_")
	if stem == "" {
		return ""
	}
	dash := strings.ReplaceAll(stem, "_", "-")
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		text := files[p]
		switch path.Base(p) {
		case "configure.ac", "configure.in":
			for _, kind := range []string{"enable", "with"} {
				if regexp.MustCompile(`AC_ARG_` + strings.ToUpper(kind) + `\(\s*\[?` + regexp.QuoteMeta(dash) + `\]?`).MatchString(text) {
					return "--" + kind + "-" + dash + " (configure)"
				}
			}
		case "CMakeLists.txt":
			if m := regexp.MustCompile(`(?i)option\(\s*(\w*` + regexp.QuoteMeta(stem) + `\w*)`).FindStringSubmatch(text); m != nil {
				return "-D" + m[1] + "=ON (CMake)"
			}
		case "meson_options.txt", "meson.options":
			if regexp.MustCompile(`option\(\s*'` + regexp.QuoteMeta(dash) + `'`).MatchString(text) {
				return "-D" + dash + "=enabled (meson)"
			}
		}
	}
	return ""
}

// explainInput is what the explanation of missing exports needs of a run.
type explainInput struct {
	missing  []string
	declared map[string]bool // missing names the public headers declare
	sources  sourceIndex
	build    map[string]string // configure.ac, CMakeLists.txt, meson options by path
	changed  map[string]string // repository path -> what a fix did to it
	removals bool              // fixes removed code
	dist     string            // the distribution compared, or ""
	switches []string          // the configure switches of the distribution's packaging
}

// explainMissing classifies each missing function (see the constants of
// atesor.ExportFinding).
func explainMissing(in explainInput) []atesor.MissingExport {
	var out []atesor.MissingExport
	for _, name := range in.missing {
		occ := in.sources.find(name)
		var defs, decls []occurrence
		for _, o := range occ {
			if o.defined {
				defs = append(defs, o)
			} else {
				decls = append(decls, o)
			}
		}
		me := atesor.MissingExport{Name: name}
		for _, o := range occ {
			me.Where = append(me.Where, o.file)
		}
		me.Finding, me.Reason = classify(name, defs, decls, in)
		if me.Finding == atesor.FindingDistributionOnly {
			me.Switches = enablingFor(name, me.Where, in.switches)
			if len(me.Switches) > 0 {
				// As code spans: a switch holds no backquote or white space (see
				// debsrc.ConfigureSwitches), so text from the packaging stays literal in
				// the recipe's Markdown.
				me.Reason = strings.TrimSuffix(me.Reason, distDiffers) + "Debian configures with `" + strings.Join(me.Switches, "` `") + "`"
			}
		}
		out = append(out, me)
	}
	return out
}

func classify(name string, defs, decls []occurrence, in explainInput) (atesor.ExportFinding, string) {
	for _, d := range defs {
		if what, ok := in.changed[d.file]; ok {
			return atesor.FindingHollowed, fmt.Sprintf("defined in %s, which a fix changed (%s): restore it and port it instead", d.file, what)
		}
	}
	if len(defs) == 0 && in.removals {
		return atesor.FindingHollowed, "defined nowhere in the tree after fixes removed code: the removed code may have held it"
	}
	if len(defs) > 0 {
		var arch, portable []string
		for _, d := range defs {
			if asmExt[path.Ext(d.file)] || archPath.MatchString("/"+d.file) {
				arch = append(arch, d.file)
			} else {
				portable = append(portable, d.file)
			}
		}
		if len(portable) == 0 {
			return atesor.FindingOtherArch, "defined only in another architecture's code: " + strings.Join(textlist.Limit(arch, 3), ", ")
		}
		for _, d := range defs {
			if f, why := guarded(d, in); f != "" {
				return f, why
			}
		}
	}
	for _, d := range decls {
		if f, why := guarded(d, in); f != "" {
			return f, why
		}
	}
	if in.dist != "" && !in.declared[name] {
		where := "nothing in the tree says why"
		if len(defs) > 0 {
			where = "it is defined in " + strings.Join(textlist.Limit(fileList(defs), 3), ", ") + ", which this build does not compile or export"
		}
		return atesor.FindingDistributionOnly, fmt.Sprintf("exported by %s and not by this build (%s): %s", in.dist, where, distDiffers)
	}
	if len(defs) > 0 {
		return atesor.FindingUnexplained, "defined in " + strings.Join(textlist.Limit(fileList(defs), 3), ", ") + ", which this build does not compile or export"
	}
	return atesor.FindingUnexplained, "declared but defined nowhere in the tree"
}

// guarded explains an occurrence inside a feature condition: the option that sets the
// macro when the build files name one, else the macro itself.
func guarded(o occurrence, in explainInput) (atesor.ExportFinding, string) {
	for i := len(o.guards) - 1; i >= 0; i-- {
		macro := o.guards[i]
		if opt := buildOptionFor(macro, in.build); opt != "" {
			return atesor.FindingOptionOff, fmt.Sprintf("%s behind %s in %s, which the option %s turns on; it is off in this build", kindOf(o), macro, o.file, opt)
		}
	}
	if len(o.guards) > 0 {
		return atesor.FindingOptionOff, fmt.Sprintf("%s behind %s in %s, which this build does not define", kindOf(o), o.guards[len(o.guards)-1], o.file)
	}
	return "", ""
}

// distDiffers ends the reason of a [atesor.FindingDistributionOnly] function when the
// distribution's packaging names no switch that enables it.
const distDiffers = "the distribution configures the package differently"

// maxNamedSwitches bounds the switches one explanation names.
const maxNamedSwitches = 5

// enablingFor picks the distribution's switches that plausibly enable the function
// name: of the switches that turn something on (not upstream's defaults), those whose
// feature word (posix in --enable-posix-api) appears in the name or in the files that
// define or declare it; when none does, all of them, as the differences to look at.
func enablingFor(name string, where, switches []string) []string {
	enabling := debsrc.EnablingSwitches(switches)
	if len(enabling) == 0 {
		return nil
	}
	hay := strings.ToLower(name + " " + strings.Join(where, " "))
	var matched []string
	for _, s := range enabling {
		for _, w := range switchWords(s) {
			if strings.Contains(hay, w) {
				matched = append(matched, s)
				break
			}
		}
	}
	if len(matched) == 0 {
		matched = enabling
	}
	return matched[:min(len(matched), maxNamedSwitches)]
}

// switchWords are the feature words of a switch: --enable-posix-api gives posix and
// api, -DWITH_TURBOJPEG=ON gives turbojpeg; words shorter than three letters and the
// switch's own verbs are left out.
func switchWords(s string) []string {
	name, _, _ := strings.Cut(s, "=")
	if !strings.HasPrefix(name, "--") {
		name = strings.TrimPrefix(name, "-D")
	}
	name = strings.ToLower(strings.TrimLeft(name, "-"))
	var out []string
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		switch w {
		case "enable", "with", "use", "build", "have", "support", "lib", "api":
			continue
		}
		if len(w) >= 3 {
			out = append(out, w)
		}
	}
	return out
}

func kindOf(o occurrence) string {
	if o.defined {
		return "defined"
	}
	return "declared"
}

func fileList(occ []occurrence) []string {
	var out []string
	for _, o := range occ {
		out = append(out, o.file)
	}
	return out
}

// explainExports explains every missing function of the export check (see
// explainMissing) and records the explanations in ec.
func explainExports(ctx context.Context, sb atesor.Sandbox, port Input, ec *atesor.ExportCheck) {
	missing := ec.Missing()
	if len(missing) == 0 {
		return
	}
	tree := repoFiles(ctx, sb, port.RepoDir)
	in := explainInput{missing: missing, declared: map[string]bool{}, build: map[string]string{},
		changed: port.Changed, removals: len(port.Removals) > 0, dist: ec.Distribution, switches: ec.DistributionSwitches}
	for _, n := range ec.MissingDeclared {
		in.declared[n] = true
	}
	in.sources = readSources(ctx, sb, port.RepoDir, tree)
	for _, p := range tree {
		switch path.Base(p) {
		case "configure.ac", "configure.in", "CMakeLists.txt", "meson_options.txt", "meson.options":
			if data, err := sandbox.ReadBounded(ctx, sb, path.Join(port.RepoDir, p), sandbox.BoundMetadata); err == nil {
				in.build[p] = string(data)
			}
		}
	}
	ec.Explained = explainMissing(in)
}

// explainedSummary lists the missing functions that do not fail verification, with
// their findings, for the verify node's line.
func explainedSummary(ec *atesor.ExportCheck) string {
	var parts []string
	for _, m := range ec.Explained {
		if m.Finding != atesor.FindingHollowed {
			parts = append(parts, fmt.Sprintf("%s (%s)", m.Name, m.Finding))
		}
	}
	return strings.Join(textlist.Limit(parts, 20), ", ")
}

// symbolForText writes a symbol name into the report's text and the recipe: as it is
// when it is a plain symbol name, quoted with Go's escapes otherwise, so a name that a
// build chose cannot carry a line break or a control character into a document.
func symbolForText(name string) string {
	if symbolName.MatchString(name) {
		return "`" + name + "`"
	}
	return strconv.Quote(name)
}

package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// glibc 2.32 removed sys_errlist, sys_nerr, sys_siglist and their underscored twins
// from its API (the symbols stay only as compat versions no new link binds to), so old
// C that indexes them stops compiling ("rungetty.c:316:43: error: ‘sys_errlist’
// undeclared", Debian's rungetty 1.2) or, when the program declares them extern
// itself, stops linking ("undefined reference to `sys_errlist'"). The porter's edit is
// mechanical: sys_errlist[E] is strerror(E), sys_siglist[S] is strsignal(S), the
// program's own extern declarations go, the `E < sys_nerr ? sys_errlist[E] : "..."`
// idiom is strerror(E) (which answers unknown numbers itself), any other sys_nerr is a
// bound no errno reaches, and <string.h>, which declares both functions, is included
// where the file lacks it. The rule makes that edit as a recorded patch of each source
// file of the tree that uses the names.
var (
	errlistName = `_?sys_(?:errlist|nerr|siglist)`
	// errlistError is the compiler's or the linker's report of one of the names.
	errlistError = re(`(?:error: (?:use of undeclared identifier )?['‘](` + errlistName + `)['’]` +
		`|undefined reference to [` + "`" + `'‘](` + errlistName + `)['’])`)
	errlistWord = re(`\b` + errlistName + `\b`)
	// errlistExtern is a program's own declaration of one of the names, in masked text
	// (one declarator, no initializer).
	errlistExtern = re(`\bextern\s+[^;{}()=,#]*?\b` + errlistName + `\b[^;{}()=,#]*;`)
	// errlistTernary is the bounds-checked lookup: (E >= 0 && E < sys_nerr) ? sys_errlist[E]
	// : "...", the condition parenthesized or not, in masked text (the literal masked
	// to blanks and a 0).
	errlistOperand = `[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*`
	errlistCond    = `(?:(` + errlistOperand + `)\s*>=\s*0\s*&&\s*)?(` + errlistOperand + `)\s*<\s*_?sys_nerr`
	errlistTernary = re(`(?:\(\s*` + errlistCond + `\s*\)|` + errlistCond + `)\s*\?\s*_?sys_errlist\s*\[\s*(` + errlistOperand + `)\s*\]\s*:\s*(\s*0)`)
	// errlistDefinition is a program's own definition of one of the names (a compat
	// table for a libc without them), and errlistOwnFunc its own strerror or
	// strsignal, in masked text: rewriting those would break the table or make the
	// function call itself.
	errlistDefinition = re(`(?m)(?:^|[;{}])\s*(?:(?:static|const|volatile|unsigned|signed)\s+)*(?:char|int|long|short)\b[^;{}()=]*?\b(` + errlistName + `)\s*(?:\[[^\]]*\]\s*)?[=;,]`)
	errlistOwnFunc    = re(`\b(str(?:error|signal))\s*\([^;{}()]*\)\s*\{`)
	// errlistDirective is a preprocessor line that defines or undefines one of the names.
	errlistDirective = re(`^\s*#\s*(define|undef)\s+(` + errlistName + `)\b`)
	stringHHave      = re(`^\s*#\s*include\s*[<"](?:string\.h|cstring)[>"]`)
	cSourceExt       = []string{".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".C", ".hh", ".hpp", ".hxx", ".y", ".l", ".ec", ".pc"}
)

const (
	// errlistBound stands for sys_nerr where the code compares with it: above every errno.
	errlistBound = "4096"
	// maxErrlistReads and maxErrlistFiles bound the files one fix reads and edits.
	maxErrlistReads = 600
	maxErrlistFiles = 32
)

func errlistRule() Rule {
	return Rule{
		Name: "glibc-removed-errlist",
		Doc: "C that uses sys_errlist, sys_nerr or sys_siglist, which glibc 2.32 removed from its API: " +
			"sys_errlist[E] and the E < sys_nerr ? sys_errlist[E] : \"...\" idiom become strerror(E), sys_siglist[S] strsignal(S), " +
			"the program's own extern declarations go, another sys_nerr becomes " + errlistBound + ", and <string.h> is included, in each source file that uses them (recorded patches)",
		Categories: []atesor.ErrorCategory{atesor.CategoryCompilation, atesor.CategoryLinking, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{errlistError},
		Make:       makeErrlist,
	}
}

func makeErrlist(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.ReadFile == nil {
		return nil, "the sources cannot be read"
	}
	var names, named []string
	for _, m := range errlistError.FindAllStringSubmatch(f.text()+"\n"+f.Message, 256) {
		n := m[1] + m[2]
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	// The files the compiler names first, then every other C source of the tree.
	for _, m := range errlistFileRef.FindAllStringSubmatch(f.text()+"\n"+f.Message, 256) {
		if rel, ok := locateFile(env.Files, m[1]); ok && !slices.Contains(named, rel) {
			named = append(named, rel)
		}
	}
	var rest []string
	for _, rel := range env.Files {
		if slices.Contains(cSourceExt, path.Ext(rel)) && !slices.Contains(named, rel) {
			rest = append(rest, rel)
		}
	}
	slices.Sort(rest)
	candidates := append(slices.Clone(named), rest...)
	var actions []atesor.Action
	var notes []string
	for i, rel := range candidates {
		if i >= maxErrlistReads || len(actions) >= maxErrlistFiles || ctx.Err() != nil {
			break
		}
		b, err := env.ReadFile(ctx, rel)
		if err != nil {
			if slices.Contains(named, rel) {
				notes = append(notes, fmt.Sprintf("%s: %v", rel, err))
			}
			continue
		}
		if !errlistWord.Match(b) {
			continue
		}
		diff, _, why := errlistDiff(rel, string(b))
		if why != "" {
			notes = append(notes, rel+": "+why)
			continue
		}
		actions = append(actions, atesor.Action{Type: atesor.ActionPatch, File: rel, Diff: diff})
	}
	if len(actions) == 0 {
		if len(notes) == 0 {
			return nil, "no source file of the tree uses sys_errlist, sys_nerr or sys_siglist"
		}
		return nil, strings.Join(notes, "; ")
	}
	edited := make([]string, len(actions))
	var fns []string
	for i, a := range actions {
		edited[i] = a.File
		for _, fn := range []string{"strerror", "strsignal"} {
			if strings.Contains(a.Diff, fn+"(") && !slices.Contains(fns, fn) {
				fns = append(fns, fn)
			}
		}
	}
	how := "drop the removed names' declarations"
	if len(fns) > 0 {
		how = "use " + strings.Join(fns, " and ") + " for the removed tables"
	}
	analysis := fmt.Sprintf("%s: glibc 2.32 removed sys_errlist, sys_nerr and sys_siglist from its API; strerror and strsignal replace them.", strings.Join(names, ", "))
	if len(notes) > 0 {
		analysis += " Not edited: " + strings.Join(notes, "; ") + "."
	}
	return &Fix{
		Analysis: analysis,
		Strategy: how + " in " + strings.Join(edited, ", "),
		Actions:  actions,
	}, ""
}

// errlistFileRef is the file of a compiler diagnostic or of a linker's undefined reference.
var errlistFileRef = re(`(?m)(?:^|: )([^\s:]+\.(?:h|hh|hpp|hxx|c|cc|cpp|cxx|c\+\+|C|y|l)):(?:\d+:(?:\d+:)? (?:error|note|warning)|\([^)\n]*\): undefined reference)`)

// errlistEdit replaces src[start:end] with text.
type errlistEdit struct {
	start, end int
	text       string
}

// errlistRewrite returns content with the removed names replaced, whether it uses a
// function <string.h> declares now, and why it makes no rewrite ("" when it does).
func errlistRewrite(content string) (string, bool, string) {
	src := []byte(content)
	m := maskCode(src, false)
	if d := errlistDefinition.FindSubmatch(maskC(src)); d != nil {
		return "", false, "it defines " + string(d[1]) + " itself"
	}
	if d := errlistOwnFunc.FindSubmatch(maskC(src)); d != nil {
		return "", false, "it defines " + string(d[1]) + " itself"
	}
	var edits []errlistEdit
	covered := make([]bool, len(src)) // the bytes an edit replaces
	taken := func(at int) bool { return covered[at] }
	edit := func(e errlistEdit) {
		edits = append(edits, e)
		for i := e.start; i < e.end; i++ {
			covered[i] = true
		}
	}
	// keepLines is text that replaces src[a:b] with nothing but its newlines, so the
	// file keeps its line numbers.
	keepLines := func(a, b int) string { return strings.Repeat("\n", strings.Count(content[a:b], "\n")) }

	// Directive lines: a #define or #undef of a name goes, the rest of a directive is
	// left but a #define's body.
	for start := 0; start < len(src); {
		end := start
		for end < len(src) && (src[end] != '\n' || end > 0 && src[end-1] == '\\') {
			end++
		}
		line := string(m[start:end])
		if t := strings.TrimLeft(line, " \t"); strings.HasPrefix(t, "#") {
			switch {
			case errlistDirective.MatchString(line):
				edit(errlistEdit{start, end, keepLines(start, end)})
			case strings.HasPrefix(strings.TrimLeft(t[1:], " \t"), "define"):
				// A #define's body is code: its uses are rewritten.
			default:
				edit(errlistEdit{start, end, content[start:end]}) // left as it is
			}
		}
		start = end + 1
	}
	// The program's own extern declarations.
	for _, d := range errlistExtern.FindAllIndex(m, -1) {
		if taken(d[0]) {
			continue
		}
		// A declaration alone on its line leaves an empty line, not its indent.
		a, b := d[0], d[1]
		for a > 0 && (src[a-1] == ' ' || src[a-1] == '\t') {
			a--
		}
		for b < len(src) && (src[b] == ' ' || src[b] == '\t' || src[b] == '\r') {
			b++
		}
		if (a == 0 || src[a-1] == '\n') && (b == len(src) || src[b] == '\n') && !slices.Contains(covered[a:b], true) {
			d[0], d[1] = a, b
			if b > 0 && src[b-1] == '\r' {
				d[1]--
			}
		}
		edit(errlistEdit{d[0], d[1], keepLines(d[0], d[1])})
	}
	// The bounds-checked lookup.
	needsHeader := false
	for _, t := range errlistTernary.FindAllSubmatchIndex(m, -1) {
		operand := func(g int) string {
			if t[2*g] < 0 {
				return ""
			}
			return strings.Join(strings.Fields(string(m[t[2*g]:t[2*g+1]])), "")
		}
		e1, e2, e3 := operand(1)+operand(3), operand(2)+operand(4), operand(5)
		alt := t[2*6+1] - 1 // the masked literal's closing quote
		if taken(t[0]) || e2 != e3 || (e1 != "" && e1 != e3) || src[alt] != '"' || !ternaryAlone(m, t[0], t[1]) {
			continue
		}
		edit(errlistEdit{t[0], t[1], "strerror(" + content[t[2*5]:t[2*5+1]] + ")"})
		needsHeader = true
	}
	// Every other use.
	var left []string
	for _, w := range errlistWord.FindAllIndex(m, -1) {
		if taken(w[0]) {
			continue
		}
		name := string(m[w[0]:w[1]])
		if strings.HasSuffix(name, "sys_nerr") {
			edit(errlistEdit{w[0], w[1], errlistBound})
			continue
		}
		open := w[1]
		for open < len(m) && isSpace(m[open]) {
			open++
		}
		closing := matchingBracket(m, open)
		if closing < 0 {
			if len(left) < 3 {
				line := 1 + strings.Count(content[:w[0]], "\n")
				left = append(left, fmt.Sprintf("%s on line %d", name, line))
			}
			continue
		}
		fn := "strerror"
		if strings.HasSuffix(name, "siglist") {
			fn = "strsignal"
		}
		edit(errlistEdit{w[0], open + 1, fn + "("})
		edit(errlistEdit{closing, closing + 1, ")"})
		needsHeader = true
	}
	if len(left) > 0 {
		return "", false, "uses it other than by index: " + strings.Join(left, ", ")
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b strings.Builder
	last := 0
	for _, e := range edits {
		if e.start < last { // inside an edit already made (a directive left as it is)
			continue
		}
		b.WriteString(content[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.WriteString(content[last:])
	out := b.String()
	if out == content {
		return "", false, "it uses none of the names outside comments, literals and conditionals"
	}
	return out, needsHeader, ""
}

// ternaryAlone reports whether the conditional expression at m[start:end] stands
// alone: an argument, an initializer, a returned value, a parenthesized operand; not
// the right operand of a binary operator that binds tighter than ?:.
func ternaryAlone(m []byte, start, end int) bool {
	i := start - 1
	for i >= 0 && isSpace(m[i]) {
		i--
	}
	j := end
	for j < len(m) && isSpace(m[j]) {
		j++
	}
	if j < len(m) && !strings.ContainsRune("),;:}", rune(m[j])) {
		return false
	}
	if i < 0 || strings.ContainsRune("(,=;{}:?", rune(m[i])) && (m[i] != '=' || i == 0 || !strings.ContainsRune("=!<>", rune(m[i-1]))) {
		return true
	}
	return i >= 5 && string(m[i-5:i+1]) == "return" && isWordStart(m, i-5)
}

// isWordStart reports whether m[i] does not continue an identifier.
func isWordStart(m []byte, i int) bool {
	if i == 0 {
		return true
	}
	c := m[i-1]
	return !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')
}

// matchingBracket is the offset of the ] that closes the [ at m[open], or -1.
func matchingBracket(m []byte, open int) int {
	if open >= len(m) || m[open] != '[' {
		return -1
	}
	depth := 0
	for i := open; i < len(m); i++ {
		switch m[i] {
		case '[', '(', '{':
			depth++
		case ']', ')', '}':
			depth--
			if depth == 0 {
				if m[i] != ']' {
					return -1
				}
				return i
			}
		case ';':
			return -1
		}
	}
	return -1
}

// errlistDiff returns the unified diff of errlistRewrite's edit of a file, with
// #include <string.h> added where the file lacks it, and the new content; or why it
// makes none.
func errlistDiff(rel, content string) (string, string, string) {
	next, header, why := errlistRewrite(content)
	if why != "" {
		return "", "", why
	}
	old := splitLines(content)
	lines := splitLines(next)
	if len(lines) != len(old) {
		return "", "", "the edit changed the file's line count" // cannot happen: edits keep newlines
	}
	insert := -1
	if header && !slices.ContainsFunc(old, func(l string) bool { return stringHHave.MatchString(l) }) {
		insert = includeLine(content, old, lines)
	}
	include := "#include <string.h>\n"
	if strings.Contains(content, "\r\n") {
		include = "#include <string.h>\r\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", rel, rel)
	shift := 0
	for i := range old {
		if old[i] == lines[i] && i != insert {
			continue
		}
		added := []string{lines[i]}
		if i == insert {
			added = append([]string{include}, added...)
		}
		count := ""
		if len(added) != 1 {
			count = fmt.Sprintf(",%d", len(added))
		}
		fmt.Fprintf(&b, "@@ -%d +%d%s @@\n", i+1, i+1+shift, count)
		diffLine(&b, "-", old[i])
		for _, a := range added {
			diffLine(&b, "+", a)
		}
		shift += len(added) - 1
	}
	if insert >= 0 {
		next = strings.Join(lines[:insert], "") + include + strings.Join(lines[insert:], "")
	}
	return b.String(), next, ""
}

// splitLines splits s after each newline; a last line without one is kept.
func splitLines(s string) []string {
	l := strings.SplitAfter(s, "\n")
	if len(l) > 0 && l[len(l)-1] == "" {
		l = l[:len(l)-1]
	}
	return l
}

func diffLine(b *strings.Builder, sign, l string) {
	b.WriteString(sign + l)
	if !strings.HasSuffix(l, "\n") {
		b.WriteString("\n\\ No newline at end of file\n")
	}
}

// includeLine is the index of the line #include <string.h> goes before: after the last
// #include outside any #if before the first edited line (so config.h and feature
// macros come first), else before the first #include, else after an include guard.
func includeLine(content string, old, lines []string) int {
	first := len(old)
	for i := range old {
		if old[i] != lines[i] {
			first = i
			break
		}
	}
	masked := splitLines(string(maskCode([]byte(content), false)))
	depth, at := 0, -1
	for i := 0; i < first && i < len(masked); i++ {
		t := strings.TrimLeft(masked[i], " \t")
		if !strings.HasPrefix(t, "#") {
			continue
		}
		word := strings.TrimLeft(t[1:], " \t")
		switch {
		case strings.HasPrefix(word, "if"):
			depth++
		case strings.HasPrefix(word, "endif"):
			depth--
		case strings.HasPrefix(word, "include") && depth == 0:
			at = i + 1
		}
	}
	if at >= 0 && at < len(old) {
		return at
	}
	plain := make([]string, len(old))
	for i, l := range old {
		plain[i] = strings.TrimSuffix(l, "\n")
	}
	if i := slices.IndexFunc(plain, cppInclude.MatchString); i >= 0 {
		return i
	}
	if g := afterGuard(plain); g < len(old) {
		return g
	}
	return -1
}

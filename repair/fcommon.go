package repair

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// GCC before 10 put a C file-scope variable declared with no initializer (a tentative
// definition: `int x;`, or dahdi-tools' `} PACKED members;` closing a union in two of
// its files) in common storage, and the linker merged the copies of every file into
// one. GCC 10 made -fno-common the default, so such old C stops at the link with
// "multiple definition of `members'". -fcommon restores the old placement, which is
// exactly right for tentative definitions and does nothing for a real duplicate (two
// initialized definitions, two functions, any C++, where a declaration without an
// initializer is a definition): the rule reads the definitions the linker names and
// passes the flag only when each is a tentative one.
var (
	// ldMultiple is GNU ld's report: LOCATION: multiple definition of `X'; LOCATION:
	// first defined here, a location with the source file and line when the objects
	// have debug information, else the section (b.o:(.bss+0x0)).
	ldMultiple = re("(?m)^([^\n]*?): multiple definition of [`‘']([^`'‘’\n]+)['’]; ([^\n]*?): first defined here")
	// lldDuplicate is lld's, with the definitions on ">>> defined at" lines after it.
	lldDuplicate = re("(?m)^[^\n]*?error: duplicate symbol: ([^\n]+)\n((?:>>>[^\n]*(?:\n|$))+)")
	// moldDuplicate is mold's, with the two objects and the symbol on one line.
	moldDuplicate = re(`(?m)^mold: error: duplicate symbol: ([^\n]*): ([^\n:]+)$`)
	// sourceAt is a source file and line in a location.
	sourceAt = re(`([^\s:()'"` + "`" + `]+\.(?:c|h|i|cc|cp|cpp|cxx|c\+\+|C|hh|hpp|hxx|ipp|tcc)):(\d+)`)
	// sectionAt is the section of a location with no source line.
	sectionAt = re(`\((\.[A-Za-z0-9_.$]+)\+0x[0-9a-fA-F]+\)`)
	// cSourceFile is a C source or header (a .h may be C++'s: judged by the tree).
	cSourceFile = re(`\.[ch]$`)
)

// Bounds on what the rule reads: the symbols of one link, the files of a tree searched
// for a symbol the linker names no line of, and the size of one file.
const (
	maxFcommonSymbols = 16
	maxSearchFiles    = 400
	maxSourceBytes    = 2 << 20
)

// fcommonFlag is the flag the rule passes.
const fcommonFlag = "-fcommon"

func fcommonRule() Rule {
	return Rule{
		Name: "gcc10-fcommon",
		Doc: "C tentative definitions in several files, which GCC 10's -fno-common default no longer merges (multiple definition of `X'): " +
			"-fcommon through the build system's own variables when every definition the linker names is one (CMAKE_C_FLAGS of the build type, CFLAGS at configure time, meson's c_args, CFLAGS in a plain make's environment)",
		Categories: []atesor.ErrorCategory{atesor.CategoryLinking, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{re("multiple definition of [`‘']"), re(`error: duplicate symbol: `)},
		Make:       makeFcommon,
	}
}

// symbolDef is one definition of a duplicate symbol as the linker names it.
type symbolDef struct {
	File    string // the source file, as the linker spells it; empty with no debug information
	Line    int
	Section string // .bss, .data, .text, ... when no source line is named
}

// duplicate is a symbol the link defines more than once, with the definitions named.
type duplicate struct {
	Symbol string
	Defs   []symbolDef
}

// parseDuplicates reads the duplicate symbols of a link's output (GNU ld, lld and
// mold forms), each once with every definition named, in order of first report, at
// most maxFcommonSymbols; a GNU ld "in function" just before marks a function.
func parseDuplicates(text string) []duplicate {
	var out []duplicate
	add := func(sym string, defs ...symbolDef) {
		if sym == "" {
			return
		}
		i := slices.IndexFunc(out, func(d duplicate) bool { return d.Symbol == sym })
		if i < 0 {
			if len(out) == maxFcommonSymbols {
				return
			}
			out, i = append(out, duplicate{Symbol: sym}), len(out)
		}
		for _, d := range defs {
			// Two sections alike are two definitions; a source line named twice is one.
			if d.File == "" || !slices.Contains(out[i].Defs, d) {
				out[i].Defs = append(out[i].Defs, d)
			}
		}
	}
	for _, m := range ldMultiple.FindAllStringSubmatchIndex(text, -1) {
		sym := text[m[4]:m[5]]
		a, b := locationDef(text[m[2]:m[3]]), locationDef(text[m[6]:m[7]])
		if a.File == "" && a.Section == "" && inFunction(text[:m[0]], sym) {
			a.Section = ".text"
		}
		add(sym, a, b)
	}
	for _, m := range lldDuplicate.FindAllStringSubmatch(text, -1) {
		var defs []symbolDef
		for _, l := range strings.Split(m[2], "\n") {
			if d := locationDef(l); d.File != "" || d.Section != "" {
				defs = append(defs, d)
			}
		}
		add(strings.TrimSpace(m[1]), defs...)
	}
	for _, m := range moldDuplicate.FindAllStringSubmatch(text, -1) {
		add(strings.TrimSpace(m[2]))
	}
	return out
}

// locationDef reads a linker's location of a definition.
func locationDef(loc string) symbolDef {
	if m := sourceAt.FindAllStringSubmatch(loc, -1); m != nil {
		last := m[len(m)-1]
		if n, err := strconv.Atoi(last[2]); err == nil && n > 0 {
			return symbolDef{File: last[1], Line: n}
		}
	}
	if m := sectionAt.FindStringSubmatch(loc); m != nil {
		return symbolDef{Section: m[1]}
	}
	return symbolDef{}
}

// inFunction reports whether the line before a GNU ld report says "in function `sym'".
func inFunction(before, sym string) bool {
	before = strings.TrimSuffix(before, "\n")
	prev := before[strings.LastIndexByte(before, '\n')+1:]
	return strings.Contains(prev, "in function `"+sym+"'") || strings.Contains(prev, "in function ‘"+sym+"’")
}

// foundDef is a definition the rule read in the sources.
type foundDef struct {
	File string // repository path
	Decl cDecl
}

func (d foundDef) String() string {
	return fmt.Sprintf("%s:%d `%s`", d.File, d.Decl.Line, d.Decl.Text)
}

// fcommonReader reads the tree's C sources for the rule.
type fcommonReader struct {
	ctx   context.Context
	env   Env
	hasC  bool
	cache map[string][]byte
}

func (r *fcommonReader) read(rel string) ([]byte, bool) {
	if b, ok := r.cache[rel]; ok {
		return b, b != nil
	}
	b, err := r.env.ReadFile(r.ctx, rel)
	if err != nil || len(b) > maxSourceBytes {
		b = nil
	}
	r.cache[rel] = b
	return b, b != nil
}

// judge reads the definitions of one duplicate symbol: the ones it found and a reason
// when -fcommon is not the fix for it.
func (r *fcommonReader) judge(d duplicate) ([]foundDef, string) {
	sym := d.Symbol
	if strings.ContainsAny(sym, ":()<> ") || strings.HasPrefix(sym, "_Z") {
		return nil, fmt.Sprintf("%s is a C++ symbol: C++ has no tentative definitions, so two of them are a real duplicate", sym)
	}
	var found []foundDef
	named := false
	for _, def := range d.Defs {
		switch {
		case strings.HasPrefix(def.Section, ".text"):
			return nil, fmt.Sprintf("%s is defined in %s, code: a function defined twice, which -fcommon does not merge", sym, def.Section)
		case def.File == "":
			continue
		case cxxFile.MatchString(def.File):
			return nil, fmt.Sprintf("%s is defined in the C++ file %s: C++ has no tentative definitions, so -fcommon does not merge it", sym, def.File)
		}
		named = true
		rel, ok := locateFile(r.env.Files, def.File)
		if !ok {
			return nil, fmt.Sprintf("the linker names %s:%d for %s, which is not in the tree", def.File, def.Line, sym)
		}
		if !cSourceFile.MatchString(rel) || !r.hasC {
			return nil, fmt.Sprintf("%s, where the linker defines %s, is not C source of a tree with C files", rel, sym)
		}
		src, ok := r.read(rel)
		if !ok {
			return nil, fmt.Sprintf("%s could not be read to judge %s", rel, sym)
		}
		decls := fileScopeDecls(src, sym, def.Line)
		if len(decls) == 0 {
			return nil, fmt.Sprintf("%s:%d (%s) is no file-scope declaration of %s", rel, def.Line, sourceLine(src, def.Line), sym)
		}
		fd := foundDef{File: rel, Decl: decls[0]}
		if !slices.Contains(found, fd) {
			found = append(found, fd)
		}
	}
	if !named {
		if !r.hasC {
			return nil, fmt.Sprintf("the linker names no source line of %s and the tree has no C files", sym)
		}
		found = r.search(sym)
		if len(found) == 0 {
			return nil, fmt.Sprintf("the linker names no source line of %s and no C file of the tree declares it at file scope", sym)
		}
		// The sections say how many definitions hold initialized data, which the
		// declarations read may not show (one spelled through a macro).
		data, init := 0, 0
		for _, def := range d.Defs {
			if def.Section != "" && !bssSection(def.Section) {
				data++
			}
		}
		for _, fd := range found {
			if fd.Decl.Kind == declInitialized {
				init++
			}
		}
		for ; init < data; init++ {
			found = append(found, foundDef{File: "(initialized data)", Decl: cDecl{Kind: declInitialized, Text: "a definition in a data section"}})
		}
	}
	return found, fcommonVerdict(sym, found)
}

// bssSection reports whether a section holds zero-initialized data, where a tentative
// definition goes under -fno-common.
func bssSection(s string) bool {
	return s == ".bss" || s == ".sbss" || strings.HasPrefix(s, ".bss.") || strings.HasPrefix(s, ".sbss.")
}

// fcommonVerdict says why -fcommon does not make one definition of sym from found, or
// "" when it does: every definition is a tentative one but at most one, which may have
// an initializer (a common symbol merges with one real definition); an extern, static,
// thread-local or typedef declaration, or a function, is not merged.
func fcommonVerdict(sym string, found []foundDef) string {
	var initialized []string
	for _, d := range found {
		switch d.Decl.Kind {
		case declTentative:
		case declInitialized:
			initialized = append(initialized, d.String())
		case declExtern:
			// A declaration refers to the definition elsewhere: it defines nothing.
		default:
			return fmt.Sprintf("%s is %s: -fcommon merges only tentative definitions", d, d.Decl.Kind)
		}
	}
	if len(initialized) > 1 {
		return fmt.Sprintf("%s has initializers in more than one definition (%s): a real duplicate, which -fcommon does not merge", sym, strings.Join(initialized, ", "))
	}
	if !slices.ContainsFunc(found, func(d foundDef) bool { return d.Decl.Kind == declTentative }) {
		return fmt.Sprintf("no definition of %s read in the sources is a tentative one", sym)
	}
	return ""
}

// search finds the file-scope declarations of sym in the tree's C files when the
// linker names no line: files that mention it, of at most maxSearchFiles C files read,
// sources before headers.
func (r *fcommonReader) search(sym string) []foundDef {
	var files []string
	for _, f := range r.env.Files {
		if cSourceFile.MatchString(f) {
			files = append(files, f)
		}
	}
	slices.SortFunc(files, func(a, b string) int {
		if c := strings.Compare(path.Ext(a), path.Ext(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var out []foundDef
	for _, f := range files[:min(len(files), maxSearchFiles)] {
		src, ok := r.read(f)
		if !ok || !bytes.Contains(src, []byte(sym)) {
			continue
		}
		for _, d := range fileScopeDecls(src, sym, 0) {
			out = append(out, foundDef{File: f, Decl: d})
		}
	}
	return out
}

func makeFcommon(ctx context.Context, f Failure, env Env) (*Fix, string) {
	dups := parseDuplicates(f.text() + "\n" + f.Message)
	if len(dups) == 0 {
		return nil, "no multiple definition the linker reports"
	}
	if env.Plan == nil {
		return nil, "no build plan to pass the flag through"
	}
	if planHas(*env.Plan, fcommonFlag) {
		return nil, "the plan already passes -fcommon: the duplicate is not a tentative definition it merges"
	}
	if env.ReadFile == nil {
		return nil, "the sources cannot be read to tell tentative definitions from real duplicates"
	}
	r := &fcommonReader{ctx: ctx, env: env, cache: map[string][]byte{},
		hasC: slices.ContainsFunc(env.Files, func(p string) bool { return strings.HasSuffix(p, ".c") })}
	var what []string
	initialized := false
	for _, d := range dups {
		found, why := r.judge(d)
		if why != "" {
			return nil, why
		}
		initialized = initialized || slices.ContainsFunc(found, func(fd foundDef) bool { return fd.Decl.Kind == declInitialized })
		defs := make([]string, len(found))
		for i, fd := range found {
			defs[i] = fd.String()
		}
		what = append(what, fmt.Sprintf("%s (%s)", d.Symbol, strings.Join(defs, "; ")))
	}
	plan, where, ok := withLangFlags(*env.Plan, f.Phase, "C", []string{fcommonFlag})
	if !ok {
		plan, where, ok = withCFlags(*env.Plan, f.Phase, []string{fcommonFlag}, makefileSetsCFlags(ctx, env))
	}
	if !ok {
		return nil, "no cmake, configure, meson or make command in the plan takes C flags"
	}
	each := "each a C tentative definition (a file-scope variable with no initializer, no extern)"
	if initialized {
		each = "C tentative definitions (file-scope variables with no initializer, no extern) but for one initialized definition, which common storage merges them into"
	}
	// A configure or make build does not recompile for new CFLAGS, but the rebuild
	// drops what the failed build compiled when the plan changes how it compiles (see
	// internal/staleobj), so the fix is the flag alone.
	return &Fix{
		Analysis: "The link defines " + strings.Join(what, ", and ") + " more than once, " + each + ". " +
			"GCC before 10 put those in common storage and the linker merged them into one; GCC 10 made -fno-common the default, so each file now defines its own copy. " +
			"-fcommon restores the old placement, exactly what such code was written for; the sources are not changed.",
		Strategy: "pass -fcommon through " + where,
		Plan:     &plan,
	}, ""
}

package knowledge

import (
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/deb822"
)

// Declaration is one function declaration GCC listed with -aux-info.
type Declaration struct {
	// File is the header (as GCC names it) and Line the line of the declaration.
	File string
	Line int
	Name string
}

var (
	auxLine = regexp.MustCompile(`^/\* (.+):([0-9]+):([NO])([CF]) \*/ (.*)$`)
	// calledIdent is an identifier followed by an opening parenthesis that does not
	// start a declarator ("int (*f (int)) (void)" declares f).
	calledIdent = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_$]*)\s*\(\s*([^*\s]|$)`)
	notAName    = map[string]bool{"__attribute__": true, "__attribute": true, "__typeof__": true, "__typeof": true,
		"typeof": true, "__extension__": true, "sizeof": true, "_Alignas": true, "__asm__": true, "asm": true,
		"__declspec": true, "_Atomic": true}
)

// ParseAuxInfo reads the output of GCC's -aux-info (one line per function GCC saw,
// "/* file:line:NC */ extern int f (int);") and returns the external function
// declarations: definitions (F) and static functions are left out, so are lines GCC did
// not write. The declared name is the one after macro expansion, the symbol the library
// must define.
func ParseAuxInfo(text string) []Declaration {
	var out []Declaration
	for _, l := range strings.Split(text, "\n") {
		m := auxLine.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil || m[4] != "C" {
			continue
		}
		decl := strings.TrimSpace(m[5])
		if strings.HasPrefix(decl, "static ") {
			continue
		}
		name := ""
		for _, c := range calledIdent.FindAllStringSubmatch(decl, -1) {
			if !notAName[c[1]] {
				name = c[1]
				break
			}
		}
		if name == "" {
			continue
		}
		line := 0
		for _, r := range m[2] {
			line = line*10 + int(r-'0')
			if line > 1<<24 {
				break
			}
		}
		out = append(out, Declaration{File: m[1], Line: line, Name: name})
	}
	return out
}

// DistSymbol is one symbol of a Debian symbols file.
type DistSymbol struct {
	// Name is the symbol without its version node (adler32 of adler32@ZLIB_1.2.0).
	Name string
	// Excused is true for a symbol the distribution marks architecture-specific
	// (arch=, arch-bits=, arch-endian=) or optional: a build for another architecture
	// or of another configuration may lack it.
	Excused bool
	// Pattern is true for an entry that is not a plain symbol name (c++ demangled
	// names, regular expressions, version nodes); it cannot be compared by name.
	Pattern bool
}

// DistLibrary is one library's section of a Debian symbols file.
type DistLibrary struct {
	Soname  string
	Package string
	Symbols []DistSymbol
}

// ParseDebianSymbols reads a binary package's DEBIAN/symbols control file
// (deb-symbols(5)): "libz.so.1 zlib1g #MINVER#" starts a library; indented lines are
// its symbols, "(tag|tag=value)name@version minver"; "|" alternatives, "*" fields and
// "#" comments are skipped.
func ParseDebianSymbols(text string) []DistLibrary {
	var out []DistLibrary
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, "\r")
		switch {
		case strings.TrimSpace(l) == "", strings.HasPrefix(l, "#"), strings.HasPrefix(l, "|"), strings.HasPrefix(l, "*"):
			continue
		case l[0] != ' ' && l[0] != '\t':
			f := strings.Fields(l)
			lib := DistLibrary{Soname: f[0]}
			if len(f) > 1 {
				lib.Package = f[1]
			}
			out = append(out, lib)
		case len(out) > 0:
			if s, ok := parseSymbolLine(strings.TrimSpace(l)); ok {
				cur := &out[len(out)-1]
				cur.Symbols = append(cur.Symbols, s)
			}
		}
	}
	return out
}

func parseSymbolLine(l string) (DistSymbol, bool) {
	var s DistSymbol
	if strings.HasPrefix(l, "(") {
		end := strings.Index(l, ")")
		if end < 0 {
			return s, false
		}
		for _, tag := range strings.Split(l[1:end], "|") {
			key, _, _ := strings.Cut(strings.TrimSpace(tag), "=")
			switch key {
			case "arch", "arch-bits", "arch-endian", "optional":
				s.Excused = true
			case "c++", "regex", "symver":
				s.Pattern = true
			}
		}
		l = l[end+1:]
	}
	var name string
	if strings.HasPrefix(l, `"`) {
		end := strings.Index(l[1:], `"`)
		if end < 0 {
			return s, false
		}
		name = l[1 : end+1]
		s.Pattern = true // a quoted name has spaces: a demangled C++ name
	} else {
		f := strings.Fields(l)
		if len(f) == 0 {
			return s, false
		}
		name = f[0]
	}
	if at := strings.LastIndex(name, "@"); at > 0 && !s.Pattern {
		name = name[:at]
	}
	if name == "" {
		return s, false
	}
	s.Name = name
	return s, true
}

// BinaryPackage is one stanza of a Debian Packages index, the fields export checking
// needs.
type BinaryPackage struct {
	Package string
	Version string
	// Source is the source package it was built from and SourceVersion that source's
	// version (the binary's own version unless the Source field names another).
	Source        string
	SourceVersion string
	Architecture  string
	// Filename is the package's path in the archive (pool/main/z/zlib/...deb), SHA256
	// and Size what the index says the file is.
	Filename string
	SHA256   string
	Size     int64
}

// BinariesOfSource reads a Packages index (deb822 stanzas) and returns the binary
// packages built from the source package src, in index order.
func BinariesOfSource(r io.Reader, src string) ([]BinaryPackage, error) {
	var out []BinaryPackage
	err := deb822.Read(r, func(p deb822.Paragraph) bool {
		b := BinaryPackage{Package: p.Get("Package"), Version: p.Get("Version"), Architecture: p.Get("Architecture")}
		if b.Package == "" {
			return true
		}
		// "Source: zlib (1:1.3.dfsg-3)" names the source and its version when they differ
		// from the binary's.
		name, ver, _ := strings.Cut(p.Get("Source"), " ")
		b.Source, b.SourceVersion = name, strings.Trim(strings.TrimSpace(ver), "()")
		if b.Source == "" {
			b.Source = b.Package
		}
		if b.SourceVersion == "" {
			b.SourceVersion = b.Version
		}
		if b.Source == src {
			b.Filename, b.SHA256 = p.Get("Filename"), p.Get("SHA256")
			b.Size, _ = strconv.ParseInt(p.Get("Size"), 10, 64)
			out = append(out, b)
		}
		return true
	}, "Package", "Version", "Architecture", "Source", "Filename", "SHA256", "Size")
	return out, err
}

// UpstreamVersion is a Debian version without its epoch and Debian revision:
// "1:1.3.dfsg+really1.3.1-1+b1" is "1.3.dfsg+really1.3.1".
func UpstreamVersion(v string) string {
	v = strings.TrimSpace(v)
	if i := strings.Index(v, ":"); i >= 0 {
		v = v[i+1:]
	}
	if i := strings.LastIndex(v, "-"); i >= 0 {
		v = v[:i]
	}
	return v
}

// SortedNames returns the names without duplicates, sorted.
func SortedNames(names []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

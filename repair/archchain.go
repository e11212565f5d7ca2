package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// A platform header that names the architecture it is built for with an #if/#elif
// chain of the architectures its authors knew, and stops with #error for any other:
// openarena 0.8.8's code/qcommon/q_platform.h defines ARCH_STRING "x86_64", "ppc64",
// "s390x"... under __linux__, then "#error "Architecture not supported"" when none
// matched. Debian's packaging adds a riscv64 branch; the porter does the same when every
// branch only names the architecture (string #defines of the one macro the #error
// tests), so nothing architecture-specific is chosen by it: a branch for
// __riscv with __riscv_xlen 64 that defines the macro "riscv64", before the chain's
// #else or #endif.

const archChainRuleName = "arch-name-chain"

var (
	// archHashError is an #error whose message says the architecture is not known.
	archHashError = re(`(?m)^(\S+?):\d+(?::\d+)?: error: #error "?([^"\n]*(?i:architecture|\bcpu\b|processor)[^"\n]*)`)
	// ppDirective is a preprocessor conditional line: its directive and the rest.
	ppDirective = regexp.MustCompile(`^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(.*)$`)
	// archTest is a branch condition that tests an architecture's predefined macro.
	archTest = regexp.MustCompile(`\b(?:_M_(?:IX86|X64|AMD64|ARM64|ALPHA)|__(?:i[3-6]86|x86_64|amd64|aarch64|arm|powerpc64|powerpc|ppc64|ppc|s390x?|sparc(?:64)?|ia64|alpha|axp|mips(?:64)?|hppa|sh|cris|m68k|loongarch64|riscv)__?)\b`)
	// stringDefine is a #define of a macro to a string literal.
	stringDefine = regexp.MustCompile(`^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+"[^"\\\n]*"[ \t]*(?://.*|/\*.*\*/)?$`)
	// undefinedTest is the #error's own condition: a macro not defined.
	undefinedTest = regexp.MustCompile(`^[ \t]*#[ \t]*(?:ifndef[ \t]+([A-Za-z_]\w*)|if[ \t]+!\s*defined\s*\(?\s*([A-Za-z_]\w*)\s*\)?)`)
)

// maxChainHeader bounds the header the rule reads.
const maxChainHeader = 512 << 10

func archChainRule() Rule {
	return Rule{
		Name: archChainRuleName,
		Doc: "a platform header's #if/#elif chain of architectures that only names each one (string #defines of the macro its #error tests: openarena's ARCH_STRING) " +
			"and stops with #error \"Architecture not supported\": a riscv64 branch that names it \"riscv64\"",
		Categories: []atesor.ErrorCategory{atesor.CategoryArchitecture, atesor.CategoryCompilation, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{archHashError},
		Make:       makeArchChain,
	}
}

// archChain is one #if/#elif chain of a header: the lines of its branch directives and
// of its #else (-1 when none) and #endif, and whether a #if around it tests __linux__.
type archChain struct {
	branches    []int
	elseAt, end int
	linux       bool
}

func makeArchChain(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.ReadFile == nil {
		return nil, "the sources cannot be read"
	}
	m := archHashError.FindStringSubmatch(f.Message + "\n" + f.text())
	if m == nil {
		return nil, "no #error about the architecture"
	}
	rel, ok := locateFile(env.Files, path.Clean(m[1]))
	if !ok {
		return nil, m[1] + ", whose #error stopped the build, is not in the tree"
	}
	b, err := env.ReadFile(ctx, rel)
	if err != nil {
		return nil, fmt.Sprintf("%s: %v", rel, err)
	}
	if len(b) > maxChainHeader {
		return nil, fmt.Sprintf("%s is %d bytes, more than a platform header's %d", rel, len(b), maxChainHeader)
	}
	lines := strings.Split(string(b), "\n")
	macro := errorMacro(lines, m[2])
	if macro == "" {
		return nil, fmt.Sprintf("%s's #error %q follows no #ifndef or #if !defined() of a macro", rel, m[2])
	}
	chain, why := namingChain(lines, macro)
	if why != "" {
		return nil, rel + ": " + why
	}
	at := chain.end
	if chain.elseAt >= 0 {
		at = chain.elseAt
	}
	branch := []string{"#elif defined(__riscv) && __riscv_xlen == 64", fmt.Sprintf("#define %s \"riscv64\"", macro)}
	return &Fix{
		Analysis: fmt.Sprintf("%s stops with #error %q: its #if/#elif chain at line %d names each architecture it knows in %s and nothing else, and riscv64 is not among them. "+
			"A branch for riscv64 (__riscv, __riscv_xlen 64) defines %s \"riscv64\", as the other branches name theirs; it chooses no other code.",
			rel, m[2], chain.branches[0]+1, macro, macro),
		Strategy: fmt.Sprintf("add a riscv64 branch to %s's %s chain", rel, macro),
		Actions:  []atesor.Action{{Type: atesor.ActionPatch, File: rel, Diff: insertLinesDiff(rel, lines, at, branch)}},
	}, ""
}

// errorMacro finds the #error with text msg and the macro its condition tests as not
// defined (#ifndef X, #if !defined(X)) on the line before it.
func errorMacro(lines []string, msg string) string {
	for i, l := range lines {
		if !strings.Contains(l, "#") || !strings.Contains(l, "error") || !strings.Contains(l, strings.TrimSpace(msg)) || i == 0 {
			continue
		}
		for j := i - 1; j >= 0 && j >= i-3; j-- {
			if m := undefinedTest.FindStringSubmatch(lines[j]); m != nil {
				return m[1] + m[2]
			}
		}
	}
	return ""
}

// namingChain finds the chain of at least three architecture branches whose bodies are
// string #defines of macro and nothing else (blank lines and comments aside); the one
// inside a __linux__ test when there are several.
func namingChain(lines []string, macro string) (archChain, string) {
	type frame struct {
		chain  archChain
		naming bool // every branch so far tests an architecture and only names it
		linux  bool
	}
	var stack []frame
	var found []archChain
	bodyOK := func(fr *frame, i int) {
		// The body of the branch that ends at line i.
		start := fr.chain.branches[len(fr.chain.branches)-1] + 1
		if fr.chain.elseAt >= 0 {
			start = fr.chain.elseAt + 1
		}
		defined := false
		for _, l := range lines[start:i] {
			t := strings.TrimSpace(l)
			switch {
			case t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*"):
			case stringDefine.MatchString(l) && stringDefine.FindStringSubmatch(l)[1] == macro:
				defined = true
			default:
				fr.naming = false
			}
		}
		if !defined && fr.chain.elseAt < 0 {
			fr.naming = false
		}
	}
	for i, l := range lines {
		d := ppDirective.FindStringSubmatch(l)
		if d == nil {
			continue
		}
		switch d[1] {
		case "if", "ifdef", "ifndef":
			linux := strings.Contains(d[2], "linux") || (len(stack) > 0 && stack[len(stack)-1].linux)
			stack = append(stack, frame{chain: archChain{branches: []int{i}, elseAt: -1}, naming: d[1] != "ifndef" && archTest.MatchString(d[2]), linux: linux})
		case "elif":
			if len(stack) == 0 {
				return archChain{}, "an #elif outside any #if"
			}
			fr := &stack[len(stack)-1]
			bodyOK(fr, i)
			fr.naming = fr.naming && archTest.MatchString(d[2]) && fr.chain.elseAt < 0
			fr.chain.branches = append(fr.chain.branches, i)
		case "else":
			if len(stack) == 0 {
				return archChain{}, "an #else outside any #if"
			}
			fr := &stack[len(stack)-1]
			bodyOK(fr, i)
			fr.chain.elseAt = i
		case "endif":
			if len(stack) == 0 {
				return archChain{}, "an #endif outside any #if"
			}
			fr := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if fr.naming && fr.chain.elseAt < 0 {
				bodyOK(&fr, i)
			}
			if fr.naming && len(fr.chain.branches) >= 3 {
				fr.chain.end = i
				fr.chain.linux = len(stack) > 0 && stack[len(stack)-1].linux
				found = append(found, fr.chain)
			}
		}
	}
	if slices.ContainsFunc(found, func(c archChain) bool { return c.linux }) {
		found = slices.DeleteFunc(found, func(c archChain) bool { return !c.linux })
	}
	switch len(found) {
	case 0:
		return archChain{}, fmt.Sprintf("no #if/#elif chain of three or more architectures whose branches only name them in %s", macro)
	case 1:
		return found[0], ""
	}
	return archChain{}, fmt.Sprintf("%d chains of architectures name them in %s, and none is the only one for Linux", len(found), macro)
}

// insertLinesDiff is the unified diff that inserts add before line at (0-based) of
// lines, the file split at newlines.
func insertLinesDiff(rel string, lines []string, at int, add []string) string {
	cr := ""
	if strings.HasSuffix(lines[at], "\r") {
		cr = "\r"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n@@ -%d +%d,%d @@\n", rel, rel, at+1, at+1, len(add)+1)
	for _, l := range add {
		fmt.Fprintf(&b, "+%s%s\n", l, cr)
	}
	fmt.Fprintf(&b, " %s\n", lines[at])
	return b.String()
}

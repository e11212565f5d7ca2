package knowledge

import (
	"bytes"
	"cmp"
	"context"
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// Bounds of the architecture findings a detection keeps.
const (
	maxFindings        = 200
	maxFindingsPerKind = 3 // per file
	maxSnippet         = 160
)

// cSourceExt are the files scanned for architecture-specific C/C++ code.
var cSourceExt = map[string]bool{
	".c": true, ".h": true, ".cc": true, ".cpp": true, ".cxx": true, ".c++": true,
	".hpp": true, ".hh": true, ".hxx": true, ".inl": true, ".ipp": true, ".inc": true,
	".S": true, ".sx": true, ".m": true, ".mm": true,
}

// Fast pre-filter: a C file without any of these strings has no finding.
var archTriggers = [][]byte{
	[]byte("__x86"), []byte("__i386"), []byte("_M_X64"), []byte("_M_IX86"), []byte("_M_AMD64"),
	[]byte("__amd64"), []byte("__SSE"), []byte("__AVX"), []byte("__aarch64"), []byte("__arm"),
	[]byte("_M_ARM"), []byte("__ARM_"), []byte("intrin.h"), []byte("_mm"), []byte("asm"),
	[]byte("__builtin_ia32"), []byte("arm_neon.h"), []byte("cpuid.h"),
}

var (
	reDirective   = regexp.MustCompile(`^\s*#\s*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif|error|include|define)\b(.*)$`)
	reIdent       = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	reArchCond    = regexp.MustCompile(`__x86_64__|__x86_64|__i[3-6]86__|__i386|_M_X64|_M_IX86|_M_AMD64|__amd64|__SSE[0-9_A-Z]*__|__AVX[0-9A-Z_]*__|__aarch64__|__arm__|__arm64__|_M_ARM|__ARM_NEON|__ARM_ARCH|__ARM_FEATURE|__riscv|_MSC_VER|__INTEL_COMPILER|\bHAVE_(?:SSE|AVX|NEON)\w*|\bUSE_(?:SSE|AVX|NEON)\w*`)
	reX86Macro    = regexp.MustCompile(`__x86_64__|__x86_64|__i[3-6]86__|__i386|_M_X64|_M_IX86|_M_AMD64|__amd64|__SSE[0-9_A-Z]*__|__AVX[0-9A-Z_]*__`)
	reARMMacro    = regexp.MustCompile(`__aarch64__|__arm__|__arm64__|_M_ARM\w*|__ARM_NEON\w*|__ARM_ARCH\w*|__ARM_FEATURE\w*`)
	reX86Header   = regexp.MustCompile(`[<"](?:[xepstnwai]mmintrin|immintrin|x86intrin|ia32intrin|cpuid|intrin|x86gprintrin)\.h[>"]`)
	reARMHeader   = regexp.MustCompile(`[<"](?:arm_neon|arm_acle|arm_sve|arm64_neon)\.h[>"]`)
	reX86Call     = regexp.MustCompile(`\b_mm(?:256|512)?_[a-z0-9_]+\s*\(`)
	reX86Builtin  = regexp.MustCompile(`\b__builtin_ia32_[a-z0-9_]+|\b_bit_scan_(?:forward|reverse)\b|\b__rdtsc\b|\b__cpuid(?:_count)?\b`)
	reNEONCall    = regexp.MustCompile(`\bv[a-z0-9]+q?_(?:[suf]|p|bf)(?:8|16|32|64)(?:x[0-9]+)?\s*\(`)
	reInlineAsm   = regexp.MustCompile(`\b(?:__asm__|__asm|asm)\s*(?:__volatile__|volatile|goto|inline)?\s*(?:\(|\{)`)
	reEmptyAsm    = regexp.MustCompile(`\(\s*""\s*(?::|\))`)
	reArchAsmText = regexp.MustCompile(`(?i)\b(?:rdtsc|rdtscp|cpuid|pause|lfence|mfence|sfence|xchg|cmpxchg|bswap|lock|xgetbv|movdqa|movq|pushf|popf|dmb|dsb|isb|yield|ldrex|strex|ldaxr|stlxr|mrs|msr)\b|%%?[er][abcd]x|%%?[er][sd]i|%%?xmm|%%?ymm|\bx[0-9]+\b|\bw[0-9]+\b`)
	reNegArch     = regexp.MustCompile(`!\s*defined\s*\(?\s*(?:__x86|__i[3-6]86|_M_|__amd64|__SSE|__AVX|__aarch64|__arm|__ARM)`)
	reTargetVar   = regexp.MustCompile(`^[A-Za-z0-9_.%/-]+\s*:\s*(?:override\s+)?[A-Za-z_][A-Za-z0-9_]*\s*[+:?]?=`)
	reForeignDir  = regexp.MustCompile(`(?i)(^|/)(win32|win64|windows|msdos|dos|nintendods|watcom|amiga|os2|os400|qnx|vms|macos|ios|android|visualc|vstudio|visual ?studio|msvc|mingw|cygwin|xbox|ps3|psp|wii|riscos|borland)(/|$)`)
	reBuildFlag   = regexp.MustCompile(`(?:^|[\s"'=(;,])(-m64|-m32|-msse[0-9.a-z]*|-mavx[0-9a-z]*|-mfpu=[^\s"')]+|-march=[^\s"')]+|-mtune=[^\s"')]+|-mcpu=[^\s"')]+|-mpclmul|-maes|-mbmi2?|-mpopcnt|-mfma|-mlzcnt|-msha|-mfloat-abi=[^\s"')]+|-mthumb)\b`)
	reFlagProbe   = regexp.MustCompile(`(?i)check_(?:c|cxx)_compiler_flag|checkccompilerflag|check_compiler_flag|AX_CHECK_COMPILE_FLAG|AX_APPEND_COMPILE_FLAGS|has_argument|get_supported_arguments|has_multi_arguments|try_compile|CC_CHECK_FLAG`)
	reBuildArch   = regexp.MustCompile(`(?i)x86|amd64|i[3-6]86|aarch64|arm|ppc|powerpc|s390|processor|host_cpu|target_cpu|host_arch|uname\s+-m|\barch\b|cpu_family|sse|avx|neon|simd|\$\(ARCH\)|\bARCH\b`)
)

// cpp groups: one #if ... #endif with its branches.
type ppGroup struct {
	conds    []string // condition of each branch; "" for #else
	kinds    []string // directive of each branch: if, ifdef, ifndef, elif, else
	hasElse  bool
	errLine  []int // line of the #error directive a branch holds, 0 when none
	archy    bool  // some branch condition is an architecture test
	direct   bool  // some branch condition names an architecture macro itself
	riscvArm bool  // some branch tests __riscv
}

type ppFrame struct{ group, branch int }

// archFindings scans C/C++ sources and build files for architecture-specific code.
func archFindings(ctx context.Context, t *tree) ([]atesor.ArchFinding, error) {
	var out []atesor.ArchFinding
	for i, e := range t.files {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if e.dir || e.size == 0 {
			continue
		}
		base := path.Base(e.rel)
		ext := path.Ext(base)
		switch {
		case cSourceExt[ext] || cSourceExt[strings.ToLower(ext)]:
			if e.size > maxScanBytes {
				continue
			}
			src, err := t.read(e.rel, maxScanBytes)
			if err != nil || !hasTrigger(src) {
				continue
			}
			out = append(out, scanC(e.rel, src)...)
		case strings.EqualFold(ext, ".asm"):
			out = append(out, atesor.ArchFinding{File: e.rel, Line: 1, Kind: "x86-asm-file",
				Snippet: base, Severity: atesor.SeverityMedium})
		case isBuildFileName(base) && depth(e.rel) <= 3:
			src, err := t.read(e.rel, maxReadBytes)
			if err != nil {
				continue
			}
			out = append(out, scanBuildFile(e.rel, base, string(src))...)
		}
	}
	slices.SortStableFunc(out, func(a, b atesor.ArchFinding) int {
		if c := cmp.Compare(severityRank(b.Severity), severityRank(a.Severity)); c != 0 {
			return c
		}
		if c := cmp.Compare(a.File, b.File); c != 0 {
			return c
		}
		return cmp.Compare(a.Line, b.Line)
	})
	if len(out) > maxFindings {
		out = out[:maxFindings]
	}
	return out, nil
}

func hasTrigger(src []byte) bool {
	for _, tr := range archTriggers {
		if bytes.Contains(src, tr) {
			return true
		}
	}
	return false
}

func severityRank(s atesor.Severity) int {
	switch s {
	case atesor.SeverityCritical:
		return 3
	case atesor.SeverityHigh:
		return 2
	case atesor.SeverityMedium:
		return 1
	}
	return 0
}

// pending is a finding whose severity depends on the #if groups around it, which are only
// complete at the end of the file.
type pending struct {
	f     atesor.ArchFinding
	stack []ppFrame
	base  atesor.Severity // severity when unguarded
	macro bool            // a macro test on a directive line: the group is itself the guard
}

// scanC finds architecture-specific code in one C/C++ file.
func scanC(file string, src []byte) []atesor.ArchFinding {
	var groups []ppGroup
	var stack []ppFrame
	var pend []pending
	// derived are macros #defined only inside an architecture test (zlib's ARMCRC32): a
	// later test of them is an architecture test too.
	derived := map[string]bool{}
	isArch := func(cond string) bool {
		if reArchCond.MatchString(cond) {
			return true
		}
		for _, id := range reIdent.FindAllString(cond, -1) {
			if derived[id] {
				return true
			}
		}
		return false
	}
	perKind := map[string]int{}
	add := func(line int, kind, text string, sev atesor.Severity, macro bool) {
		if perKind[kind] >= maxFindingsPerKind {
			return
		}
		perKind[kind]++
		pend = append(pend, pending{
			f:     atesor.ArchFinding{File: file, Line: line, Kind: kind, Snippet: snippet(text)},
			stack: slices.Clone(stack), base: sev, macro: macro,
		})
	}
	lines := strings.Split(string(src), "\n")
	inComment := false
	for i := 0; i < len(lines); i++ {
		lineNo := i + 1
		raw := lines[i]
		code := raw
		code, inComment = stripCComments(code, inComment)
		if m := reDirective.FindStringSubmatch(code); m != nil {
			// Join continued directive lines.
			arg := m[2]
			for strings.HasSuffix(strings.TrimRight(arg, " \t"), "\\") && i+1 < len(lines) {
				i++
				next, ic := stripCComments(lines[i], inComment)
				inComment = ic
				arg = strings.TrimSuffix(strings.TrimRight(arg, " \t"), "\\") + " " + next
			}
			switch m[1] {
			case "if", "ifdef", "ifndef":
				g := ppGroup{conds: []string{arg}, kinds: []string{m[1]}, errLine: []int{0}}
				groups = append(groups, g)
				stack = append(stack, ppFrame{group: len(groups) - 1})
				markGroup(&groups[len(groups)-1], arg, isArch)
				if macroKind(arg) != "" {
					add(lineNo, macroKind(arg), raw, atesor.SeverityLow, true)
				}
			case "elif", "elifdef", "elifndef", "else":
				if len(stack) == 0 {
					continue
				}
				top := &stack[len(stack)-1]
				g := &groups[top.group]
				cond := arg
				if m[1] == "else" {
					cond = ""
					g.hasElse = true
				}
				g.conds = append(g.conds, cond)
				g.kinds = append(g.kinds, m[1])
				g.errLine = append(g.errLine, 0)
				top.branch = len(g.conds) - 1
				markGroup(g, cond, isArch)
				if k := macroKind(cond); k != "" {
					add(lineNo, k, raw, atesor.SeverityLow, true)
				}
			case "endif":
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
			case "define":
				if name := reIdent.FindString(arg); name != "" && len(stack) > 0 {
					top := stack[len(stack)-1]
					if g := groups[top.group]; g.archy && !portableBranch(g, top.branch) {
						derived[name] = true
					}
				}
			case "error":
				if len(stack) > 0 {
					top := stack[len(stack)-1]
					if g := &groups[top.group]; g.errLine[top.branch] == 0 {
						g.errLine[top.branch] = lineNo
					}
				}
			case "include":
				switch {
				case reX86Header.MatchString(arg):
					add(lineNo, "x86-intrinsics-header", raw, atesor.SeverityCritical, false)
				case reARMHeader.MatchString(arg):
					add(lineNo, "arm-intrinsics-header", raw, atesor.SeverityCritical, false)
				}
			}
			continue
		}
		if strings.Contains(code, "_mm") && reX86Call.MatchString(code) {
			add(lineNo, "x86-intrinsic", raw, atesor.SeverityHigh, false)
		}
		if reX86Builtin.MatchString(code) {
			add(lineNo, "x86-builtin", raw, atesor.SeverityHigh, false)
		}
		if strings.Contains(code, "_") && reNEONCall.MatchString(code) && bytes.Contains(src, []byte("arm_neon.h")) {
			add(lineNo, "neon-intrinsic", raw, atesor.SeverityHigh, false)
		}
		if strings.Contains(code, "asm") && reInlineAsm.MatchString(code) {
			body := code
			if i+1 < len(lines) {
				body += " " + lines[i+1]
			}
			switch {
			case reEmptyAsm.MatchString(body):
				// asm volatile("" ::: "memory") is a portable compiler barrier.
			case reArchAsmText.MatchString(body):
				add(lineNo, "inline-asm", raw, atesor.SeverityHigh, false)
			default:
				add(lineNo, "inline-asm", raw, atesor.SeverityMedium, false)
			}
		}
	}
	out := make([]atesor.ArchFinding, 0, len(pend))
	for _, p := range pend {
		out = append(out, resolveFinding(p, groups))
	}
	// An #error in the fallback branch of an architecture test stops the build.
	for gi := range groups {
		g := &groups[gi]
		if !g.direct || g.riscvArm {
			continue
		}
		for bi := range g.conds {
			if n := g.errLine[bi]; n > 0 && g.kinds[bi] == "else" {
				out = append(out, atesor.ArchFinding{File: file, Line: n,
					Kind: "unsupported-arch-error", Snippet: snippet(lines[n-1]), Severity: atesor.SeverityCritical})
				break
			}
		}
	}
	return out
}

// markGroup records whether a branch condition tests the architecture.
func markGroup(g *ppGroup, cond string, isArch func(string) bool) {
	if cond == "" {
		return
	}
	if reArchCond.MatchString(cond) {
		g.direct = true
	}
	if isArch(cond) {
		g.archy = true
	}
	if strings.Contains(cond, "__riscv") {
		g.riscvArm = true
	}
}

// macroKind names the architecture macro a condition tests, or "".
func macroKind(cond string) string {
	switch {
	case reX86Macro.MatchString(cond):
		return "x86-macro"
	case reARMMacro.MatchString(cond):
		return "arm-macro"
	}
	return ""
}

// resolveFinding sets the severity of a finding from the #if groups around it: code
// behind an architecture test with a portable fallback (#else without #error, or a
// __riscv branch) is low; behind a test with no fallback it is medium; unguarded code
// keeps its base severity.
func resolveFinding(p pending, groups []ppGroup) atesor.ArchFinding {
	f := p.f
	if p.macro {
		// The directive line is the architecture test itself.
		f.Guarded = true
		f.Severity = atesor.SeverityLow
		return f
	}
	guarded, fallback := false, false
	for _, fr := range p.stack {
		g := groups[fr.group]
		if !g.archy || portableBranch(g, fr.branch) {
			continue
		}
		guarded = true
		for bi := range g.conds {
			if bi != fr.branch && portableBranch(g, bi) && g.errLine[bi] == 0 {
				fallback = true
			}
		}
		if g.riscvArm {
			fallback = true
		}
	}
	switch {
	case guarded && fallback:
		f.Guarded = true
		f.Severity = atesor.SeverityLow
	case guarded:
		f.Guarded = true
		f.Severity = atesor.SeverityMedium
	default:
		f.Severity = p.base
	}
	return f
}

// portableBranch reports whether riscv64 compiles a branch of an architecture test: the
// #else, or a negated test (#ifndef __SSE2__, #if !defined(__x86_64__)).
func portableBranch(g ppGroup, branch int) bool {
	if g.kinds[branch] == "else" {
		// The #else is what riscv64 compiles unless an earlier branch already is.
		for bi := range branch {
			if portableTest(g, bi) {
				return false
			}
		}
		return true
	}
	return portableTest(g, branch)
}

// portableTest reports whether an #if/#elif branch condition holds on riscv64.
func portableTest(g ppGroup, branch int) bool {
	cond := g.conds[branch]
	switch {
	case strings.Contains(cond, "__riscv"):
		return true
	case g.kinds[branch] == "ifndef" || g.kinds[branch] == "elifndef":
		return reArchCond.MatchString(cond)
	}
	return reNegArch.MatchString(cond) && !strings.Contains(cond, "&&") && !strings.Contains(cond, "||")
}

// stripCComments removes // and /* */ comments from one line, carrying the state of an
// open block comment across lines.
func stripCComments(line string, inComment bool) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		if inComment {
			if line[i] == '*' && i+1 < len(line) && line[i+1] == '/' {
				inComment = false
				i++
			}
			continue
		}
		if line[i] == '/' && i+1 < len(line) {
			if line[i+1] == '/' {
				break
			}
			if line[i+1] == '*' {
				inComment = true
				i++
				continue
			}
		}
		b.WriteByte(line[i])
	}
	return b.String(), inComment
}

func snippet(s string) string {
	s = strings.TrimSpace(strings.ToValidUTF8(s, "?"))
	if len(s) > maxSnippet {
		s = s[:maxSnippet] + "..."
	}
	return strings.ToValidUTF8(s, "")
}

// isBuildFileName reports whether a file is a build file scanned for -m64/-march flags.
func isBuildFileName(base string) bool {
	switch base {
	case "CMakeLists.txt", "meson.build", "configure.ac", "configure.in", "build.rs":
		return true
	}
	return isMakefileName(base) && base != "Makefile.in" || strings.HasSuffix(base, ".cmake")
}

// scanBuildFile finds architecture flags (-m64, -msse4.2, -march=...) in a build file. A
// flag inside a conditional that tests the architecture, or in a compiler-flag probe, is
// guarded and low; an unconditional one is high.
func scanBuildFile(file, base, text string) []atesor.ArchFinding {
	var out []atesor.ArchFinding
	var stack []bool // per open conditional: does it test the architecture?
	n := 0
	for i, line := range strings.Split(text, "\n") {
		trim := strings.TrimSpace(line)
		if strings.HasPrefix(trim, "#") || strings.HasPrefix(trim, "dnl") {
			continue
		}
		lower := strings.ToLower(trim)
		switch opensOrCloses(base, lower) {
		case 1:
			stack = append(stack, reBuildArch.MatchString(trim))
		case 2: // else/elif: the branch test may add an architecture test
			if len(stack) > 0 && reBuildArch.MatchString(trim) {
				stack[len(stack)-1] = true
			}
		case -1:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
		m := reBuildFlag.FindStringSubmatch(line)
		if m == nil || n >= maxFindingsPerKind*2 {
			continue
		}
		flag := m[1]
		if strings.HasPrefix(flag, "-march=rv") || strings.HasPrefix(flag, "-march=$") || strings.HasPrefix(flag, "-mtune=$") {
			continue
		}
		n++
		guarded := reFlagProbe.MatchString(line) || slices.Contains(stack, true) ||
			(isMakefileName(base) && reTargetVar.MatchString(line)) || foreignPlatformDir(file) || inNoiseDir(file)
		f := atesor.ArchFinding{File: file, Line: i + 1, Kind: "arch-flag", Snippet: snippet(line), Guarded: guarded}
		switch {
		case guarded:
			f.Severity = atesor.SeverityLow
		case strings.HasPrefix(flag, "-march=native") || strings.HasPrefix(flag, "-mtune="):
			f.Severity = atesor.SeverityMedium
		default:
			f.Severity = atesor.SeverityHigh
		}
		out = append(out, f)
	}
	return out
}

// foreignPlatformDir reports whether a build file belongs to a port for another platform
// (win32/, nintendods/, watcom/, ...), which the Linux build never reads.
func foreignPlatformDir(file string) bool { return reForeignDir.MatchString(path.Dir(file)) }

// opensOrCloses classifies a build file line: 1 opens a conditional, 2 is an else branch,
// -1 closes one, 0 is anything else.
func opensOrCloses(base, lower string) int {
	switch {
	case base == "CMakeLists.txt" || strings.HasSuffix(base, ".cmake"):
		switch {
		case strings.HasPrefix(lower, "if(") || strings.HasPrefix(lower, "if ("):
			return 1
		case strings.HasPrefix(lower, "elseif") || strings.HasPrefix(lower, "else"):
			return 2
		case strings.HasPrefix(lower, "endif"):
			return -1
		}
	case base == "meson.build":
		switch {
		case strings.HasPrefix(lower, "if "):
			return 1
		case strings.HasPrefix(lower, "elif ") || lower == "else":
			return 2
		case strings.HasPrefix(lower, "endif"):
			return -1
		}
	case base == "configure.ac" || base == "configure.in":
		switch {
		case strings.HasPrefix(lower, "case ") || strings.HasPrefix(lower, "if ") || strings.HasPrefix(lower, "as_case(") || strings.HasPrefix(lower, "as_if("):
			return 1
		case strings.HasPrefix(lower, "esac") || lower == "fi" || strings.HasPrefix(lower, "fi "):
			return -1
		case strings.HasSuffix(lower, ")") && strings.Contains(lower, "*"):
			return 2 // a case pattern line such as x86_64*)
		}
	case base == "build.rs":
		return 0
	default: // Makefiles
		switch {
		case strings.HasPrefix(lower, "ifeq") || strings.HasPrefix(lower, "ifneq") ||
			strings.HasPrefix(lower, "ifdef") || strings.HasPrefix(lower, "ifndef"):
			return 1
		case strings.HasPrefix(lower, "else"):
			return 2
		case strings.HasPrefix(lower, "endif"):
			return -1
		}
	}
	return 0
}

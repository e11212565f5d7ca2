package atesor

import (
	"regexp"
	"strings"
)

// ErrorCategory classifies a build or provider error message.
type ErrorCategory string

// The error categories, in the order ClassifyError tries them.
const (
	CategoryRateLimit     ErrorCategory = "rate_limit"
	CategoryNetwork       ErrorCategory = "network"
	CategoryLinking       ErrorCategory = "linking"
	CategoryConfiguration ErrorCategory = "configuration"
	CategoryCompilation   ErrorCategory = "compilation"
	CategoryArchitecture  ErrorCategory = "architecture"
	CategoryMissingTool   ErrorCategory = "missing_tool"
	CategoryDependency    ErrorCategory = "dependency"
	CategoryPermission    ErrorCategory = "permission"
	CategoryDiskSpace     ErrorCategory = "disk_space"
	CategoryUnknown       ErrorCategory = "unknown"
)

// Unrecoverable reports whether no fix inside the package can help: the run escalates.
func (c ErrorCategory) Unrecoverable() bool {
	return c == CategoryDiskSpace || c == CategoryPermission
}

type categoryRule struct {
	category ErrorCategory
	re       *regexp.Regexp
}

// archHeaders are x86 and ARM headers a riscv64 compiler does not have.
const archHeaders = `(?:immintrin|xmmintrin|emmintrin|pmmintrin|tmmintrin|smmintrin|nmmintrin|wmmintrin|avxintrin|avx2intrin|x86intrin|ia32intrin|mmintrin|cpuid|arm_neon|arm_acle|arm_sve)\.h`

// The order goes from the causes a porter checks first to the most generic (rate limit,
// network, linking, configuration, compilation, architecture, missing tools, dependency,
// permission, disk space), with the more specific
// build classes moved ahead of the generic ones, because the generic patterns ("error:",
// "file.c:12: fatal error") match almost every compiler line:
//   - architecture comes before linking, dependency and compilation, so a missing
//     immintrin.h is not taken for a missing -dev package and an unrecognized -m64 is not
//     a plain compile error;
//   - missing tools come before dependency, so "requires go >= 1.22" is not a package;
//   - dependency comes before configuration and compilation, so "fatal error: zlib.h: No
//     such file or directory" and "Could NOT find ZLIB" name the package to install.
var categoryRules = []categoryRule{
	{CategoryRateLimit, regexp.MustCompile(`(?i)(?:http|status|code)\D{0,10}429\b|\b429 too many|rate.?limit|too many requests|resource_exhausted|quota exceeded|free-models-per-day`)},
	{CategoryNetwork, regexp.MustCompile(`(?i)could not resolve host|temporary failure (?:in name resolution|resolving)|connection (?:refused|reset|timed out)|network is unreachable|no route to host|tls handshake timeout|i/o timeout|dial tcp|failed to fetch|unable to connect to|could not connect to|proxyconnect|x509: certificate`)},
	{CategoryArchitecture, regexp.MustCompile(`(?i)` + archHeaders + `|unrecognized (?:command[- ]line|command) option ['‘"]?-m(?:64|32|sse|avx|arch=x86|arch=i|arch=armv|fpu|tune=(?:native|x86|core|haswell|skylake|znver))|unknown (?:cpu|architecture|target)|-march=(?:x86-64|native|armv|haswell|skylake|i686)\S*.*(?:invalid|unknown|unrecognized|error)|error: unknown value .* for -march|unsupported (?:architecture|cpu|target)|__(?:x86_64|i386|aarch64|arm)__.*not supported|inline assembly|impossible constraint in ['‘]asm['’]|invalid 'asm'|unknown register name|unrecognized opcode|unknown opcode|couldn't find a cpu type|no arch-specific|config\.(?:guess|sub).*(?:unable to guess|not recognized|invalid configuration)|unable to guess system type|machine .?riscv64[^'’]*['’] not recognized|\b_mm\d*_\w+|__builtin_ia32_\w+|__cpuid|qemu: uncaught target signal`)},
	{CategoryLinking, regexp.MustCompile(`(?i)undefined reference to|cannot find -l\S+|ld returned \d+ exit status|collect2: error|relocation \S+ (?:against|out of range)|linker command failed|multiple definition of|relocation truncated to fit|unresolved external symbol|error adding symbols|ld: cannot find`)},
	{CategoryMissingTool, regexp.MustCompile(`(?i)requires go >?=|go: go\.mod requires go|toolchain not available|requires rustc \S+|rustc \S+ is not supported|package \S+ cannot be built because it requires rustc|(?:^|\s|: )(?:\S+: )?command not found|: not found$|no such file or directory: ['‘]?(?:cmake|meson|ninja|make|gcc|g\+\+|cc|c\+\+|cargo|go|rustc|pkg-config|autoreconf|libtoolize|python3?|perl)['’]?$|could not find (?:program|executable) ['‘]?\w+|program ['‘]\S+['’] not found|cmake_make_program is not set|no cmake_c_compiler could be found|no cmake_cxx_compiler could be found|c compiler cannot create executables|autoreconf: not found|aclocal: not found|(?:cmake|meson|ninja|cargo|go|rustc|pkg-config|autoreconf|libtoolize|bison|flex|makeinfo|help2man|gperf|nasm|yasm)'? (?:is )?(?:not installed|not found)`)},
	{CategoryDependency, regexp.MustCompile(`(?i)fatal error: \S+\.h(?:pp)?: no such file or directory|\S+\.h: no such file or directory|could not find (?:a )?package|package '\S+'(?:,.*)? (?:not found|was not found)|no package '\S+' found|could not find \S+ \(missing:|find_package|dependency "\S+" not found|dependency \S+ found: no|run-time dependency \S+ found: no|unable to locate package|e: package '\S+' has no installation candidate|no matching package|has no installation candidate|error: unable to select packages|no such package|cannot find package|no required module provides package|missing go\.sum entry|failed to select a version for|no matching package named|failed to load source for dependency|checking for \S+\.\.\. no.*\n?.*(?:error|required)|configure: error: .*(?:library|header|package|not found|not installed|required)|library not found|not found in the pkg-config search path|pkg-config.*not found|pc file not found`)},
	{CategoryConfiguration, regexp.MustCompile(`(?i)cmake error|configure: error|configuration failed|meson\.build:\d+:\d+: error|error: meson|invalid configuration|ninja: error: loading 'build\.ninja'|no rule to make target|makefile:\d+: \*\*\*|no targets specified and no makefile found|autoreconf: error|aclocal: error|error: possibly undefined macro|does not appear to contain cmakelists\.txt|already exists and is a directory|inconsistent vendoring|cmakecache\.txt directory .* is different|could not load cache`)},
	{CategoryCompilation, regexp.MustCompile(`(?i)(?:^|\s)error: |error\[e\d{4}\]|\.(?:c|cc|cpp|cxx|h|hpp|go|rs):\d+(?::\d+)?: (?:fatal )?error|compilation terminated|could not compile|syntax error|undeclared|implicit declaration|incompatible type|cannot use .* as|\*\*\* \[[^\]]+\] error \d|build failed|subcommand failed`)},
	{CategoryPermission, regexp.MustCompile(`(?i)permission denied|operation not permitted|eacces|eperm|read-only file system|are you root`)},
	{CategoryDiskSpace, regexp.MustCompile(`(?i)no space left on device|disk quota exceeded|enospc|not enough free space|file too large`)},
}

// ClassifyError puts a build or provider error message into a category: the first rule
// of a fixed order that matches wins (see the rule table); nothing matching is unknown.
// "No space left on device" is checked first, since a full disk breaks every other step
// with messages of its own.
func ClassifyError(message string) ErrorCategory {
	if message = strings.TrimSpace(message); message == "" {
		return CategoryUnknown
	}
	if diskSpace.MatchString(message) {
		return CategoryDiskSpace
	}
	for _, r := range categoryRules {
		if r.re.MatchString(message) {
			return r.category
		}
	}
	return CategoryUnknown
}

var diskSpace = regexp.MustCompile(`(?i)no space left on device|disk quota exceeded`)

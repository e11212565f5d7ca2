package knowledge

// riscvMacro is a RISC-V preprocessor macro and what it tells.
type riscvMacro struct{ name, meaning string }

// riscvMacros are the 7 RISC-V macros the knowledge block lists (GCC and Clang define
// them).
var riscvMacros = []riscvMacro{
	{"__riscv", "defined on every RISC-V target; guard RISC-V code with #if defined(__riscv)"},
	{"__riscv_xlen", "integer register width in bits: 64 on riscv64 (test __riscv_xlen == 64)"},
	{"__riscv_flen", "floating-point register width: 64 with the D extension (lp64d ABI)"},
	{"__riscv_atomic", "defined when the A extension (atomic instructions) is available"},
	{"__riscv_mul", "defined when the M extension (integer multiply and divide) is available"},
	{"__riscv_vector", "defined only when the V extension is enabled; rv64gc has no V, so keep a scalar path"},
	{"__riscv_compressed", "defined when the C extension (compressed instructions) is enabled"},
}

// portingIssue is a common RISC-V porting problem with its root cause and first fix.
type portingIssue struct {
	title, symptom, cause, fix string
	muslOnly                   bool
}

// portingIssues are the 9 common porting issues of the knowledge block, in order. The musl
// issue is skipped in a glibc sandbox.
var portingIssues = []portingIssue{
	{
		title:   "x86 intrinsics",
		symptom: "immintrin.h/emmintrin.h/xmmintrin.h not found, or _mm_* / __m128i undeclared",
		cause:   "SSE/AVX intrinsics and their headers exist only on x86",
		fix:     "select the project's portable C path (disable its SIMD option, or guard the code with #if defined(__x86_64__) || defined(__i386__) and a #else scalar fallback); RVV code only under __riscv_vector",
	},
	{
		title:   "inline assembly",
		symptom: "unknown register name, invalid instruction mnemonic or unrecognized opcode in an asm statement",
		cause:   "x86 or ARM asm (rdtsc, cpuid, pause, bswap, dmb) compiled for RISC-V",
		fix:     "take the C fallback or add an #elif defined(__riscv) branch (rdtime via csrr, __asm__ volatile(\"fence rw,rw\" ::: \"memory\")), or use a compiler builtin",
	},
	{
		title:   "builtin functions",
		symptom: "implicit declaration or undefined reference of __builtin_ia32_* or _bit_scan_*",
		cause:   "x86-only compiler builtins",
		fix:     "use the portable builtins (__builtin_popcount, __builtin_ctz, __builtin_clz, __builtin_bswap32/64, __atomic_*) or plain C",
	},
	{
		title:   "memory ordering",
		symptom: "hangs, races or wrong results under load that never show on x86",
		cause:   "RISC-V's RVWMO memory model is weaker than x86 TSO; volatile or plain loads and stores do not order memory",
		fix:     "use C11/C++11 atomics with acquire/release (or __atomic builtins) and real fences instead of volatile or x86-only barriers",
	},
	{
		title:    "musl libc",
		symptom:  "missing execinfo.h/backtrace, error.h, fts.h, obstack, argp, or code that tests __GLIBC__",
		cause:    "musl implements POSIX, not the glibc extensions",
		fix:      "install the musl compatibility package (fts-dev, argp-standalone, musl-obstack-dev, libexecinfo-dev where it exists) and link it, or guard the glibc-only feature with #ifdef __GLIBC__",
		muslOnly: true,
	},
	{
		title:   "config.guess",
		symptom: "configure: cannot guess build type, or machine `riscv64' not recognized",
		cause:   "config.guess and config.sub older than 2018 do not know riscv64",
		fix:     "replace them with current copies (autoreconf -fi, or copy config.guess and config.sub from the installed automake, /usr/share/automake-*/) and run configure again",
	},
	{
		title:   "atomics linking",
		symptom: "undefined reference to __atomic_fetch_add_1, __atomic_compare_exchange_1 or __atomic_exchange_2",
		cause:   "RISC-V has no native 8- and 16-bit atomics; GCC calls libatomic for them",
		fix:     "link with -latomic (LDFLAGS=-latomic, LIBS=-latomic, or target_link_libraries(<target> atomic))",
	},
	{
		title:   "code model",
		symptom: "relocation truncated to fit: R_RISCV_HI20 or R_RISCV_PCREL_HI20 at link time",
		cause:   "the medlow code model only reaches the low 2 GiB of the address space; large or position-dependent binaries overflow it",
		fix:     "compile with -mcmodel=medany (CFLAGS and CXXFLAGS), and -fPIC for shared libraries",
	},
	{
		title:   "cache line size",
		symptom: "#error unknown cache line size, or a CACHE_LINE_SIZE defined only for x86/ARM",
		cause:   "the code defines the cache line size per architecture and has no RISC-V case",
		fix:     "add an #elif defined(__riscv) case of 64 bytes, or read sysconf(_SC_LEVEL1_DCACHE_LINESIZE) at run time",
	},
}

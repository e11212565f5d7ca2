package atesor

import "testing"

func TestClassifyError(t *testing.T) {
	tests := []struct {
		line string
		want ErrorCategory
	}{
		// rate limit and network (provider and download messages)
		{"openrouter: HTTP 429: Rate limit exceeded: free-models-per-min", CategoryRateLimit},
		{`{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}}`, CategoryRateLimit},
		{"429 Too Many Requests", CategoryRateLimit},
		{"fatal: unable to access 'https://example.org/x.git/': Could not resolve host: example.org", CategoryNetwork},
		{"go: github.com/pkg/errors@v0.9.1: Get \"https://proxy.golang.org/...\": dial tcp: lookup proxy.golang.org: no such host", CategoryNetwork},
		{"Err:1 http://mirror/debian trixie InRelease\n  Temporary failure resolving 'mirror'", CategoryNetwork},
		{"error: failed to download from `https://index.crates.io/config.json`: Connection refused", CategoryNetwork},
		{"x509: certificate signed by unknown authority", CategoryNetwork},
		// architecture
		{"src/simd.c:3:10: fatal error: immintrin.h: No such file or directory", CategoryArchitecture},
		{"lib/fast.c:12:10: fatal error: xmmintrin.h: No such file or directory", CategoryArchitecture},
		{"hash.c:5:10: fatal error: emmintrin.h: No such file or directory", CategoryArchitecture},
		{"cpu.c:2:10: fatal error: x86intrin.h: No such file or directory", CategoryArchitecture},
		{"detect.c:7:10: fatal error: cpuid.h: No such file or directory", CategoryArchitecture},
		{"neon.c:1:10: fatal error: arm_neon.h: No such file or directory", CategoryArchitecture},
		{"gcc: error: unrecognized command-line option '-m64'", CategoryArchitecture},
		{"gcc: error: unrecognized command-line option ‘-msse4.2’", CategoryArchitecture},
		{"cc: error: unrecognized command-line option '-mavx2'", CategoryArchitecture},
		{"checksum.c:40:5: error: impossible constraint in 'asm'", CategoryArchitecture},
		{"configure: error: cannot guess build type; you must specify one\nconfig.guess: unable to guess system type", CategoryArchitecture},
		{"Invalid configuration `riscv64-unknown-linux-gnu': machine `riscv64-unknown' not recognized", CategoryArchitecture},
		{"qemu: uncaught target signal 4 (Illegal instruction) - core dumped", CategoryArchitecture},
		{"/tmp/ccX.s:42: Error: unrecognized opcode `pause'", CategoryArchitecture},
		// linking
		{"/usr/bin/ld: foo.o: undefined reference to `__atomic_fetch_add_8'", CategoryLinking},
		{"/usr/bin/ld: cannot find -lssl: No such file or directory", CategoryLinking},
		{"collect2: error: ld returned 1 exit status", CategoryLinking},
		{"ld: multiple definition of `main'; first defined here", CategoryLinking},
		// missing tools
		{"go: go.mod requires go >= 1.23 (running go 1.22.2; GOTOOLCHAIN=local)", CategoryMissingTool},
		{"error: package `clap_lex v0.7.4` cannot be built because it requires rustc 1.74 or newer", CategoryMissingTool},
		{"/bin/sh: 1: cmake: not found", CategoryMissingTool},
		{"bash: meson: command not found", CategoryMissingTool},
		{"configure: error: C compiler cannot create executables", CategoryMissingTool},
		{"configure: error: zlib not installed", CategoryDependency}, // libpng1.6 without zlib1g-dev
		// dependency
		{"src/gz.c:1:10: fatal error: zlib.h: No such file or directory", CategoryDependency},
		{"Package 'libffi', required by 'virtual:world', not found", CategoryDependency},
		{"No package 'openssl' found", CategoryDependency},
		{"CMake Error at CMakeLists.txt:20 (find_package):\n  Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)", CategoryDependency},
		{"meson.build:10:0: ERROR: Dependency \"glib-2.0\" not found, tried pkgconfig", CategoryDependency},
		{"Run-time dependency libcurl found: NO (tried pkgconfig and cmake)", CategoryDependency},
		{"E: Unable to locate package libfoo-dev", CategoryDependency},
		{"ERROR: unable to select packages:\n  libfoo-dev (no such package):", CategoryDependency},
		{"main.go:5:2: no required module provides package github.com/x/y; to add it:", CategoryDependency},
		{"error: failed to select a version for the requirement `serde = \"^9\"`", CategoryDependency},
		// configuration
		{"CMake Error: The source directory \"/workspace/x/build\" does not appear to contain CMakeLists.txt.", CategoryConfiguration},
		{"make: *** No rule to make target 'install-libs'.  Stop.", CategoryConfiguration},
		{"make: *** No targets specified and no makefile found.  Stop.", CategoryConfiguration},
		{"configure.ac:12: error: possibly undefined macro: AC_PROG_LIBTOOL", CategoryConfiguration},
		{"ninja: error: loading 'build.ninja': No such file or directory", CategoryConfiguration},
		// compilation
		{"src/main.c:10:5: error: 'foo' undeclared (first use in this function)", CategoryCompilation},
		{"src/x.cpp:4:1: error: expected ';' before '}' token", CategoryCompilation},
		{"error[E0425]: cannot find value `x` in this scope", CategoryCompilation},
		{"./main.go:12:9: cannot use s (variable of type string) as int value in return statement", CategoryCompilation},
		{"make[2]: *** [Makefile:120: foo.o] Error 1", CategoryCompilation},
		// permission and disk space
		{"mkdir: cannot create directory '/usr/local/share/x': Permission denied", CategoryPermission},
		{"cp: cannot create regular file '/etc/x': Read-only file system", CategoryPermission},
		{"write error: No space left on device", CategoryDiskSpace},
		{"/usr/bin/ld: final link failed: No space left on device", CategoryDiskSpace},
		// unknown
		{"", CategoryUnknown},
		{"Segmentation fault", CategoryUnknown},
		{"all done", CategoryUnknown},
	}
	for _, tt := range tests {
		if got := ClassifyError(tt.line); got != tt.want {
			t.Errorf("ClassifyError(%q) = %s, want %s", tt.line, got, tt.want)
		}
	}
	if len(tests) < 40 {
		t.Fatalf("only %d cases", len(tests))
	}
}

func BenchmarkClassifyError(b *testing.B) {
	line := "src/main.c:10:5: error: 'foo' undeclared (first use in this function)"
	for b.Loop() {
		ClassifyError(line)
	}
}

package buildlog_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/buildlog"
	"github.com/eclipse-atesor/atesor-go/internal/debiantest"
	"github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

// liveCase is one failure injected into a real package from Debian's archive the way
// such failures happen, built in the real riscv64 sandbox.
type liveCase struct {
	name     string
	pkg      string // Debian source package
	file     string // its orig tarball
	setup    []string
	fail     string         // the command that must fail
	first    *regexp.Regexp // what the extracted first line must be
	category atesor.ErrorCategory
}

// The order matters: the cases that need a -dev package missing run before it is
// installed. One sandbox holds every case, each in a directory of its own.
var liveCases = []liveCase{
	{name: "pigz-missing-zlib-dev", pkg: "pigz", file: "pigz_2.8.orig.tar.xz",
		fail:  "make -j4",
		first: regexp.MustCompile(`^pigz\.c:\d+:\d+: fatal error: zlib\.h: No such file or directory$`), category: atesor.CategoryDependency},
	{name: "libpng-configure-no-zlib", pkg: "libpng1.6", file: "libpng1.6_1.6.48.orig.tar.gz",
		fail:  "./configure",
		first: regexp.MustCompile(`^configure: error: zlib not installed$`), category: atesor.CategoryDependency},
	{name: "libpng-cmake-no-zlib", pkg: "libpng1.6", file: "libpng1.6_1.6.48.orig.tar.gz",
		fail:  "cmake -S . -B build",
		first: regexp.MustCompile(`^CMake Error: Could NOT find ZLIB`), category: atesor.CategoryDependency},
	{name: "pigz-x86-flag", pkg: "pigz", file: "pigz_2.8.orig.tar.xz",
		setup: []string{"apt-get install -y zlib1g-dev", "sed -i 's/^CFLAGS=-O3 /CFLAGS=-O3 -msse4.2 /' Makefile"},
		fail:  "make -j4",
		first: regexp.MustCompile(`^gcc: error: unrecognized command-line option ['‘]-msse4\.2['’]$`), category: atesor.CategoryArchitecture},
	{name: "pigz-link-error", pkg: "pigz", file: "pigz_2.8.orig.tar.xz",
		setup: []string{"sed -i 's/^LIBS=-lm -lpthread -lz$/LIBS=-lm -lpthread/' Makefile"},
		fail:  "make -j4",
		first: regexp.MustCompile("^pigz\\.c:\\(\\.text\\+0x[0-9a-f]+\\): undefined reference to `\\w+'$"), category: atesor.CategoryLinking},
	{name: "pigz-parallel-race", pkg: "pigz", file: "pigz_2.8.orig.tar.xz",
		// A generated header the object does not depend on: serial make builds it first,
		// parallel make compiles pigz.c while it is still being made.
		setup: []string{`perl -0pi -e 's/^pigz: /default: version.h pigz\n\nversion.h:\n\tsleep 30; echo "#define PIGZ_RISCV 1" > version.h\n\npigz: /m' Makefile`,
			`sed -i '352i #include "version.h"' pigz.c`},
		fail:  "make -j4",
		first: regexp.MustCompile(`^pigz\.c:352:10: fatal error: version\.h: No such file or directory$`), category: atesor.CategoryDependency},
	{name: "libdeflate-x86-flag", pkg: "libdeflate", file: "libdeflate_1.23.orig.tar.gz",
		setup: []string{`sed -i '/^        VERSION ${VERSION_STRING})$/a add_compile_options(-mavx2)' CMakeLists.txt`, "cmake -S . -B build"},
		fail:  "cmake --build build -j4",
		first: regexp.MustCompile(`^cc: error: unrecognized command-line option ['‘]-mavx2['’]$`), category: atesor.CategoryArchitecture},
	{name: "cjson-gcc14-implicit-decl", pkg: "cjson", file: "cjson_1.7.18.orig.tar.gz",
		setup: []string{"sed -i '/#include <string.h>/d' cJSON.c", "cmake -S . -B build -DENABLE_CJSON_TEST=OFF"},
		fail:  "cmake --build build -j4",
		first: regexp.MustCompile(`cJSON\.c:\d+:\d+: error: implicit declaration of function ['‘]\w+['’]`), category: atesor.CategoryCompilation},
	{name: "cjson-ninja-gcc14-implicit-decl", pkg: "cjson", file: "cjson_1.7.18.orig.tar.gz",
		setup: []string{"sed -i '/#include <string.h>/d' cJSON_Utils.c", "cmake -G Ninja -S . -B build -DENABLE_CJSON_TEST=OFF -DENABLE_CJSON_UTILS=ON"},
		fail:  "cmake --build build",
		first: regexp.MustCompile(`cJSON_Utils\.c:\d+:\d+: error: implicit declaration of function ['‘]\w+['’]`), category: atesor.CategoryCompilation},
	{name: "inih-meson-version", pkg: "libinih", file: "libinih_59.orig.tar.gz",
		setup: []string{"sed -i \"s/meson_version: '>=0.56.0'/meson_version: '>=1.99.0'/\" meson.build"},
		fail:  "meson setup builddir",
		first: regexp.MustCompile(`ERROR: Meson version is .* but project requires >=1\.99\.0`), category: atesor.CategoryConfiguration},
	{name: "go-isatty-missing-go-sum", pkg: "golang-github-mattn-go-isatty", file: "golang-github-mattn-go-isatty_0.0.20.orig.tar.gz",
		setup: []string{"go mod edit -require=golang.org/x/sys@v0.30.0"},
		fail:  "go build ./...",
		first: regexp.MustCompile(`^go: golang\.org/x/sys@v0\.30\.0: missing go\.sum entry`), category: atesor.CategoryDependency},
}

// TestE2ECorpus injects the corpus's failures into real packages in the real sandbox and
// checks the extracted first line of each live log. With ATESOR_BUILDLOG_CORPUS=dir it
// writes each raw log there, which is how testdata/corpus was gathered (then trimmed).
func TestE2ECorpus(t *testing.T) {
	e2e.Long(t)
	e2e.Root(t)
	only := os.Getenv("ATESOR_BUILDLOG_CASES") // a regexp of case names, for a partial run
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Minute)
	defer cancel()
	p, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	if err := sandbox.SetupBinfmt(); err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.NewRootfs(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	run := func(line, dir string, network bool) atesor.CommandResult {
		t.Helper()
		start := time.Now()
		res, err := sb.Exec(ctx, atesor.Command{Line: line, Dir: dir, Network: network, Timeout: 30 * time.Minute})
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		t.Logf("%s (in %s): exit %d, %s", line, dir, res.ExitCode, time.Since(start).Round(time.Second))
		return res
	}
	if res := run("apt-get install -y --no-install-recommends cmake ninja-build meson golang-go", "/", true); !res.OK() {
		t.Fatalf("install tools:\n%s", res.Output)
	}
	outDir := os.Getenv("ATESOR_BUILDLOG_CORPUS")
	for _, c := range liveCases {
		if only != "" && !regexp.MustCompile(only).MatchString(c.name) {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			dir := "/workspace/" + c.name
			if err := sb.CopyIn(ctx, debiantest.SourceTarball(t, c.pkg, c.file), dir); err != nil {
				t.Fatal(err)
			}
			for _, s := range c.setup {
				if res := run(s, dir, true); !res.OK() {
					t.Fatalf("setup %q failed:\n%s", s, res.Output)
				}
			}
			res := run(c.fail, dir, false)
			if res.OK() {
				t.Fatalf("%q succeeded; the injected failure did not happen:\n%s", c.fail, res.Output)
			}
			if outDir != "" {
				hdr := fmt.Sprintf("# %s: %s in %s, exit %d\n", c.name, c.fail, c.file, res.ExitCode)
				if err := os.WriteFile(filepath.Join(outDir, c.name+".raw"), []byte(hdr+res.Output), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ev := buildlog.Extract(res.Output)
			if !c.first.MatchString(ev.Diagnostic) {
				t.Errorf("first line %q does not match %s\n%s", ev.Diagnostic, c.first, ev.Text)
			}
			if got := ev.Category(); got != c.category {
				t.Errorf("category %s, want %s", got, c.category)
			}
		})
	}
}

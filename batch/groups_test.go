package batch

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

func TestNormalizeError(t *testing.T) {
	for _, c := range []struct {
		name, line, pkg, want string
	}{
		{"cmake missing subdirectory",
			`CMake Error at CMakeLists.txt:87 (add_subdirectory): add_subdirectory given source "third_party/googletest" which is not an existing directory.`, "cctz",
			`CMake Error at CMakeLists.txt:N (add_subdirectory): add_subdirectory given source "<path>" which is not an existing directory.`},
		{"sub-word atomics, size reduced",
			"/usr/bin/ld: libfoo.so.1.2.3: undefined reference to `__atomic_compare_exchange_1'", "foo",
			"<path>: lib<pkg>.so.N.N.N: undefined reference to `__atomic_compare_exchange_N'"},
		{"compiler error with the package's path",
			"/workspace/json-c/json_object.c:1024:5: error: implicit declaration of function 'foo' [-Wimplicit-function-declaration]", "json-c",
			"<path>:N:N: error: implicit declaration of function 'foo' [-Wimplicit-function-declaration]"},
		{"package name in any case", "configure: error: LibOgg 1.3 needs pkg-config", "libogg",
			"configure: error: <pkg> N.N needs pkg-config"},
		{"hash and address", "fatal: bad object 3f2a9c1d0e7b4a55 at 0x7ffd1234", "",
			"fatal: bad object N at N"},
		{"only the first line, spaces collapsed", "  make[2]: ***   [Makefile:12: all]   Error 1\nmore", "",
			"make: *** [Makefile:N: all] Error N"},
		{"empty", " \n", "x", noErrorLine},
		{"quoted file names fold like paths", "make[1]: *** No rule to make target 'cryptoUtils.c', needed by 'cryptoUtils.lo'.  Stop.", "bzrtp",
			"make: *** No rule to make target '<path>', needed by '<path>'. Stop."},
		{"quoted word without an extension stays", "error: implicit declaration of function `strlcpy'; did you mean 'strncpy'?", "",
			"error: implicit declaration of function `strlcpy'; did you mean 'strncpy'?"},
		{"typographic quotes", "fatal error: ‘zlib.h’ file not found", "", "fatal error: ‘<path>’ file not found"},
		{"relative paths", "./configure: line 3: ../build-aux/config.sub: not found", "",
			"<path>: line N: <path>: not found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := NormalizeError(c.line, c.pkg); got != c.want {
				t.Errorf("NormalizeError(%q, %q)\n got %q\nwant %q", c.line, c.pkg, got, c.want)
			}
		})
	}
}

func TestGroupFailures(t *testing.T) {
	missing := func(pkg, dir string) string {
		return `CMake Error at /workspace/` + pkg + `/CMakeLists.txt:` + dir + ` (add_subdirectory): add_subdirectory given source "third_party/` + pkg + `" which is not an existing directory.`
	}
	recs := []Record{
		{Name: "ok", Status: atesor.StatusVerified, Verified: true},
		{Name: "cctz", Status: atesor.StatusEscalated, FailureClass: atesor.FailureBuild, FirstError: missing("cctz", "87")},
		{Name: "yaml-cpp", Status: atesor.StatusEscalated, FailureClass: atesor.FailureBuild, FirstError: missing("yaml-cpp", "140")},
		{Name: "lmdb", Status: atesor.StatusEscalated, FailureClass: atesor.FailureBuild, FirstError: "make: *** No targets specified and no makefile found.  Stop."},
		// The same line in another class is another group.
		{Name: "zzz", Status: atesor.StatusEscalated, FailureClass: atesor.FailureVerify, FirstError: "make: *** No targets specified and no makefile found.  Stop."},
		// Without an extracted error the port's own error, then the reason, stand in.
		{Name: "nosuch", Status: atesor.StatusFailed, FailureClass: atesor.FailureSetup, Error: "debsrc: source package nosuch is not in the trixie Sources index"},
		{Name: "slow", Status: atesor.StatusTestsFailing, Reason: "3 of 40 tests failed\nmore"},
		{Name: "mute", Status: atesor.StatusEscalated, FailureClass: atesor.FailureBuild},
	}
	// make's "No rule to make target" of three packages (the sixth held-back round's
	// adplug, unace and bzrtp, as their builds printed it) is one mechanism: one group.
	noRule := map[string]string{
		"adplug": "make: *** No rule to make target 'doc/libadplug.texi', needed by 'doc/libadplug.info'.  Stop.",
		"unace":  "make: *** No rule to make target 'globals.c', needed by 'globals.o'.  Stop.",
		"bzrtp":  "make[1]: *** No rule to make target 'cryptoUtils.c', needed by 'cryptoUtils.lo'.  Stop.",
	}
	for _, name := range []string{"adplug", "unace", "bzrtp"} {
		recs = append(recs, Record{Name: name, Status: atesor.StatusEscalated, FailureClass: atesor.FailureBuild, FirstError: noRule[name]})
	}
	got := GroupFailures(recs)
	want := []FailureGroup{
		{Class: "build", Error: "make: *** No rule to make target '<path>', needed by '<path>'. Stop.",
			Example: noRule["adplug"], Count: 3, Packages: []string{"adplug", "bzrtp", "unace"}},
		{Class: "build", Error: `CMake Error at <path>:N (add_subdirectory): add_subdirectory given source "<path>" which is not an existing directory.`,
			Example: missing("cctz", "87"), Count: 2, Packages: []string{"cctz", "yaml-cpp"}},
		{Class: "build", Error: noErrorLine, Example: "", Count: 1, Packages: []string{"mute"}},
		{Class: "build", Error: "make: *** No targets specified and no makefile found. Stop.",
			Example: "make: *** No targets specified and no makefile found.  Stop.", Count: 1, Packages: []string{"lmdb"}},
		{Class: "setup", Error: "debsrc: source package <pkg> is not in the trixie Sources index",
			Example: "debsrc: source package nosuch is not in the trixie Sources index", Count: 1, Packages: []string{"nosuch"}},
		{Class: "tests", Error: "N of N tests failed", Example: "3 of 40 tests failed", Count: 1, Packages: []string{"slow"}},
		{Class: "verify", Error: "make: *** No targets specified and no makefile found. Stop.",
			Example: "make: *** No targets specified and no makefile found.  Stop.", Count: 1, Packages: []string{"zzz"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("groups (-want +got):\n%s", d)
	}
	md := Markdown(Summarize([]string{"ok", "cctz", "yaml-cpp", "lmdb"}, map[string]Record{
		"ok": recs[0], "cctz": recs[1], "yaml-cpp": recs[2], "lmdb": recs[3]}))
	if !strings.Contains(md, "## Failures by error") || !strings.Contains(md, "| 2 | build | ") || !strings.Contains(md, "| cctz, yaml-cpp |") {
		t.Errorf("markdown lacks the failure groups:\n%s", md)
	}
}

// TestGroupLineBounded checks that a long first line (a whole compiler command) is cut
// on a character boundary in both the key and the example.
func TestGroupLineBounded(t *testing.T) {
	line := strings.Repeat("é", maxGroupLine) // two bytes each: a cut falls inside one
	g := GroupFailures([]Record{{Name: "p", Status: atesor.StatusEscalated, FailureClass: atesor.FailureBuild, FirstError: line}})
	if len(g) != 1 || len(g[0].Error) > maxGroupLine || !utf8.ValidString(g[0].Error) || !utf8.ValidString(g[0].Example) || !strings.HasSuffix(g[0].Example, "…") {
		t.Errorf("group of a long line: %+v", g)
	}
}

package buildlog_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go/buildlog"
)

// FuzzExtract feeds the extractor arbitrary output: it never panics, and its result is
// always one trimmed first line that heads a text of at most MaxChars valid UTF-8 bytes.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"", "\n", "make: *** [Makefile:1: a.o] Error 1",
		"In file included from a.h:1,\n                 from a.c:1:\nb.h:2:3: error: x\nmake: *** [a.o] Error 1",
		"FAILED: a.o\ncc -c a.c\na.c:1:1: error: y\nninja: build stopped: subcommand failed.",
		"CMake Error at CMakeLists.txt:1 (project):\n  msg\n\n-- Configuring incomplete, errors occurred!",
		"CMake Error at x:1 (y):\n", "configure: error: in `/a':\nconfigure: error: no\n",
		"\x1b[31merror\x1b[0m: z\r\n", "go: go.mod requires go >= 1.99\n", "\xff\xfe error: \xc3",
	} {
		f.Add(s)
	}
	logs, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.log"))
	for _, p := range logs {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, log string) {
		ev := buildlog.Extract(log)
		checkEvidence(t, ev)
		_ = ev.Category()
		if ev.Line < 0 || ev.Line > strings.Count(log, "\n")+1 {
			t.Errorf("Line %d outside the output", ev.Line)
		}
	})
}

// FuzzSerial: the serial form of any line builds with one job, and Serial never turns a
// line without job flags into one with a different command.
func FuzzSerial(f *testing.F) {
	for _, s := range []string{"make -j4", "ninja -C b", "cmake --build b -- -k", "meson compile && x", "make -j", "--jobs", "-j'", "a;ninja|b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		s, ok := buildlog.Serial(line)
		if !ok {
			if s != line {
				t.Errorf("Serial(%q) = %q, false: changed a line it did not rewrite", line, s)
			}
			return
		}
		if buildlog.Parallel(s, "") {
			t.Errorf("Serial(%q) = %q still builds in parallel", line, s)
		}
	})
}

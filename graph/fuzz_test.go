package graph

import (
	"strings"
	"testing"
)

// FuzzExtractError: any build output gives a bounded, non-empty error whose first line
// comes from the output.
func FuzzExtractError(f *testing.F) {
	f.Add(m64Error)
	f.Add("")
	f.Add("warning: x\nerror: y\n")
	f.Fuzz(func(t *testing.T, out string) {
		msg := extractError(out)
		if msg == "" || len(msg) > maxErrorChars {
			t.Fatalf("extractError gave %d bytes", len(msg))
		}
	})
}

// FuzzRecipeCommands: a recipe someone edited never panics the parser, and what comes
// back has no comment or empty line.
func FuzzRecipeCommands(f *testing.F) {
	f.Add("## Commands\n\n```atesor-commands\n./configure\n# patch -p1 < x\nmake\n```\n")
	f.Add("```atesor-commands\n")
	f.Fuzz(func(t *testing.T, md string) {
		cmds, err := RecipeCommands(md)
		if err != nil {
			return
		}
		for _, c := range cmds {
			if c == "" || strings.HasPrefix(c, "#") || strings.Contains(c, "\n") {
				t.Fatalf("bad command %q", c)
			}
		}
	})
}

// FuzzPackageName: any source gives a name safe as a file prefix.
func FuzzPackageName(f *testing.F) {
	f.Add("/src/zlib_1.3.dfsg+really1.3.1.orig.tar.gz")
	f.Add("git@host:a/b.git")
	f.Add("https://example.org/x-1.0.tar.xz?x=1#y")
	f.Fuzz(func(t *testing.T, src string) {
		name := PackageName(src)
		if name == "" || strings.ContainsAny(name, "/\\ \n\x00") || name == "." || name == ".." {
			t.Fatalf("PackageName(%q) = %q", src, name)
		}
		_ = KindOf(src)
	})
}

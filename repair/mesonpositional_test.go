package repair

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMesonPositionalRule runs the rule on the real meson output of Debian's
// nautilus-sendto 3.8.6 (src/meson.build:10 calls i18n.merge_file('appdata', ...),
// which meson 1.x refuses) with its real src/meson.build.
func TestMesonPositionalRule(t *testing.T) {
	real := readLog(t, "meson/nautilus-sendto-src.meson.build")
	tests := []struct {
		name    string
		log     string
		file    string
		want    string // a line of the diff
		wantArg string
		none    string
	}{
		{name: "nautilus-sendto: i18n.merge_file's name", log: readLog(t, "meson-positional-nautilus-sendto.log"), file: real,
			want: "+i18n.merge_file (\n", wantArg: `"appdata"`},
		{name: "the argument on a line of its own", log: "meson.build:2:5: ERROR: Function does not take positional arguments.\n",
			file: "x = 1\ni18n.merge_file(\n  'name', # old\n  input: 'a.in',\n  output: 'a')\n", want: "-  'name', # old\n+  # old\n", wantArg: `"name"`},
		{name: "two positional strings", log: "meson.build:1:5: ERROR: Function does not take positional arguments.\n",
			file: "i18n.merge_file('a', 'b', input: 'x', output: 'y')\n", want: "+i18n.merge_file(input: 'x', output: 'y')\n", wantArg: `"a", "b"`},
		{name: "older meson's wording", log: "meson.build:1:5: ERROR: i18n.merge_file does not take any positional arguments.\n",
			file: "i18n.merge_file('a', input: 'x', output: 'y')\n", want: "+i18n.merge_file(input: 'x', output: 'y')\n", wantArg: `"a"`},
		{name: "a variable as positional argument: no fix", log: "meson.build:1:5: ERROR: Function does not take positional arguments.\n",
			file: "i18n.merge_file(name, input: 'x', output: 'y')\n", none: "not a string literal"},
		{name: "no call at the column: no fix", log: "meson.build:1:0: ERROR: Function does not take positional arguments.\n",
			file: "  i18n.merge_file('a')\n", none: "no function name at the error's column"},
		{name: "only keyword arguments: no fix", log: "meson.build:1:5: ERROR: Function does not take positional arguments.\n",
			file: "i18n.merge_file(input: 'x')\n", none: "no positional argument to remove"},
		{name: "a file outside the tree: no fix", log: "/usr/share/x/meson.build:1:5: ERROR: Function does not take positional arguments.\n",
			none: "not in the package's tree"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := buildFailure(t, tt.log, "meson setup builddir && ninja -C builddir")
			if claims := Claims(f, nil); !slices.Contains(claims, "meson-positional-removed") {
				t.Fatalf("claims %v", claims)
			}
			tree := memTree{}
			rel := "src/meson.build"
			if !strings.HasPrefix(tt.log, "src/") {
				rel = "meson.build"
			}
			if tt.file != "" {
				tree[rel] = tt.file
			}
			fix, why := makeMesonPositional(context.Background(), f, Env{Files: tree.files(), ReadFile: tree.read})
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			if len(fix.Actions) != 1 || fix.Actions[0].File != rel {
				t.Fatalf("actions %+v", fix.Actions)
			}
			if d := fix.Actions[0].Diff; !strings.Contains(d, tt.want) {
				t.Errorf("diff:\n%s\nwant it to hold:\n%s", d, tt.want)
			}
			if !strings.Contains(fix.Analysis, tt.wantArg) {
				t.Errorf("analysis %q does not name %s", fix.Analysis, tt.wantArg)
			}
		})
	}
}

// TestMesonPositionalPatchApplies: patch(1) applies the recorded edit to the real file,
// and the result has the call without its positional argument.
func TestMesonPositionalPatchApplies(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch(1) is not installed")
	}
	real := readLog(t, "meson/nautilus-sendto-src.meson.build")
	tree := memTree{"src/meson.build": real}
	f := buildFailure(t, readLog(t, "meson-positional-nautilus-sendto.log"), "meson setup builddir && ninja -C builddir")
	fix, why := makeMesonPositional(context.Background(), f, Env{Files: tree.files(), ReadFile: tree.read})
	if fix == nil {
		t.Fatal(why)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "src/meson.build"), []byte(real), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("patch", "-p1", "--batch")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(fix.Actions[0].Diff)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("patch: %v\n%s", err, out)
	}
	got, err := os.ReadFile(filepath.Join(dir, "src/meson.build"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "('appdata'") || !strings.Contains(string(got), "input: 'nautilus-sendto.metainfo.xml.in'") {
		t.Errorf("patched file:\n%s", got)
	}
}

// FuzzMesonPositional: the meson.build and the error's position are the package's.
func FuzzMesonPositional(f *testing.F) {
	f.Add("i18n.merge_file('a', input: 'x')\n", 1, 5)
	f.Add("x(\n'a'\n,\n'b')", 1, 0)
	f.Fuzz(func(t *testing.T, src string, line, col int) {
		name, open, why := mesonCallAt(src, line, col)
		if why != "" {
			return
		}
		if name == "" || open < 0 || open >= len(src) || src[open] != '(' {
			t.Fatalf("mesonCallAt(%q, %d, %d) = %q, %d", src, line, col, name, open)
		}
		spans, _, why := positionalSpans(src, open)
		if why != "" {
			return
		}
		next := removeSpans(src, spans)
		if strings.Count(next, "\n") != strings.Count(src, "\n") {
			t.Fatalf("removeSpans changed the line count of %q: %q", src, next)
		}
	})
}

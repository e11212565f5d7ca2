package repair

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// xercesDefs is where trixie's libxerces-c-dev declares the unversioned alias of its
// versioned namespace.
const xercesDefs = "/usr/include/xercesc/util/XercesDefs.hpp"

// headersDeclare is a NamespaceFunc over fixed declarations, recording the bases asked.
func headersDeclare(asked *[]string, decls ...Namespace) NamespaceFunc {
	return func(_ context.Context, bases []string) ([]Namespace, error) {
		*asked = append(*asked, bases...)
		return slices.DeleteFunc(slices.Clone(decls), func(n Namespace) bool { return !slices.Contains(bases, namespaceBaseOf(n.Name)) }), nil
	}
}

// TestCxxNamespacePktanon runs the rule on the real second build of Debian's pktanon
// (ConfigSAXParser.cpp names xercesc_3_1; trixie installs Xerces-C 3.2) and that
// tarball's file: its one use becomes the alias xercesc the headers declare, as a
// recorded patch that patch(1) applies.
func TestCxxNamespacePktanon(t *testing.T) {
	out := readLog(t, "cxx-versioned-namespace-pktanon.log")
	f := Failure{Category: atesor.ClassifyError(out), Message: strings.TrimSpace(out), Output: out, Phase: "build", Packaged: true}
	claims := Claims(f, nil)
	if len(claims) == 0 || claims[0] != "cxx-versioned-namespace" {
		t.Fatalf("claims %v: want cxx-versioned-namespace first", claims)
	}
	src, err := os.ReadFile("testdata/cxxns/pktanon/libpktanon/ConfigSAXParser.cpp")
	if err != nil {
		t.Fatal(err)
	}
	tree := memTree{"libpktanon/ConfigSAXParser.cpp": string(src), "libpktanon/ConfigSAXParser.h": "#include <string>\n",
		"src/main.cpp": "int main() {}\n", "configure.ac": "AC_INIT\n"}
	var asked []string
	env := Env{Files: tree.files(), ReadFile: tree.read,
		Namespaces: headersDeclare(&asked, Namespace{Name: "xercesc", Alias: true, Header: xercesDefs})}
	fix, why := makeCxxNamespace(context.Background(), f, env)
	if fix == nil {
		t.Fatalf("no fix: %s", why)
	}
	if !slices.Equal(asked, []string{"xercesc"}) {
		t.Errorf("asked the headers for %q, want xercesc", asked)
	}
	line := "void ConfigParserHandler::startElement ( const XMLCh* const uri, const XMLCh* const localname, const XMLCh* const qname, const %s::Attributes& attrs )"
	want := []atesor.Action{{Type: atesor.ActionPatch, File: "libpktanon/ConfigSAXParser.cpp", Diff: "--- a/libpktanon/ConfigSAXParser.cpp\n+++ b/libpktanon/ConfigSAXParser.cpp\n" +
		"@@ -71 +71 @@\n-" + strings.Replace(line, "%s", "xercesc_3_1", 1) + "\n+" + strings.Replace(line, "%s", "xercesc", 1) + "\n"}}
	if d := cmp.Diff(want, fix.Actions); d != "" {
		t.Errorf("actions (-want +got):\n%s", d)
	}
	for _, s := range []string{"xercesc_3_1 is not declared", xercesDefs, "the alias xercesc"} {
		if !strings.Contains(fix.Analysis, s) {
			t.Errorf("analysis %q lacks %q", fix.Analysis, s)
		}
	}
	if fix.Strategy != "replace xercesc_3_1 with xercesc in libpktanon/ConfigSAXParser.cpp" {
		t.Errorf("strategy %q", fix.Strategy)
	}
	if err := check(fix, "/workspace/pktanon"); err != nil {
		t.Errorf("the fix does not validate: %v", err)
	}
	got := applyPatch(t, "libpktanon/ConfigSAXParser.cpp", string(src), fix.Actions[0].Diff, strings.Replace(line, "%s", "xercesc", 1))
	if strings.Contains(got, "xercesc_3_1") || strings.Count(got, "xercesc::") != strings.Count(string(src), "xercesc::")+1 {
		t.Errorf("patched file still names xercesc_3_1 or lost a use:\n%s", got)
	}
}

// TestCxxNamespace covers the choices: the alias before a version, the one installed
// version when there is no alias, every file of the tree that uses the name (only
// where it is a namespace), Clang's wording, and the refusals.
func TestCxxNamespace(t *testing.T) {
	gcc := "src/a.cpp:3:7: error: ‘icu_58’ has not been declared\n"
	tests := []struct {
		name    string
		message string
		tree    memTree
		decls   []Namespace
		err     error
		want    map[string]string // file: the diff's -/+ lines
		none    string
	}{
		{name: "the alias is preferred to the version", message: gcc,
			tree:  memTree{"src/a.cpp": "#include <unicode/uchar.h>\nint x;\nicu_58::UnicodeString s;\n"},
			decls: []Namespace{{Name: "icu_74", Header: "/usr/include/unicode/uversion.h"}, {Name: "icu", Alias: true, Header: "/usr/include/unicode/uversion.h"}},
			want:  map[string]string{"src/a.cpp": "-icu_58::UnicodeString s;\n+icu::UnicodeString s;\n"}},
		{name: "no alias: the one installed version", message: gcc,
			tree:  memTree{"src/a.cpp": "icu_58 :: UnicodeString s;\n"},
			decls: []Namespace{{Name: "icu_74", Header: "/usr/include/unicode/uversion.h"}},
			want:  map[string]string{"src/a.cpp": "-icu_58 :: UnicodeString s;\n+icu_74 :: UnicodeString s;\n"}},
		{name: "other files of the tree, namespace uses only", message: gcc,
			tree: memTree{"src/a.cpp": "using namespace icu_58;\nnamespace u = icu_58;\n", "include/b.h": "int icu_58 = 1; // icu_58::X\n",
				"docs/notes.txt": "icu_58::X\n", "src/c.cc": "int y;\n"},
			decls: []Namespace{{Name: "icu", Header: "/usr/include/unicode/uversion.h"}},
			want: map[string]string{"src/a.cpp": "-using namespace icu_58;\n-namespace u = icu_58;\n+using namespace icu;\n+namespace u = icu;\n",
				"include/b.h": "-int icu_58 = 1; // icu_58::X\n+int icu_58 = 1; // icu::X\n"}},
		{name: "clang", message: "/workspace/p/lib/x.cpp:9:3: error: use of undeclared identifier 'xercesc_3_1'\n",
			tree:  memTree{"lib/x.cpp": "const xercesc_3_1::Attributes& a;\n"},
			decls: []Namespace{{Name: "xercesc", Alias: true, Header: xercesDefs}},
			want:  map[string]string{"lib/x.cpp": "-const xercesc_3_1::Attributes& a;\n+const xercesc::Attributes& a;\n"}},
		{name: "no header declares the base", message: gcc, tree: memTree{"src/a.cpp": "icu_58::X x;\n"},
			none: "no installed header declares a namespace icu"},
		{name: "the headers declare the name itself", message: gcc, tree: memTree{"src/a.cpp": "icu_58::X x;\n"},
			decls: []Namespace{{Name: "icu_58", Header: "/usr/include/unicode/uversion.h"}}, none: "not a version change"},
		{name: "several versions and no alias", message: gcc, tree: memTree{"src/a.cpp": "icu_58::X x;\n"},
			decls: []Namespace{{Name: "icu_72", Header: "/a.h"}, {Name: "icu_74", Header: "/b.h"}}, none: "several versions of icu (icu_72, icu_74)"},
		{name: "not used as a namespace", message: gcc, tree: memTree{"src/a.cpp": "int v = icu_58;\n"},
			decls: []Namespace{{Name: "icu", Header: "/usr/include/unicode/uversion.h"}}, none: "no use of the name as a namespace"},
		{name: "a file outside the tree", message: "/usr/include/x/y.h:1:1: error: ‘icu_58’ does not name a type\n",
			tree: memTree{"src/a.cpp": "icu_58::X x;\n"}, decls: []Namespace{{Name: "icu", Header: "/h"}}, none: "in a file of the package's tree"},
		{name: "the search fails", message: gcc, tree: memTree{"src/a.cpp": "icu_58::X x;\n"}, err: errors.New("grep: broken"),
			none: "could not be searched: grep: broken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Failure{Category: atesor.CategoryCompilation, Message: tt.message, Phase: "build"}
			if !cxxNamespaceRule().claims(f) {
				t.Fatal("the rule does not claim the failure")
			}
			var asked []string
			find := headersDeclare(&asked, tt.decls...)
			if tt.err != nil {
				find = func(context.Context, []string) ([]Namespace, error) { return nil, tt.err }
			}
			fix, why := makeCxxNamespace(context.Background(), f, Env{Files: tt.tree.files(), ReadFile: tt.tree.read, Namespaces: find})
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			got := map[string]string{}
			for _, a := range fix.Actions {
				var body []string
				for _, l := range strings.SplitAfter(a.Diff, "\n") {
					if strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---") || strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++") {
						body = append(body, l)
					}
				}
				// A file's removed lines come before its added ones once sorted by sign.
				slices.SortStableFunc(body, func(a, b string) int { return strings.Compare(b[:1], a[:1]) })
				got[a.File] = strings.Join(body, "")
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("edits (-want +got):\n%s", d)
			}
			if err := check(fix, "/workspace/p"); err != nil {
				t.Errorf("the fix does not validate: %v", err)
			}
		})
	}
	// Without the header search or the sources there is no fix.
	f := Failure{Category: atesor.CategoryCompilation, Message: gcc, Phase: "build"}
	tree := memTree{"src/a.cpp": "icu_58::X x;\n"}
	if fix, why := makeCxxNamespace(context.Background(), f, Env{Files: tree.files(), ReadFile: tree.read}); fix != nil || !strings.Contains(why, "cannot be searched") {
		t.Errorf("no header search: fix %+v, %q", fix, why)
	}
	// A plain undeclared type is not claimed: no version suffix.
	if cxxNamespaceRule().claims(Failure{Category: atesor.CategoryCompilation, Message: "a.cpp:1:1: error: ‘Foo’ does not name a type", Phase: "build"}) {
		t.Error("claims an undeclared name without a version")
	}
}

// TestParseNamespaces: only declarations below the include roots, of the asked bases,
// each name once, aliases told apart.
func TestParseNamespaces(t *testing.T) {
	out := xercesDefs + ":namespace XERCES_CPP_NAMESPACE {\n" +
		xercesDefs + ":namespace xercesc =\n" +
		"/usr/include/other/x.hpp:namespace xercesc =\n" +
		"/usr/include/unicode/uversion.h:namespace icu_74 {\n" +
		"/usr/include/unicode/x.h:namespace icu_74\n" +
		"/usr/include/boost/a.hpp:namespace boost_1 {\n" +
		"/tmp/evil.h:namespace icu {\n" +
		"/usr/include/../tmp/x.h:namespace icu {\n" +
		"garbage\n"
	got := parseNamespaces(out, includeRoots, []string{"xercesc", "icu"})
	want := []Namespace{{Name: "xercesc", Alias: true, Header: xercesDefs}, {Name: "icu_74", Header: "/usr/include/unicode/uversion.h"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("namespaces (-want +got):\n%s", d)
	}
}

// TestSandboxNamespaces: a base that could carry shell syntax never reaches a command
// line; the search runs without network; grep's "nothing found" is no error, any other
// failure is.
func TestSandboxNamespaces(t *testing.T) {
	p := debian(t)
	sb := sandboxtest.New(t, p)
	find := SandboxNamespaces(sb, []string{"SOURCE_DATE_EPOCH=1"})
	for _, b := range []string{"x|y", "a'b", "$(id)", "", "1abc", "a b", "a.*"} {
		if _, err := find(context.Background(), []string{b}); err == nil {
			t.Errorf("base %q: no error", b)
		}
	}
	if lines := sb.Lines(); len(lines) != 0 {
		t.Fatalf("commands ran: %q", lines)
	}
	sb.OnPrefix("grep ", sandboxtest.OK(xercesDefs+":namespace xercesc =\n"))
	got, err := find(context.Background(), []string{"xercesc"})
	if err != nil || len(got) != 1 || got[0].Name != "xercesc" || !got[0].Alias {
		t.Errorf("found %+v, %v", got, err)
	}
	cmds := sb.Commands()
	if len(cmds) != 1 || cmds[0].Network || !slices.Contains(cmds[0].Env, "SOURCE_DATE_EPOCH=1") {
		t.Errorf("commands %+v", cmds)
	}
	none := sandboxtest.New(t, p)
	none.OnPrefix("grep ", sandboxtest.Fail(1, ""))
	if got, err := SandboxNamespaces(none, nil)(context.Background(), []string{"icu"}); err != nil || len(got) != 0 {
		t.Errorf("nothing found: %+v, %v", got, err)
	}
	bad := sandboxtest.New(t, p)
	bad.OnPrefix("grep ", sandboxtest.Fail(2, "grep: broken"))
	if _, err := SandboxNamespaces(bad, nil)(context.Background(), []string{"icu"}); err == nil {
		t.Error("a failed search: no error")
	}
}

// TestNamespacesScriptOnHost runs the search's grep on this machine over a directory of
// headers written the ways libraries declare namespaces: the alias of a macro'd
// namespace, a brace on the next line, a versioned name, and a file that is no header.
func TestNamespacesScriptOnHost(t *testing.T) {
	if _, err := exec.LookPath("grep"); err != nil {
		t.Skip("no grep on this machine")
	}
	root := t.TempDir()
	files := map[string]string{
		"xercesc/util/XercesDefs.hpp": "#if defined(XERCES_HAS_CPP_NAMESPACE)\n    namespace XERCES_CPP_NAMESPACE { }\n    namespace xercesc = XERCES_CPP_NAMESPACE;\n#endif\n",
		"unicode/uversion.h":          "namespace icu_74\n{\n}\nnamespace iculess {}\n",
		"unicode/notes.txt":           "namespace icu {\n",
	}
	for rel, content := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h, err := sandbox.NewHost(atesor.Platform{}, sandbox.WithWorkdir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	bases := []string{"xercesc", "icu"}
	res, err := h.Exec(context.Background(), atesor.Command{Line: namespacesScript([]string{root}, bases), Dir: "/"})
	if err != nil {
		t.Fatal(err)
	}
	got := parseNamespaces(res.Stdout, []string{root}, bases)
	slices.SortFunc(got, func(a, b Namespace) int { return strings.Compare(a.Name, b.Name) })
	want := []Namespace{{Name: "icu_74", Header: filepath.Join(root, "unicode/uversion.h")},
		{Name: "xercesc", Alias: true, Header: filepath.Join(root, "xercesc/util/XercesDefs.hpp")}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("namespaces (-want +got):\n%s\noutput:\n%s", d, res.Stdout)
	}
}

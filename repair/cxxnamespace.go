package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
)

// Some C++ libraries put their API in a namespace named after their version (Xerces-C's
// xercesc_3_2, ICU's icu_74) and declare an unversioned alias for users (namespace
// xercesc = XERCES_CPP_NAMESPACE;, namespace icu = U_ICU_NAMESPACE;). Code that wrote
// the versioned name stops compiling when the distribution moves to the next version
// (Debian's pktanon: "ConfigSAXParser.cpp:71:128: error: ‘xercesc_3_1’ does not name a
// type" against trixie's Xerces-C 3.2). A porter writes the alias instead, or the
// installed version when the headers declare no alias; the rule makes that edit.
var (
	// cxxNamespaceError is GCC's or Clang's report of an undeclared name with a version
	// suffix (_3_1, _58), with the file it names, the name's base and its suffix.
	cxxNamespaceError = re(`(?m)^(\S+\.(?:h|hh|hpp|hxx|h\+\+|ipp|tcc|inl|c|cc|cpp|cxx|c\+\+|C)):\d+:\d+: (?:fatal )?error: ` +
		`(?:['‘]([A-Za-z_][A-Za-z0-9_]*?)((?:_[0-9]+)+)['’] (?:does not name a type|has not been declared|is not a namespace-name|` +
		`was not declared in this scope|is not a class, namespace, or enumeration)` +
		`|use of undeclared identifier '([A-Za-z_][A-Za-z0-9_]*?)((?:_[0-9]+)+)')`)
	// namespaceBase is a name the header search takes: an identifier, no shell syntax.
	namespaceBase = re(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)
	// namespaceDecl is a declaration the header search prints: the namespace's name and,
	// for an alias, the "=".
	namespaceDecl = re(`^namespace\s+([A-Za-z_][A-Za-z0-9_]*)\s*(=|\{)?\s*$`)
)

// Bounds of the rule: how many files it reads looking for other uses of the versioned
// name, and how many it edits.
const (
	maxNamespaceScan  = 400
	maxNamespaceFiles = 16
)

// Namespace is a C++ namespace an installed header declares.
type Namespace struct {
	// Name is the namespace's name (xercesc, xercesc_3_2).
	Name string
	// Alias is true for a namespace alias (namespace xercesc = XERCES_CPP_NAMESPACE;).
	Alias bool
	// Header is the absolute path of a header that declares it.
	Header string
}

// NamespaceFunc lists the namespaces the installed headers declare whose name is one of
// the bases or a base with a version suffix (xercesc, xercesc_3_2 for xercesc).
type NamespaceFunc func(ctx context.Context, bases []string) ([]Namespace, error)

// SandboxNamespaces is the [NamespaceFunc] of a sandbox: a fixed grep of the C++
// headers below the include roots, without network, with env as the commands'
// environment. The bases are checked before they reach a command line.
func SandboxNamespaces(sb atesor.Sandbox, env []string) NamespaceFunc {
	return func(ctx context.Context, bases []string) ([]Namespace, error) {
		if len(bases) == 0 {
			return nil, nil
		}
		for _, b := range bases {
			if !namespaceBase.MatchString(b) {
				return nil, fmt.Errorf("%q is not a namespace name the search takes", b)
			}
		}
		res, err := sb.Exec(ctx, atesor.Command{Line: namespacesScript(includeRoots, bases), Dir: "/", Env: env, Timeout: 5 * time.Minute})
		if err != nil {
			return nil, fmt.Errorf("searching the installed headers: %w", err)
		}
		// grep exits 1 when it finds nothing: no declaration, not a failed search.
		if !res.OK() && res.ExitCode != 1 {
			return nil, fmt.Errorf("the header search exited %d: %s", res.ExitCode, strings.TrimSpace(excerpt.Tail(res.Stderr, 300)))
		}
		return parseNamespaces(res.Stdout, includeRoots, bases), nil
	}
}

// namespacesScript greps the C++ headers below roots for declarations of a base's
// namespace, versioned or not, and of an alias of that name, one "path:declaration" a
// line, bounded. A declaration whose brace is on the next line ends its line. The bases
// must match namespaceBase.
func namespacesScript(roots, bases []string) string {
	return fmt.Sprintf(`grep -rEo --include='*.h' --include='*.hh' --include='*.hpp' --include='*.hxx' --include='*.h++' --include='*.ipp' --include='*.tcc' `+
		`-e 'namespace[[:space:]]+(%s)(_[0-9]+)*[[:space:]]*(=|\{|$)' %s 2>/dev/null | head -n %d`,
		strings.Join(bases, "|"), strings.Join(roots, " "), locateMax)
}

// parseNamespaces reads namespacesScript's output: a namespace per name, the first
// header that declares it, only below roots and only of the bases.
func parseNamespaces(out string, roots, bases []string) []Namespace {
	var found []Namespace
	for _, line := range strings.Split(out, "\n") {
		file, decl, ok := strings.Cut(strings.TrimRight(line, "\r"), ":")
		if !ok || strings.Contains(file, "/../") || !slices.ContainsFunc(roots, func(r string) bool { return strings.HasPrefix(file, r+"/") }) {
			continue
		}
		m := namespaceDecl.FindStringSubmatch(strings.TrimSpace(decl))
		if m == nil || !slices.Contains(bases, namespaceBaseOf(m[1])) || slices.ContainsFunc(found, func(n Namespace) bool { return n.Name == m[1] }) {
			continue
		}
		found = append(found, Namespace{Name: m[1], Alias: m[2] == "=", Header: file})
	}
	return found
}

var namespaceVersion = re(`(?:_[0-9]+)+$`)

// namespaceBaseOf is a name without its version suffix: xercesc for xercesc_3_1.
func namespaceBaseOf(name string) string { return namespaceVersion.ReplaceAllString(name, "") }

func cxxNamespaceRule() Rule {
	return Rule{
		Name: "cxx-versioned-namespace",
		Doc: "C++ that names a library's versioned namespace (xercesc_3_1) where the installed headers declare another version: " +
			"the name replaced by the headers' unversioned alias (xercesc) or their version, in the files that use it",
		Categories: []atesor.ErrorCategory{atesor.CategoryCompilation, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{cxxNamespaceError},
		Make:       makeCxxNamespace,
	}
}

// versionedUse is a versioned name the errors report, and the files they name.
type versionedUse struct {
	name, base string
	files      []string
}

func makeCxxNamespace(ctx context.Context, f Failure, env Env) (*Fix, string) {
	switch {
	case env.ReadFile == nil:
		return nil, "the sources cannot be read"
	case env.Namespaces == nil:
		return nil, "the installed headers cannot be searched"
	}
	uses := versionedUses(f.text()+"\n"+f.Message, env.Files)
	if len(uses) == 0 {
		return nil, "the errors name no versioned name in a file of the package's tree"
	}
	bases := make([]string, 0, len(uses))
	for _, u := range uses {
		if !slices.Contains(bases, u.base) {
			bases = append(bases, u.base)
		}
	}
	declared, err := env.Namespaces(ctx, bases)
	if err != nil {
		return nil, fmt.Sprintf("the installed headers could not be searched: %v", err)
	}
	renames := map[string]string{}
	var why, found []string
	for _, u := range uses {
		to, from, reason := namespaceReplacement(u, declared)
		if reason != "" {
			why = append(why, reason)
			continue
		}
		renames[u.name] = to.Name
		kind := "the namespace " + to.Name
		if to.Alias {
			kind = "the alias " + to.Name
		}
		found = append(found, fmt.Sprintf("%s is not declared; %s declares %s%s", u.name, to.Header, kind, from))
	}
	if len(renames) == 0 {
		return nil, strings.Join(why, "; ")
	}
	actions, edited, notes := namespacePatches(ctx, env, uses, renames)
	if len(actions) == 0 {
		return nil, strings.Join(append(notes, "no file uses the versioned name as a namespace"), "; ")
	}
	var pairs []string
	for _, u := range uses {
		if to, ok := renames[u.name]; ok {
			pairs = append(pairs, u.name+" with "+to)
		}
	}
	return &Fix{
		Analysis: "The sources name a library's versioned C++ namespace the installed version does not declare: " + strings.Join(found, "; ") + ".",
		Strategy: "replace " + strings.Join(pairs, ", ") + " in " + strings.Join(edited, ", "),
		Actions:  actions,
	}, ""
}

// versionedUses are the versioned names the errors report in files of the tree, in the
// order reported, each with the files named.
func versionedUses(text string, files []string) []versionedUse {
	var uses []versionedUse
	for _, m := range cxxNamespaceError.FindAllStringSubmatch(text, 256) {
		base, suffix := m[2], m[3]
		if base == "" {
			base, suffix = m[4], m[5]
		}
		rel, ok := locateFile(files, m[1])
		if !ok {
			continue
		}
		i := slices.IndexFunc(uses, func(u versionedUse) bool { return u.name == base+suffix })
		if i < 0 {
			uses = append(uses, versionedUse{name: base + suffix, base: base})
			i = len(uses) - 1
		}
		if !slices.Contains(uses[i].files, rel) {
			uses[i].files = append(uses[i].files, rel)
		}
	}
	return uses
}

// namespaceReplacement picks what replaces a versioned name: the base's own namespace
// or alias when the headers declare one (it names whatever version is installed, now
// and after the next update), else the one other version they declare. from says which
// choice it was; why says why there is none.
func namespaceReplacement(u versionedUse, declared []Namespace) (to Namespace, from, why string) {
	var versions []Namespace
	for _, n := range declared {
		switch {
		case n.Name == u.name:
			return Namespace{}, "", fmt.Sprintf("the installed headers declare %s (%s): the error is not a version change", u.name, n.Header)
		case n.Name == u.base:
			to = n
		case namespaceBaseOf(n.Name) == u.base:
			versions = append(versions, n)
		}
	}
	switch {
	case to.Name != "":
		return to, ", the unversioned name", ""
	case len(versions) == 1:
		return versions[0], ", the installed version", ""
	case len(versions) > 1:
		names := make([]string, len(versions))
		for i, v := range versions {
			names[i] = v.Name
		}
		return Namespace{}, "", fmt.Sprintf("the installed headers declare several versions of %s (%s) and no unversioned alias", u.base, strings.Join(names, ", "))
	}
	return Namespace{}, "", fmt.Sprintf("no installed header declares a namespace %s or a version of it", u.base)
}

// namespacePatches are the patches that replace the renamed names where the sources
// use them as namespaces (X::, namespace X, using namespace X): the files the errors
// name first, then the tree's other C and C++ files, bounded. notes say which named
// files could not be read or edited.
func namespacePatches(ctx context.Context, env Env, uses []versionedUse, renames map[string]string) ([]atesor.Action, []string, []string) {
	var order []string
	for _, u := range uses {
		for _, rel := range u.files {
			if !slices.Contains(order, rel) {
				order = append(order, rel)
			}
		}
	}
	named := len(order)
	others := slices.Clone(env.Files)
	slices.Sort(others)
	for _, rel := range others {
		if len(order) >= maxNamespaceScan {
			break
		}
		if cxxSourceFile(rel) && !slices.Contains(order, rel) {
			order = append(order, rel)
		}
	}
	var pats []*regexp.Regexp
	var tos []string
	for _, u := range uses {
		if to, ok := renames[u.name]; ok {
			q := regexp.QuoteMeta(u.name)
			// The name as a namespace: before ::, or after the namespace keyword
			// (using namespace X; namespace a = X;). A variable that happens to share
			// the name is left alone.
			pats = append(pats, regexp.MustCompile(`(^|[^A-Za-z0-9_])(`+q+`)(\s*::)|(\bnamespace\s+(?:[A-Za-z_][A-Za-z0-9_]*\s*=\s*)?)(`+q+`)\b`))
			tos = append(tos, to)
		}
	}
	var actions []atesor.Action
	var edited, notes []string
	for i, rel := range order {
		if len(actions) == maxNamespaceFiles {
			break
		}
		b, err := env.ReadFile(ctx, rel)
		if err != nil {
			if i < named {
				notes = append(notes, fmt.Sprintf("%s: %v", rel, err))
			}
			continue
		}
		diff, ok := linesDiff(rel, string(b), false, func(_ int, body string) (string, bool) {
			n := body
			for j, p := range pats {
				n = p.ReplaceAllStringFunc(n, func(m string) string {
					s := p.FindStringSubmatch(m)
					if s[2] != "" {
						return s[1] + tos[j] + s[3]
					}
					return s[4] + tos[j]
				})
			}
			return n, n != body
		})
		if !ok {
			if i < named {
				notes = append(notes, rel+": no use of the name as a namespace")
			}
			continue
		}
		actions = append(actions, atesor.Action{Type: atesor.ActionPatch, File: rel, Diff: diff})
		edited = append(edited, rel)
	}
	return actions, edited, notes
}

// cxxSourceFile reports a C or C++ source or header by its name.
func cxxSourceFile(rel string) bool {
	switch path.Ext(rel) {
	case ".h", ".hh", ".hpp", ".hxx", ".h++", ".ipp", ".tcc", ".inl", ".c", ".cc", ".cpp", ".cxx", ".c++", ".C":
		return true
	}
	return false
}

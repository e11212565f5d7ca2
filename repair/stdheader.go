package repair

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// Newer libstdc++ releases include fewer of their own headers from the others, so C++
// that used std::runtime_error after <string> alone, or std::function after <memory>,
// stops compiling (Debian's pktanon: "Params.h:45:37: error: ‘runtime_error’ is not a
// member of ‘std’"). GCC knows which standard header declares the name and says so in a
// note; upstreams fixed it by including that header, and the rule makes that edit.
var (
	// stdHeaderNote is GCC's note naming the standard header a name needs, with the file
	// the note is about and the header.
	stdHeaderNote = re(`(?m)^(\S+\.(?:h|hh|hpp|hxx|h\+\+|ipp|tcc|inl|c|cc|cpp|cxx|c\+\+|C)):\d+:\d+: note: ['‘]([^'’\n]+)['’] is defined in header ` +
		`['‘]<([a-z_][a-z0-9_]*(?:\.h)?)>['’]; this is probably fixable by adding ['‘]#include <([a-z_][a-z0-9_]*(?:\.h)?)>['’]`)
)

// maxStdHeaderFiles bounds how many files one fix edits.
const maxStdHeaderFiles = 8

func stdHeaderRule() Rule {
	return Rule{
		Name: "cxx-std-header",
		Doc: "C++ that uses a standard library name without its header, which a newer libstdc++ no longer brings in through its other headers: " +
			"the #include GCC's note names added to each file the notes name, before its first #include",
		Categories: []atesor.ErrorCategory{atesor.CategoryCompilation, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{stdHeaderNote},
		Make:       makeStdHeader,
	}
}

// stdHeaderEdit is a file of the tree and the headers the notes say it needs, in the
// order noted, with the names that need them.
type stdHeaderEdit struct {
	file           string
	headers, names []string
}

func makeStdHeader(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.ReadFile == nil {
		return nil, "the sources cannot be read"
	}
	var edits []stdHeaderEdit
	for _, m := range stdHeaderNote.FindAllStringSubmatch(f.text()+"\n"+f.Message, 256) {
		if m[3] != m[4] {
			continue // a note that names one header and adds another is not GCC's
		}
		rel, ok := locateFile(env.Files, m[1])
		if !ok {
			continue
		}
		i := slices.IndexFunc(edits, func(e stdHeaderEdit) bool { return e.file == rel })
		if i < 0 {
			if len(edits) == maxStdHeaderFiles {
				continue
			}
			edits = append(edits, stdHeaderEdit{file: rel})
			i = len(edits) - 1
		}
		if !slices.Contains(edits[i].headers, m[3]) {
			edits[i].headers = append(edits[i].headers, m[3])
		}
		if !slices.Contains(edits[i].names, m[2]) {
			edits[i].names = append(edits[i].names, m[2])
		}
	}
	if len(edits) == 0 {
		return nil, "the files the notes name are not in the package's tree"
	}
	var actions []atesor.Action
	var notes, done, names []string
	for _, e := range edits {
		b, err := env.ReadFile(ctx, e.file)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: %v", e.file, err))
			continue
		}
		content := string(b)
		var add []string
		for _, h := range e.headers {
			if !includesHeader(content, h) {
				add = append(add, h)
			}
		}
		if len(add) == 0 {
			// The header is there (under a condition the build did not take, say): adding
			// it again would not change what the compiler sees.
			notes = append(notes, e.file+": it already includes <"+strings.Join(e.headers, ">, <")+">")
			continue
		}
		// The headers go in one hunk, in the order noted, before the same line.
		actions = append(actions, atesor.Action{Type: atesor.ActionPatch, File: e.file, Diff: includeDiff(e.file, content, add...)})
		done = append(done, fmt.Sprintf("<%s> in %s", strings.Join(add, ">, <"), e.file))
		for _, n := range e.names {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	if len(actions) == 0 {
		return nil, strings.Join(notes, "; ")
	}
	return &Fix{
		Analysis: fmt.Sprintf("%s used without the standard header GCC names for it, which libstdc++ no longer includes from its other headers.", strings.Join(names, ", ")),
		Strategy: "include " + strings.Join(done, ", "),
		Actions:  actions,
	}, ""
}

// includesHeader reports whether the file has an #include of the standard header.
func includesHeader(content, header string) bool {
	have := regexp.MustCompile(`^\s*#\s*include\s*<` + regexp.QuoteMeta(header) + `>`)
	return slices.ContainsFunc(strings.Split(content, "\n"), have.MatchString)
}

package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// A GOPATH build compiles a source against the library versions the distribution
// packages, which are often newer than the ones upstream wrote it for. A common API
// change between them turns a field or parameter into a pointer, or back (goobs 0.8.0's
// request parameters became *bool and its responses bool: obs-cli 0.4.0 stops at
// "cannot use resp.DropShadow (variable of type bool) as *bool value in struct literal"
// and "cannot indirect r.IsRecording (variable of type bool)"). The compiler says where
// and of which type, and the value does not change: the go-pointer-api rule takes the
// operand's address (&X) where a *T is wanted of a T variable, and drops the * of an
// operand that is no pointer any more, as recorded patches.

const goPointerRuleName = "go-pointer-api"

// goWantsPointer is the compiler wanting a *T where a T variable is given; groups: file,
// line, column (of the operand), operand, type, wanted type.
var goWantsPointer = re(`(?m)^(\S+\.go):(\d+):(\d+): cannot use ([A-Za-z_][A-Za-z0-9_.]*) \(variable of type ([^()\s]+)\) as \*([^()\s]+) value in (?:struct literal|assignment|argument to \S+|return statement)`)

// goNoIndirect is the compiler refusing to dereference a non-pointer variable; groups:
// file, line, column (of the operand), operand, type.
var goNoIndirect = re(`(?m)^(\S+\.go):(\d+):(\d+): invalid operation: cannot indirect ([A-Za-z_][A-Za-z0-9_.]*) \(variable of type ([^()\s*]+)\)`)

func goPointerRule() Rule {
	return Rule{
		Name: goPointerRuleName,
		Doc: "a GOPATH build against the distribution's newer library whose API turned a value into a pointer or back " +
			"(obs-cli 0.4.0 against goobs 0.8.0): &X where the compiler wants a *T of a T variable, X for *X of a non-pointer, as patches",
		Categories: []atesor.ErrorCategory{atesor.CategoryCompilation, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{goWantsPointer, goNoIndirect},
		Make:       makeGoPointer,
	}
}

// pointerEdit is one edit of a source line: at the 0-based byte column col, where the
// operand starts, insert & or drop the * before it.
type pointerEdit struct {
	line, col int
	operand   string
	addr      bool // insert &; else drop the * before
}

func makeGoPointer(ctx context.Context, f Failure, env Env) (*Fix, string) {
	switch {
	case env.Plan == nil:
		return nil, "no build plan"
	case env.ReadFile == nil:
		return nil, "the sources cannot be read"
	}
	if _, ok := knowledge.GoPathImportPath(env.Plan); !ok {
		// A module build compiles against the versions go.mod names, the ones upstream
		// wrote it for: a type error there is the source's own.
		return nil, "the build is no GOPATH build against the distribution's packaged libraries"
	}
	text := f.text() + "\n" + f.Message
	edits := map[string][]pointerEdit{}
	var notes []string
	add := func(m []string, addr bool) {
		if addr && m[5] != m[6] {
			return
		}
		rel := path.Clean(m[1])
		if !slices.Contains(env.Files, rel) {
			notes = append(notes, rel+" is not a file of the tree")
			return
		}
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		e := pointerEdit{line: line - 1, col: col - 1, operand: m[4], addr: addr}
		if !slices.Contains(edits[rel], e) {
			edits[rel] = append(edits[rel], e)
		}
	}
	for _, m := range goWantsPointer.FindAllStringSubmatch(text, 256) {
		add(m, true)
	}
	for _, m := range goNoIndirect.FindAllStringSubmatch(text, 256) {
		add(m, false)
	}
	if len(edits) == 0 {
		if len(notes) > 0 {
			return nil, strings.Join(notes, "; ")
		}
		return nil, "no error is a pointer mismatch of a variable"
	}
	files := make([]string, 0, len(edits))
	for rel := range edits {
		files = append(files, rel)
	}
	sort.Strings(files)
	var actions []atesor.Action
	n := 0
	for _, rel := range files {
		b, err := env.ReadFile(ctx, rel)
		if err != nil {
			return nil, fmt.Sprintf("read %s: %v", rel, err)
		}
		diff, count, why := pointerDiff(rel, string(b), edits[rel])
		if why != "" {
			return nil, why
		}
		actions = append(actions, atesor.Action{Type: atesor.ActionPatch, File: rel, Diff: diff})
		n += count
	}
	return &Fix{
		Analysis: fmt.Sprintf("The GOPATH build compiles the source against the distribution's packaged libraries, whose API passes "+
			"as pointers what the source's version passed as values, or back: %s. The compiler names each operand and its type; "+
			"taking its address (&X) where a pointer is wanted and dropping the * of one that is no pointer keeps every value "+
			"as it was. %d operands in %s.", excerptLine(firstMatchOf(f.text(), []*regexp.Regexp{goWantsPointer, goNoIndirect})), n, strings.Join(files, ", ")),
		Strategy: fmt.Sprintf("adapt %d operands to the packaged API's pointers in %s", n, strings.Join(files, ", ")),
		Actions:  actions,
	}, ""
}

// pointerDiff applies the edits to content and returns the diff and the number of
// edits; why is set when an edit's column does not hold its operand (the file is not
// the one compiled, or an earlier fix changed it).
func pointerDiff(rel, content string, edits []pointerEdit) (string, int, string) {
	byLine := map[int][]pointerEdit{}
	for _, e := range edits {
		byLine[e.line] = append(byLine[e.line], e)
	}
	why := ""
	diff, _ := linesDiff(rel, content, false, func(i int, body string) (string, bool) {
		es := byLine[i]
		if len(es) == 0 {
			return "", false
		}
		// Right to left, so an edit does not move the columns of the ones before it.
		sort.Slice(es, func(a, b int) bool { return es[a].col > es[b].col })
		out := body
		for _, e := range es {
			if e.col < 0 || e.col > len(out) || !strings.HasPrefix(out[e.col:], e.operand) {
				why = fmt.Sprintf("%s:%d:%d does not hold %s", rel, e.line+1, e.col+1, e.operand)
				return "", false
			}
			if e.addr {
				out = out[:e.col] + "&" + out[e.col:]
				continue
			}
			if e.col == 0 || out[e.col-1] != '*' {
				why = fmt.Sprintf("%s:%d:%d has no * before %s", rel, e.line+1, e.col+1, e.operand)
				return "", false
			}
			out = out[:e.col-1] + out[e.col:]
		}
		return out, true
	})
	if why != "" {
		return "", 0, why
	}
	return diff, len(edits), ""
}

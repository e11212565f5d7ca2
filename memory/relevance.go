package memory

import (
	"regexp"
	"sort"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// The scoring table (the same as the Python implementation's, so both pick the same
// examples from a shared file), in hundredths so that sums are exact and
// equal scores tie.
const (
	weightBuildSystem     = 50  // same build system
	weightErrorPattern    = 40  // the fixer error_pattern matches the error (case-insensitive)
	weightTag             = 15  // each tag that occurs in the error message
	weightHasMain         = 10  // same has_main
	weightModuleDirSame   = 15  // same module_dir
	weightModuleDirDiffer = 5   // both have a module_dir, but different
	weightCGO             = 20  // the project uses cgo and the example has the tag cgo
	weightSameSandbox     = 25  // same sandbox
	weightOtherSandbox    = -35 // different sandbox (Relevant drops those before scoring)
	scoreCap              = 100
)

// Score returns the relevance of ex for q by the scoring table, capped at
// 1.0. Relevant uses the same function after dropping examples of other sandboxes, so
// there the sandbox always adds 0.25.
func Score(ex atesor.Example, q atesor.Query) float64 {
	return float64(score(&ex, compilePattern(ex.ErrorPattern), q, newMessage(q.ErrorMessage))) / 100
}

// message is the error message of a query in the forms scoring needs, computed once.
type message struct {
	raw, lower, folded string
}

func newMessage(m string) message {
	return message{raw: m, lower: strings.ToLower(m), folded: foldString(m)}
}

// score is Score in hundredths, with the compiled pattern and the prepared error message
// passed in.
func score(ex *atesor.Example, pt *pattern, q atesor.Query, msg message) int {
	s := 0
	if q.BuildSystem != "" && ex.BuildSystem == q.BuildSystem {
		s += weightBuildSystem
	}
	if pt != nil && msg.raw != "" && pt.match(msg.raw, msg.folded) {
		s += weightErrorPattern
	}
	if msg.lower != "" {
		for _, t := range ex.Tags {
			if t != "" && strings.Contains(msg.lower, strings.ToLower(t)) {
				s += weightTag
			}
		}
	}
	if tr := ex.Trigger; tr != nil {
		if tr.HasMain != nil && q.HasMain != nil && *tr.HasMain == *q.HasMain {
			s += weightHasMain
		}
		if tr.ModuleDir != "" && q.ModuleDir != "" {
			if tr.ModuleDir == q.ModuleDir {
				s += weightModuleDirSame
			} else {
				s += weightModuleDirDiffer
			}
		}
	}
	if q.HasCGO {
		for _, t := range ex.Tags {
			if strings.EqualFold(t, "cgo") {
				s += weightCGO
				break
			}
		}
	}
	if ex.SandboxOrDefault() == querySandbox(q) {
		s += weightSameSandbox
	} else {
		s += weightOtherSandbox
	}
	return min(s, scoreCap)
}

func querySandbox(q atesor.Query) string {
	if q.Sandbox == "" {
		return atesor.DefaultSandboxKey
	}
	return q.Sandbox
}

// Rank scores examples against q the way Store.Relevant does: examples of other
// sandboxes are dropped, scores are capped at 1.0, only positive scores are kept, the
// best come first and equal scores keep their order. limit <= 0 means no limit.
func Rank(examples []atesor.Example, q atesor.Query, limit int) []atesor.Example {
	patterns := make([]*pattern, len(examples))
	for i, ex := range examples {
		patterns[i] = compilePattern(ex.ErrorPattern)
	}
	return rank(examples, patterns, q, limit)
}

func rank(examples []atesor.Example, patterns []*pattern, q atesor.Query, limit int) []atesor.Example {
	type scored struct {
		i, s int
	}
	sandbox := querySandbox(q)
	msg := newMessage(q.ErrorMessage)
	var kept []scored
	for i := range examples {
		ex := &examples[i]
		if ex.SandboxOrDefault() != sandbox {
			continue
		}
		if s := score(ex, patterns[i], q, msg); s > 0 {
			kept = append(kept, scored{i, s})
		}
	}
	sort.SliceStable(kept, func(a, b int) bool { return kept[a].s > kept[b].s })
	if limit > 0 && len(kept) > limit {
		kept = kept[:limit]
	}
	out := make([]atesor.Example, len(kept))
	for k, sc := range kept {
		out[k] = examples[sc.i]
	}
	return out
}

// pythonEscapes rewrites escapes that Python accepts and Go does not: a backslash before
// a character that is neither an ASCII letter, digit nor punctuation (a space, a
// non-ASCII letter) means the character itself.
func pythonEscapes(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	var b strings.Builder
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r != '\\' || i+1 >= len(rs) {
			b.WriteRune(r)
			continue
		}
		next := rs[i+1]
		i++
		if next < 0x80 && (isASCIIAlnum(next) || isASCIIPunct(next)) {
			b.WriteRune('\\')
			b.WriteRune(next)
			continue
		}
		b.WriteString(regexp.QuoteMeta(string(next)))
	}
	return b.String()
}

func isASCIIAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

func isASCIIPunct(r rune) bool {
	return r >= '!' && r <= '/' || r >= ':' && r <= '@' || r >= '[' && r <= '`' || r >= '{' && r <= '~'
}

package graph

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/escape"
)

// codeExts are the extensions of the files a port's code lives in. A fix that changed
// one changed what the package does, not only how it builds.
var codeExts = map[string]bool{
	".c": true, ".h": true, ".cc": true, ".cpp": true, ".cxx": true, ".c++": true, ".hpp": true,
	".hh": true, ".hxx": true, ".h++": true, ".ipp": true, ".tcc": true, ".inl": true, ".inc": true,
	".go": true, ".rs": true, ".s": true, ".S": true, ".asm": true, ".m": true, ".mm": true,
	".f": true, ".f90": true, ".cu": true,
}

func isCodeFile(p string) bool {
	ext := path.Ext(p)
	return codeExts[ext] || codeExts[strings.ToLower(ext)]
}

// mutating matches a command line that changes files: in-place editors, redirections,
// removals, moves, copies and patches.
var mutating = regexp.MustCompile(`\b(sed|perl)\b[^|;&]*\s-[a-zA-Z]*i|>|\b(rm|mv|cp|truncate|tee|patch|install|ln)\b`)

// sourceFilesChanged lists the code files that fixes (the model's or scripted) created,
// patched, edited by command, or deleted, in order and without duplicates.
func sourceFilesChanged(s *atesor.State) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		p = strings.Trim(p, `'"`)
		if p != "" && isCodeFile(p) && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range s.Patches {
		add(p.File)
	}
	for _, f := range s.FixAttempts {
		for _, p := range f.Files {
			add(p)
		}
		cmds := slices.Clone(f.Commands)
		for _, a := range f.Actions {
			add(a.Path)
			add(a.File)
			if a.Command != "" {
				cmds = append(cmds, a.Command)
			}
		}
		for _, c := range cmds {
			if !mutating.MatchString(c) {
				continue
			}
			for _, tok := range strings.Fields(c) {
				add(strings.TrimLeft(tok, "<>"))
			}
		}
	}
	return out
}

// judgeTests decides what the package tests mean for a verified port: failing tests
// after fixes that changed source files mark it tests_failing (not proven to work, not
// learned); after fixes to build files only, the port stays verified and the verdict
// line names the failures.
func (r *run) judgeTests(s *atesor.State) {
	t := s.Tests
	n := t.FailingCount()
	if n == 0 {
		return
	}
	changed := sourceFilesChanged(s)
	if len(changed) == 0 {
		r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeFinish, Line: testsFailingLine(s)})
		return
	}
	s.Status = atesor.StatusTestsFailing
	s.EscalationReason = fmt.Sprintf("%d package tests failed after fixes changed source files (%s)", n, strings.Join(limit(changed, 5), ", "))
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeFinish, Line: string(s.Status) + ": " + s.EscalationReason})
}

// testsFailingLine is the verdict line of a verified port whose package tests fail
// without a fix to blame: it says whether there were fixes (to build files only) or none
// at all, as the state records them.
func testsFailingLine(s *atesor.State) string {
	line := atesor.VerdictLine(s.Status, s.Tests)
	if !fixesMade(s) {
		return line + " (no fixes were made: the package failed its own tests as it is)"
	}
	return line + " (the fixes changed build files only)"
}

// fixesMade reports whether any fix changed something: ran a command, wrote or patched
// a file, or replaced the plan. A refused or invalid attempt changed nothing.
func fixesMade(s *atesor.State) bool {
	if len(s.Patches) > 0 {
		return true
	}
	for _, f := range s.FixAttempts {
		if len(f.Commands) > 0 || len(f.Files) > 0 || f.Plan != nil {
			return true
		}
	}
	return false
}

func limit(list []string, n int) []string {
	if len(list) > n {
		return append(list[:n:n], fmt.Sprintf("and %d more", len(list)-n))
	}
	return list
}

// testEvidence is the recipe's paragraph on the package tests: the commands, the
// counts, the failed tests' names and the verdict they lead to.
func testEvidence(s *atesor.State) string {
	t := s.Tests
	if t == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Package tests (`%s`): %s", escape.Code(strings.Join(t.Commands, " && ")), escape.Markdown(t.Summary()))
	if t.Counts != nil {
		fmt.Fprintf(&b, " [%s]", escape.Markdown(t.Counts.Framework))
	}
	fmt.Fprintf(&b, ", in %s.\n", t.Duration.Round(1e9))
	if t.Counts != nil && len(t.Counts.FailedTests) > 0 {
		b.WriteString("\nFailed tests:\n\n")
		for _, n := range t.Counts.FailedTests {
			fmt.Fprintf(&b, "- `%s`\n", escape.Code(n))
		}
	}
	for _, c := range t.NoTestsFrom {
		fmt.Fprintf(&b, "\nNo tests ran from `%s`.\n", escape.Code(c))
	}
	if t.Note != "" && !t.NoTests {
		fmt.Fprintf(&b, "\nNote: %s.\n", escape.Markdown(t.Note))
	}
	fmt.Fprintf(&b, "\nTest verdict: **%s**.\n", atesor.VerdictLine(s.Status, t))
	return b.String()
}

// testEvidenceMark starts the paragraph withTestEvidence inserts.
const testEvidenceMark = "Package tests (`"

// withTestEvidence makes sure the Verification section of a recipe (the model's or the
// fallback) carries the test counts and failed names, inserting them at the end of the
// section when the writer left them out.
func withTestEvidence(md string, s *atesor.State) string {
	ev := testEvidence(s)
	if h := hollowEvidence(s); h != "" {
		ev = strings.TrimLeft(ev+"\n"+h, "\n")
	}
	if ev == "" || strings.Contains(md, ev) {
		return md
	}
	loc := regexp.MustCompile(`(?m)^##\s+Verification\s*$`).FindStringIndex(md)
	if loc == nil {
		return strings.TrimRight(md, "\n") + "\n\n## Verification\n\n" + ev
	}
	rest := md[loc[1]:]
	end := len(rest)
	if next := regexp.MustCompile(`(?m)^##\s`).FindStringIndex(rest); next != nil {
		end = next[0]
	}
	return md[:loc[1]] + strings.TrimRight(rest[:end], "\n") + "\n\n" + ev + "\n" + rest[end:]
}

// recipeVerdict is the verdict a recipe states: VERIFIED, NOT VERIFIED, TESTS FAILING,
// or "VERIFIED, N TESTS FAILING" for a verified port whose tests fail.
func recipeVerdict(s *atesor.State) string {
	switch {
	case !s.Verified:
		return "NOT VERIFIED"
	case s.Status == atesor.StatusTestsFailing:
		return "TESTS FAILING"
	}
	return strings.ToUpper(atesor.VerdictLine(atesor.StatusVerified, s.Tests))
}

package repair

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// go test runs a subset of go vet's analyzers on each package before it builds the
// test binary (with -c too), and a report of one of them stops the test build of code
// that compiles: the tests analyzer's "ExampleUnknown refers to unknown identifier"
// (an example named for an identifier since removed), Go 1.24's printf check of
// non-constant format strings. Those checks are lints of the test harness written
// after much of the code they now reject; Debian's dh-golang runs go test with
// -vet=off for that reason, and the port does as the distribution does: the plan's go
// test commands get -vet=off, which the tests and the install step follow (see
// [GoVetsOff]). The package's own code is what the compiler builds either way.

const goVetOffRuleName = "go-test-vet-off"

// goVetReport is the go command's report of a failed vet run of a package built for its
// tests: the package's import path twice, the second in brackets (the vet action's
// description differs from the test variant's, "P [P.test]", so the go command names
// the import path on its own line), then vet's first diagnostic (group 3): an
// analyzer's "file.go:line:col: message", or vet's own "vet: file.go:line:col: ..."
// when its type check failed.
var goVetReport = re(`(?m)^# (\S+)\n# \[(\S+)\]\n((?:vet: )?\S+\.go:\d+:\d+: .+)$`)

func goVetOffRule() Rule {
	return Rule{
		Name: goVetOffRuleName,
		Doc: "go test's vet step (an analyzer's report: ghodss/yaml's \"ExampleUnknown refers to unknown identifier\") stopping the test build " +
			"of code that compiles: the plan's go test commands run with -vet=off, as Debian's dh-golang runs them",
		Signatures: []*regexp.Regexp{goVetReport},
		Make:       makeGoVetOff,
	}
}

// goVetDiagnostics are the first diagnostic of each vet report in text whose two
// header lines name the same package, in order, each once.
func goVetDiagnostics(text string) []string {
	var out []string
	for _, m := range goVetReport.FindAllStringSubmatch(text, 32) {
		if m[1] != m[2] {
			continue // another tool's report of a package of some other description
		}
		if d := strings.TrimSpace(m[3]); !strings.Contains(d, " error: ") && !slices.Contains(out, d) {
			// " error: " is a C compiler's diagnostic (cgo's run has the same header);
			// vet's analyzers never write it.
			out = append(out, d)
		}
	}
	return out
}

func makeGoVetOff(_ context.Context, f Failure, env Env) (*Fix, string) {
	if env.Plan == nil {
		return nil, "no build plan"
	}
	diags := goVetDiagnostics(f.text() + "\n" + f.Message)
	if len(diags) == 0 {
		return nil, "the output has no report of go test's vet step"
	}
	if f.Command != "" && !goTestWord.MatchString(f.Command) {
		// A Makefile's go test, or a go vet the build runs on purpose: the plan has no
		// go test line to change, and a vet run asked for is the build's own check.
		return nil, "the failing command " + excerpt.FirstLine(f.Command) + " runs no go test of the plan"
	}
	plan, changed := withEachCommand(*env.Plan, WithGoVetOff)
	if !changed {
		return nil, "the plan's go test commands already set -vet, or the plan runs no go test"
	}
	return &Fix{
		Analysis: fmt.Sprintf("go test's vet step stops the test build: %s. The code compiles; the report is a lint of the test sources "+
			"(go vet's analyzers that go test runs before building the tests), which Debian's dh-golang does not run (it tests with %s).",
			strings.Join(diags, "; "), knowledge.GoVetOff),
		Strategy: "go test with " + knowledge.GoVetOff + " in the plan's go test commands (the tests and the install step follow them)",
		Plan:     &plan,
	}, ""
}

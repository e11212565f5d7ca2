package recipe

import (
	"regexp"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

var (
	verificationHeading = regexp.MustCompile(`(?m)^##\s+Verification\s*$`)
	anyHeading          = regexp.MustCompile(`(?m)^##\s`)
)

// WithVerification makes sure the Verification section of a recipe (a model's or the
// fallback) carries evidence, inserting it at the end of the section when the writer
// left it out, or adding the section when there is none. A recipe that already holds
// the evidence, or empty evidence, leaves md as it is.
func WithVerification(md, evidence string) string {
	if evidence == "" || strings.Contains(md, evidence) {
		return md
	}
	loc := verificationHeading.FindStringIndex(md)
	if loc == nil {
		return strings.TrimRight(md, "\n") + "\n\n## Verification\n\n" + evidence
	}
	rest := md[loc[1]:]
	end := len(rest)
	if next := anyHeading.FindStringIndex(rest); next != nil {
		end = next[0]
	}
	return md[:loc[1]] + strings.TrimRight(rest[:end], "\n") + "\n\n" + evidence + "\n" + rest[end:]
}

// Verdict is the verdict a recipe states: VERIFIED, NOT VERIFIED, TESTS FAILING, or
// "VERIFIED, N TESTS FAILING" for a verified port whose tests fail.
func Verdict(s *atesor.State) string {
	switch {
	case !s.Verified:
		return "NOT VERIFIED"
	case s.Status == atesor.StatusTestsFailing:
		return "TESTS FAILING"
	}
	return strings.ToUpper(atesor.VerdictLine(atesor.StatusVerified, s.Tests))
}

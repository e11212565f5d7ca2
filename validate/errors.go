package validate

import (
	"fmt"
	"strings"
)

// Rejection is the error every semantic rule of this package returns. Its text is sent back
// to the model as a critique, so it names the rule that fired, what was wrong, and what to
// do instead. Callers that branch on the rule use [errors.As] and read Rule.
type Rejection struct {
	// Rule is a short stable identifier of the rule, for example "no-failure-hiding".
	Rule string
	// Subject is the command, path or field the rule looked at, when there is one.
	Subject string
	// Reason says what is wrong.
	Reason string
	// Instead says what to do instead.
	Instead string
}

// Error renders the rejection as one sentence for the model.
func (r *Rejection) Error() string {
	var b strings.Builder
	b.WriteString("rule ")
	b.WriteString(r.Rule)
	b.WriteString(": ")
	if r.Subject != "" {
		fmt.Fprintf(&b, "%s: ", clip(r.Subject, 200))
	}
	b.WriteString(r.Reason)
	if r.Instead != "" {
		b.WriteString("; instead, ")
		b.WriteString(r.Instead)
	}
	return b.String()
}

func reject(rule, subject, reason, instead string) error {
	return &Rejection{Rule: rule, Subject: subject, Reason: reason, Instead: instead}
}

// within returns a copy of err with a location prefix (phase and line, strategy and action)
// kept in Subject, so the model knows where the problem is.
func within(err error, where string) error {
	if r, ok := err.(*Rejection); ok {
		c := *r
		if c.Subject == "" {
			c.Subject = where
		} else {
			c.Subject = where + ": " + c.Subject
		}
		return &c
	}
	return fmt.Errorf("%s: %w", where, err)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "..."
}

// Rule identifiers.
const (
	ruleParse          = "parse"
	ruleEmpty          = "empty-command"
	ruleSingle         = "single-command"
	ruleShellSyntax    = "no-shell-syntax"
	ruleAllowList      = "allowed-programs"
	ruleLiteralProgram = "literal-program"
	ruleDenied         = "denied-program"
	ruleRmRoot         = "no-destructive-rm"
	ruleGitHistory     = "no-history-rewrite"
	ruleTouchSource    = "no-touch-source"
	ruleSystemWrite    = "no-system-write"
	rulePkgRemove      = "no-package-removal"
	ruleGoSubcmdPkg    = "no-go-subcommand-package"
	ruleFailureHiding  = "no-failure-hiding"
	rulePlaceholder    = "no-placeholder-path"
	ruleHomePath       = "no-guessed-home"
	ruleCross          = "no-cross-compile"
	ruleNestedBuild    = "no-nested-build-dir"
	rulePlanShape      = "plan-shape"
	ruleOnlyTests      = "plan-only-tests"
	ruleArgs           = "program-arguments"
	ruleInvestigate    = "investigation"
	ruleWorkload       = "workload"
	ruleFix            = "fix-proposal"
	rulePath           = "repository-path"
	ruleAnalysis       = "analysis"
	ruleHarness        = "harness"
	ruleFuncDecl       = "no-function-definition"
	ruleTwoStep        = "no-two-step"
	ruleHook           = "no-tool-hook"
	ruleRemoteCode     = "no-remote-code"
)

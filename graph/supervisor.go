package graph

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
)

// Node names: the names the pipeline's nodes are registered under, which routing,
// events, timings, the state's LastNode and the audit log use. Each can be replaced
// with [WithNode] (see [Nodes]).
const (
	NodeInit          = "init"
	NodeAnalyst       = "analyst"
	NodeTaskPlan      = "task_plan"
	NodeHeuristicPlan = "heuristic_plan"
	NodeScout         = "scout"
	NodeBuild         = "build"
	NodeVerify        = "verify"
	NodeFix           = "fix"
	NodeFinish        = "finish"
	NodeEscalate      = "escalate"
)

// NodeSupervisor is the name of the routing step between nodes, as Eino callbacks and
// the log see it. It is the pipeline's routing by rules (it makes no model call), not a
// node: it cannot be replaced.
const NodeSupervisor = "supervisor"

// nodeEnd is the supervisor's route that ends the run.
const nodeEnd = "end"

// workNodes are the nodes an embedder may replace, in pipeline order.
var workNodes = []string{NodeInit, NodeAnalyst, NodeTaskPlan, NodeHeuristicPlan, NodeScout,
	NodeBuild, NodeVerify, NodeFix, NodeFinish, NodeEscalate, NodeOptimize}

// Nodes returns the names of the nodes [WithNode] can replace, in pipeline order.
func Nodes() []string { return slices.Clone(workNodes) }

// checkNodes refuses replacements New cannot run: a nil node, a name that is not a
// replaceable node.
func (o *options) checkNodes() []error {
	var errs []error
	names := make([]string, 0, len(o.replaced))
	for name := range o.replaced {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		n := o.replaced[name]
		switch {
		case name == NodeSupervisor:
			errs = append(errs, fmt.Errorf("WithNode(%q): the supervisor is the pipeline's routing, not a replaceable node; replaceable nodes are %s", name, strings.Join(workNodes, ", ")))
		case !slices.Contains(workNodes, name):
			errs = append(errs, fmt.Errorf("WithNode(%q): no such node; replaceable nodes are %s", name, strings.Join(workNodes, ", ")))
		case isNil(n):
			errs = append(errs, fmt.Errorf("WithNode(%q, nil): the node is nil; pass a node or leave the option out to keep the built-in one", name))
		}
	}
	return errs
}

// isNil reports whether n is nil or a nil pointer (or other nil reference) in an
// interface, which would panic when the pipeline calls it.
func isNil(n atesor.Node) bool {
	if n == nil {
		return true
	}
	switch v := reflect.ValueOf(n); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// replanSignatures are build errors that mean the plan itself is wrong, not the package:
// the scout is asked again, once per signature (case-insensitive, first match).
var replanSignatures = []string{
	"no required module provides",
	"already exists and is a directory",
	"does not appear to contain cmakelists.txt",
	"unable to locate package",
	"inconsistent vendoring",
	"./configure: no such file or directory",
}

// errorLoopLength is how many errors of one category in a row end the run.
const errorLoopLength = 3

// supervisor holds the routing rules and limits of a run.
type supervisor struct {
	offline bool
}

// next decides where the run goes after s.LastNode finished, updating the attempt count,
// re-plan bookkeeping and, when the run must end, the escalation reason and failure
// class. It is a pure function of the state.
func (sv supervisor) next(s *atesor.State) string {
	req := s.Request.WithDefaults()
	switch s.LastNode {
	case "":
		return NodeInit
	case NodeInit:
		if s.FailureClass != atesor.FailureNone {
			return NodeEscalate
		}
		if s.PlanSource == planFromCache && s.Plan != nil && len(s.Plan.Phases) > 0 {
			return NodeBuild // performance mode rebuilds a cached recipe
		}
		return NodeAnalyst
	case NodeAnalyst:
		return NodeTaskPlan
	case NodeTaskPlan:
		return NodeHeuristicPlan
	case NodeHeuristicPlan:
		if s.Plan != nil && len(s.Plan.Phases) > 0 {
			return NodeBuild
		}
		return NodeScout
	case NodeScout:
		if s.Plan == nil || len(s.Plan.Phases) == 0 {
			return sv.escalate(s, atesor.FailureBuild, "the scout produced no build plan")
		}
		return NodeBuild
	case NodeBuild:
		if s.BuildSucceeded {
			return NodeVerify
		}
		return sv.afterFailure(s, req)
	case NodeVerify:
		if s.Verified {
			return NodeFinish // a verified success always goes to finish
		}
		return sv.afterFailure(s, req)
	case NodeFix:
		if s.FixInvalid {
			return sv.afterFailure(s, req)
		}
		if over := sv.overBudget(s, req); over != "" {
			return over
		}
		return NodeBuild
	case NodeFinish:
		if s.Request.Optimize && s.Verified {
			return NodeOptimize // performance mode measures a verified port
		}
		return nodeEnd
	default: // escalate, optimize
		return nodeEnd
	}
}

// afterFailure routes a failed build, a failed verification or an invalid fix: it counts
// the attempt, then applies the limits and re-plan rules in order.
func (sv supervisor) afterFailure(s *atesor.State, req atesor.Request) string {
	s.Attempts++
	if over := sv.overBudget(s, req); over != "" {
		return over
	}
	last := s.LastError
	if last != nil && last.Category.Unrecoverable() {
		return sv.escalate(s, atesor.FailureEscalated, fmt.Sprintf("unrecoverable %s error: %s", last.Category, excerpt.FirstLine(last.Message)))
	}
	if last != nil && last.Node == NodeBuild && strings.HasPrefix(last.Message, emulatorFaultPrefix) {
		return sv.escalate(s, atesor.FailureInfra, excerpt.FirstLine(last.Message))
	}
	if last != nil && last.Node == NodeVerify && strings.Contains(last.Message, atesor.ProblemPerlOnly) && purePerl(s.Detection) {
		// Nothing here compiles: no fix can give it a riscv64 artifact without faking
		// one, so neither a rule nor the model is asked.
		return sv.escalate(s, atesor.FailureVerify, "nothing to port (detection found no XS or C source): "+
			strings.TrimPrefix(excerpt.FirstLine(last.Message), "verification failed: "))
	}
	if cat, ok := errorLoop(s.Errors, s.FixAttempts, scriptedClaims(s)); ok {
		return sv.escalate(s, atesor.FailureEscalated, fmt.Sprintf("error loop: %d %s errors in a row", errorLoopLength, cat))
	}
	if s.Attempts >= req.MaxAttempts {
		if why := hollowReason(s); why != "" {
			return sv.escalate(s, atesor.FailureVerify, fmt.Sprintf("attempt limit reached (%d of %d) on a port that is not proven: %s", s.Attempts, req.MaxAttempts, why))
		}
		return sv.escalate(s, atesor.FailureBudget, fmt.Sprintf("attempt limit reached (%d of %d)", s.Attempts, req.MaxAttempts))
	}
	if scriptedClaims(s) {
		return NodeFix // scripted rules first for their failures; offline they are the fixer
	}
	if sv.offline {
		class := atesor.FailureBuild
		if s.BuildSucceeded {
			class = atesor.FailureVerify
		}
		return sv.escalate(s, class, "no model is configured (offline) and no scripted rule repairs it: "+lastFailureMessage(s))
	}
	if last != nil && last.Node == NodeBuild {
		if sig := replanSignature(last.Message); sig != "" && !slices.Contains(s.ReplanSignatures, sig) {
			s.ReplanSignatures = append(s.ReplanSignatures, sig)
			return NodeScout
		}
		if key := "two-failed-fixes:" + normalizeError(last.Message); failedFixes(s, last.Message) >= 2 && !slices.Contains(s.ReplanSignatures, key) {
			s.ReplanSignatures = append(s.ReplanSignatures, key)
			return NodeScout
		}
	}
	return NodeFix
}

// overBudget escalates when the API cost passed the limit (strictly more than it).
func (sv supervisor) overBudget(s *atesor.State, req atesor.Request) string {
	if s.Usage.CostUSD > req.MaxCostUSD {
		return sv.escalate(s, atesor.FailureBudget, fmt.Sprintf("API cost $%.4f exceeds the limit of $%.2f", s.Usage.CostUSD, req.MaxCostUSD))
	}
	return ""
}

func (sv supervisor) escalate(s *atesor.State, class atesor.FailureClass, reason string) string {
	s.FailureClass = class
	s.EscalationReason = reason
	return NodeEscalate
}

// errorLoop reports whether the last errorLoopLength build or verify errors share one
// category, unless they are progress: each a different error, and each before the last
// answered by a scripted rule. A rule answers an error once per run and the attempt
// limit still holds, so distinct errors each repaired by a rule are the rules working
// through an old source one compile error at a time (pktanon: a versioned namespace,
// then <stdexcept>, then <cstdint>), not a fixer going round in circles; the same error
// again, or a model's fix in between, still ends the run, unless untried (a scripted
// rule that has not answered the newest error claims it) and only scripted rules
// answered the errors before it: each rule answers an error once, so that is the rules
// trying their next answer to one failure (gengetopt: distribution-configure installs
// flex, and the same make error is then distribution-patches'), not a loop.
func errorLoop(errs []atesor.ErrorRecord, fixes []atesor.FixAttempt, untried bool) (atesor.ErrorCategory, bool) {
	var window []atesor.ErrorRecord
	for i := len(errs) - 1; i >= 0 && len(window) < errorLoopLength; i-- {
		if errs[i].Node == NodeBuild || errs[i].Node == NodeVerify {
			window = append(window, errs[i])
		}
	}
	if len(window) < errorLoopLength {
		return "", false
	}
	for _, e := range window[1:] {
		if e.Category != window[0].Category {
			return "", false
		}
	}
	if scriptedProgress(window, fixes) || untried && scriptedOnly(window, fixes) {
		return "", false
	}
	return window[0].Category, true
}

// scriptedOnly reports whether every error of the window (newest first) but the newest
// was answered, and answered by scripted fixes alone.
func scriptedOnly(window []atesor.ErrorRecord, fixes []atesor.FixAttempt) bool {
	for _, e := range window[1:] {
		key := normalizeError(e.Message)
		answered := false
		for _, f := range fixes {
			if normalizeError(f.Error) != key {
				continue
			}
			if f.Source != atesor.FixSourceScripted {
				return false
			}
			answered = true
		}
		if !answered {
			return false
		}
	}
	return true
}

// scriptedProgress reports whether the errors (newest first) are pairwise different and
// every one but the newest was answered by a scripted fix.
func scriptedProgress(window []atesor.ErrorRecord, fixes []atesor.FixAttempt) bool {
	var keys []string
	for _, e := range window {
		key := normalizeError(e.Message)
		if slices.Contains(keys, key) {
			return false
		}
		keys = append(keys, key)
	}
	for _, key := range keys[1:] {
		if !slices.ContainsFunc(fixes, func(f atesor.FixAttempt) bool {
			return f.Source == atesor.FixSourceScripted && normalizeError(f.Error) == key
		}) {
			return false
		}
	}
	return true
}

func replanSignature(msg string) string {
	lower := strings.ToLower(msg)
	for _, sig := range replanSignatures {
		if strings.Contains(lower, sig) {
			return sig
		}
	}
	return ""
}

// failedFixes counts the fixes that answered this error and did not make the next build
// succeed.
func failedFixes(s *atesor.State, msg string) int {
	key := normalizeError(msg)
	n := 0
	for _, f := range s.FixAttempts {
		if !f.Success && normalizeError(f.Error) == key {
			n++
		}
	}
	return n
}

// normalizeError keys an error by its first line with digits removed, so the same
// failure at another line number or in another temp file counts as the same error.
func normalizeError(msg string) string {
	line := strings.ToLower(excerpt.FirstLine(msg))
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return -1
		}
		return r
	}, line)
}

func lastMessage(s *atesor.State) string {
	if s.LastError == nil {
		return "no error recorded"
	}
	return excerpt.FirstLine(s.LastError.Message)
}

// lastFailureMessage is the first line of the last build or verify error: what an
// escalation reports, rather than a refused fix that followed it.
func lastFailureMessage(s *atesor.State) string {
	for i := len(s.Errors) - 1; i >= 0; i-- {
		if e := s.Errors[i]; e.Node == NodeBuild || e.Node == NodeVerify {
			return excerpt.FirstLine(e.Message)
		}
	}
	return lastMessage(s)
}

// purePerl reports whether detection found a Perl distribution with no XS or C
// source, whose language it then names Perl.
func purePerl(d *atesor.Detection) bool {
	return d != nil && d.BuildSystem == atesor.BuildPerl && d.Language == "Perl"
}

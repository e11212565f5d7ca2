package graph

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
)

// answerTypes are the answer types the built-in nodes ask models for, with the node
// that asks: the types [WithValidator] accepts without [WithAnswerType].
var answerTypes = []struct {
	t    reflect.Type
	node string
}{
	{reflect.TypeFor[atesor.AnalysisAnswer](), NodeAnalyst},
	{reflect.TypeFor[atesor.BuildPlan](), NodeScout},
	{reflect.TypeFor[atesor.FixProposal](), NodeFix},
	{reflect.TypeFor[atesor.CuratorAnswer](), NodeFinish + " (artifact curator)"},
	{reflect.TypeFor[atesor.Harness](), NodeOptimize + " (workload harness)"},
}

// WithValidator adds v to the checks of every model answer of type T the pipeline's
// nodes ask for: [atesor.AnalysisAnswer] (analyst), [atesor.BuildPlan] (scout),
// [atesor.FixProposal] (fixer), [atesor.CuratorAnswer] (artifact curator) and
// [atesor.Harness] (performance mode's workload harness), and the types declared with
// [WithAnswerType], which a replacement node asks for through [atesor.Run.Ask]. New
// refuses a validator of any other type: it would never run.
//
// It runs after the answer decoded (package validate's schema) and passed the node's own
// rules; its error goes back to the model as a critique, like theirs, and an answer that
// never passes makes the node use its scripted fallback. Several validators of one type
// run in the order given. A [validate.Rejection] error names its rule in the
// atesor.EventAnswerRejected event; any other error is reported as rule "validator". A
// validator that panics ends the run (failure class infra) with an error that names it.
func WithValidator[T any](v atesor.Validator[T]) Option {
	return func(o *options) {
		if o.validators == nil {
			o.validators = map[reflect.Type][]any{}
		}
		t := reflect.TypeFor[T]()
		if v == nil {
			o.errs = append(o.errs, fmt.Errorf("WithValidator[%s](nil): the validator is nil", t))
			return
		}
		o.validators[t] = append(o.validators[t], v)
	}
}

// WithAnswerType declares that a replacement node asks models for answers of type T
// through [atesor.Run.Ask] (its Question.Decode returns a T or a *T), so that
// [WithValidator] of T is accepted and runs on those answers.
func WithAnswerType[T any]() Option {
	return func(o *options) {
		if o.answerTypes == nil {
			o.answerTypes = map[reflect.Type]bool{}
		}
		o.answerTypes[reflect.TypeFor[T]()] = true
	}
}

// checkValidators refuses validators of types nothing asks for.
func (o *options) checkValidators() error {
	var unused []string
	for t := range o.validators {
		if !o.validated(t) {
			unused = append(unused, t.String())
		}
	}
	if len(unused) == 0 {
		return nil
	}
	var known []string
	for _, a := range answerTypes {
		known = append(known, a.t.String()+" ("+a.node+")")
	}
	var declared []string
	for t := range o.answerTypes {
		declared = append(declared, t.String()+" (WithAnswerType)")
	}
	slices.Sort(declared)
	known = append(known, declared...)
	slices.Sort(unused)
	return fmt.Errorf("WithValidator of %s: no node asks for answers of that type, so the validator would never run; the validated types are %s (a replacement node that asks for another type through Run.Ask declares it with WithAnswerType)",
		strings.Join(unused, ", "), strings.Join(known, ", "))
}

func (o *options) validated(t reflect.Type) bool {
	for _, a := range answerTypes {
		if a.t == t {
			return true
		}
	}
	return o.answerTypes[t]
}

// validatorsFor returns the embedder's validators of answers of type T, each guarded
// so that a panic is recorded on the run (see [run.call]) instead of being taken for a
// failed answer.
func validatorsFor[T any](r *run) []atesor.Validator[T] {
	var out []atesor.Validator[T]
	for _, v := range r.p.opts.validators[reflect.TypeFor[T]()] {
		out = append(out, guardedValidator[T]{r: r, v: v.(atesor.Validator[T])})
	}
	return out
}

// guardedValidator runs an embedder's validator and records its panic on the run.
type guardedValidator[T any] struct {
	r *run
	v atesor.Validator[T]
}

func (g guardedValidator[T]) Validate(a *T) error {
	defer g.r.recordValidatorPanic(reflect.TypeFor[T]())
	return g.v.Validate(a)
}

// recordValidatorPanic, deferred around an embedder's validator, records a panic of
// the validator and panics again, so the model call stops at once; the node then ends
// with the recorded error.
func (r *run) recordValidatorPanic(t reflect.Type) {
	p := recover()
	if p == nil {
		return
	}
	r.panicMu.Lock()
	if r.validatorPanic == nil {
		r.validatorPanic = fmt.Errorf("the validator of %s (WithValidator) panicked: %v", t, p)
		r.log.Error("validator panicked", "type", t.String(), "panic", p)
	}
	r.panicMu.Unlock()
	panic(p)
}

// takeValidatorPanic returns and clears the validator panic recorded during a node.
func (r *run) takeValidatorPanic() error {
	r.panicMu.Lock()
	defer r.panicMu.Unlock()
	err := r.validatorPanic
	r.validatorPanic = nil
	return err
}

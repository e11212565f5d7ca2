package graph

import (
	"reflect"

	"github.com/eclipse-atesor/atesor-go"
)

// WithValidator adds v to the checks of every model answer of type T the pipeline's
// nodes ask for: [atesor.AnalysisAnswer] (analyst), [atesor.BuildPlan] (scout),
// [atesor.FixProposal] (fixer) and [atesor.CuratorAnswer] (artifact curator). It runs
// after the answer decoded (package validate's schema) and passed the node's own rules;
// its error goes back to the model as a critique, like theirs, and an answer that never
// passes makes the node use its scripted fallback. Several validators of one type run
// in the order given. A [validate.Rejection] error names its rule in the
// atesor.EventAnswerRejected event; any other error is reported as rule "validator".
func WithValidator[T any](v atesor.Validator[T]) Option {
	return func(o *options) {
		if o.validators == nil {
			o.validators = map[reflect.Type][]any{}
		}
		t := reflect.TypeFor[T]()
		o.validators[t] = append(o.validators[t], v)
	}
}

// validatorsFor returns the embedder's validators of answers of type T.
func validatorsFor[T any](o *options) []atesor.Validator[T] {
	var out []atesor.Validator[T]
	for _, v := range o.validators[reflect.TypeFor[T]()] {
		out = append(out, v.(atesor.Validator[T]))
	}
	return out
}

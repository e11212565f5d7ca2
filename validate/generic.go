package validate

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode"
)

// generic holds the kinds of struct types that are not built-in answers: an embedder's
// own answer types, each generated on first use and cached.
var generic struct {
	mu    sync.Mutex
	kinds map[reflect.Type]*kind
}

// genericKind returns the kind of any struct type t, building its schemas on first use:
// required properties are the fields without omitempty or omitzero, unknown keys are
// ignored, a null counts as an absent key, and integral numbers such as 7.0 decode into
// int fields.
func genericKind(t reflect.Type) (*kind, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("validate: %v is not a struct type; Decode, Schema and StrictSchema take a struct whose fields have json tags", t)
	}
	generic.mu.Lock()
	defer generic.mu.Unlock()
	if k, ok := generic.kinds[t]; ok {
		return k, nil
	}
	k := &kind{name: answerName(t), patch: noPatch, pre: noPre, post: func(any, map[string]any) {}}
	if err := k.build(reflect.New(t).Interface()); err != nil {
		return nil, fmt.Errorf("validate: schema for %v: %w", t, err)
	}
	if generic.kinds == nil {
		generic.kinds = map[reflect.Type]*kind{}
	}
	generic.kinds[t] = k
	return k, nil
}

// answerName names a type in error texts: "ReleaseNote" becomes "release note answer",
// and "RiskAnswer" "risk answer" (a type named after its role as an answer keeps one).
func answerName(t reflect.Type) string {
	name := t.Name()
	if name == "" {
		return "answer"
	}
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	words := b.String()
	if words == "answer" || strings.HasSuffix(words, " answer") {
		return words
	}
	return words + " answer"
}

package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/invopop/jsonschema"
	sv "github.com/santhosh-tekuri/jsonschema/v6"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// kind is one answer type with its two schemas and its lenient decoding steps.
type kind struct {
	name string
	// patch adapts the reflected definitions for lenient acceptance.
	patch func(defs map[string]any)
	// pre normalizes and checks the raw object before schema validation.
	pre func(obj map[string]any) error
	// post defaults and clamps the decoded value.
	post func(v any, obj map[string]any)

	lenient  []byte
	strict   []byte
	compiled *sv.Schema
}

type registry map[reflect.Type]*kind

// kinds returns the answer types, each with schemas generated and compiled once.
var kinds = sync.OnceValues(buildRegistry)

func buildRegistry() (registry, error) {
	specs := []struct {
		v any
		k *kind
	}{
		{&atesor.AnalysisAnswer{}, &kind{name: "analysis", patch: patchAnalysis, pre: preAnalysis, post: postAnalysis}},
		{&atesor.BuildPlan{}, &kind{name: "build plan", patch: patchPlan, pre: noPre, post: postPlan}},
		{&atesor.FixProposal{}, &kind{name: "fixer answer", patch: patchFix, pre: preFix, post: postFix}},
		{&atesor.CuratorAnswer{}, &kind{name: "curator ranking", patch: patchCurator, pre: noPre, post: postCurator}},
		{&atesor.ProgramRun{}, &kind{name: "program run", patch: noPatch, pre: noPre, post: postProgramRun}},
		{&atesor.Harness{}, &kind{name: "harness", patch: noPatch, pre: preHarness, post: postHarness}},
	}
	reg := registry{}
	for _, s := range specs {
		if err := s.k.build(s.v); err != nil {
			return nil, fmt.Errorf("validate: schema for %s: %w", s.k.name, err)
		}
		reg[reflect.TypeOf(s.v).Elem()] = s.k
	}
	return reg, nil
}

func (k *kind) build(v any) error {
	r := &jsonschema.Reflector{Anonymous: true, Mapper: mapType}
	s := r.Reflect(v)
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return err
	}
	strictDefs := deepCopy(root["$defs"]).(map[string]any)
	lenientDefs := deepCopy(root["$defs"]).(map[string]any)
	ref, _ := root["$ref"].(string)

	for _, d := range lenientDefs {
		if m, ok := d.(map[string]any); ok {
			delete(m, "additionalProperties")
		}
	}
	k.patch(lenientDefs)
	lenient := inline(map[string]any{"$ref": ref}, lenientDefs, 0).(map[string]any)
	strict := inline(map[string]any{"$ref": ref}, strictDefs, 0).(map[string]any)
	makeStrict(strict)

	if k.lenient, err = json.Marshal(lenient); err != nil {
		return err
	}
	if k.strict, err = json.Marshal(strict); err != nil {
		return err
	}
	if k.compiled, err = compile(k.lenient); err != nil {
		return fmt.Errorf("lenient: %w", err)
	}
	if _, err = compile(k.strict); err != nil {
		return fmt.Errorf("strict: %w", err)
	}
	return nil
}

func compile(schema []byte) (*sv.Schema, error) {
	doc, err := sv.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := sv.NewCompiler()
	c.DefaultDraft(sv.Draft2020)
	if err := c.AddResource("mem://answer.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("mem://answer.json")
}

// mapType gives strategy ids their number-or-string schema.
func mapType(t reflect.Type) *jsonschema.Schema {
	if t == reflect.TypeOf(atesor.StrategyID("")) {
		return &jsonschema.Schema{
			AnyOf:       []*jsonschema.Schema{{Type: "integer"}, {Type: "string", MinLength: ptr(uint64(1))}},
			Description: "strategy id, a number or a string",
		}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}

// inline replaces every $ref into $defs with a copy of the definition.
func inline(v any, defs map[string]any, depth int) any {
	if depth > 32 {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok && len(ref) > len("#/$defs/") {
			name := ref[len("#/$defs/"):]
			if d, ok := defs[name]; ok {
				return inline(deepCopy(d), defs, depth+1)
			}
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = inline(e, defs, depth+1)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = inline(e, defs, depth+1)
		}
		return s
	}
	return v
}

// makeStrict turns every object schema into the structured-output form: all properties
// required, no additional properties, optional properties nullable through anyOf.
func makeStrict(v any) {
	switch x := v.(type) {
	case map[string]any:
		if props, ok := x["properties"].(map[string]any); ok {
			req := map[string]bool{}
			if r, ok := x["required"].([]any); ok {
				for _, n := range r {
					req[fmt.Sprint(n)] = true
				}
			}
			all := make([]any, 0, len(props))
			for _, name := range sortedKeys(props) {
				all = append(all, name)
				makeStrict(props[name])
				if !req[name] {
					props[name] = map[string]any{"anyOf": []any{props[name], map[string]any{"type": "null"}}}
				}
			}
			x["required"] = all
			x["additionalProperties"] = false
		}
		for k, e := range x {
			if k != "properties" {
				makeStrict(e)
			}
		}
	case []any:
		for _, e := range x {
			makeStrict(e)
		}
	}
}

func def(defs map[string]any, name string) map[string]any {
	m, _ := defs[name].(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}

func prop(d map[string]any, name string) map[string]any {
	props, _ := d["properties"].(map[string]any)
	if props == nil {
		return map[string]any{}
	}
	m, _ := props[name].(map[string]any)
	if m == nil {
		return map[string]any{}
	}
	return m
}

func noPatch(map[string]any) {}

func patchAnalysis(defs map[string]any) {
	c := prop(def(defs, "AnalysisAnswer"), "complexity")
	delete(c, "minimum")
	delete(c, "maximum")
	conf := prop(def(defs, "BuildSystemClaim"), "confidence")
	delete(conf, "minimum")
	delete(conf, "maximum")
	if dep, ok := defs["Dependency"]; ok {
		defs["Dependency"] = map[string]any{"anyOf": []any{
			map[string]any{"type": "string", "minLength": 1},
			dep,
		}}
	}
}

func patchPlan(defs map[string]any) {
	cmds := prop(def(defs, "Phase"), "commands")
	if items, ok := cmds["items"].(map[string]any); ok {
		items["minLength"] = 1
	}
}

func patchFix(defs map[string]any) {
	delete(def(defs, "Strategy"), "required")
	def(defs, "Action")["required"] = []any{"type"}
	inv := prop(def(defs, "Investigation"), "commands")
	delete(inv, "maxItems")
	if items, ok := inv["items"].(map[string]any); ok {
		items["minLength"] = 1
	}
	def(defs, "FixProposal")["anyOf"] = []any{
		map[string]any{"required": []any{"strategies"}},
		map[string]any{"required": []any{"investigate"}},
	}
}

func patchCurator(defs map[string]any) {
	d := def(defs, "CuratorAnswer")
	for _, name := range []string{"primary", "secondary", "drop"} {
		if items, ok := prop(d, name)["items"].(map[string]any); ok {
			items["minimum"] = 0
		}
	}
}

// lookup returns the kind of T.
func lookup(t reflect.Type) (*kind, error) {
	reg, err := kinds()
	if err != nil {
		return nil, err
	}
	if k, ok := reg[t]; ok {
		return k, nil
	}
	return genericKind(t)
}

// Schema returns the JSON schema Decode checks answers of type T against, as compact
// JSON with every definition inlined, ready to put into a prompt. T is any struct type:
// the built-in answers (atesor.AnalysisAnswer, BuildPlan, FixProposal, CuratorAnswer,
// ProgramRun, Harness) have hand-tuned lenient schemas, any other struct gets one
// generated from its fields on first use and cached (see [Decode]).
func Schema[T any]() (json.RawMessage, error) {
	k, err := lookup(reflect.TypeOf((*T)(nil)).Elem())
	if err != nil {
		return nil, err
	}
	return append(json.RawMessage(nil), k.lenient...), nil
}

// StrictSchema returns the strict variant of T's schema for providers' structured-output
// modes: every property required, additionalProperties false, optional properties
// nullable through anyOf (never oneOf). Decode accepts answers that follow it (nulls count
// as absent).
func StrictSchema[T any]() (json.RawMessage, error) {
	k, err := lookup(reflect.TypeOf((*T)(nil)).Elem())
	if err != nil {
		return nil, err
	}
	return append(json.RawMessage(nil), k.strict...), nil
}

// SchemaText returns [Schema] as a string for prompts, or "" when T has no schema.
func SchemaText[T any]() string {
	s, err := Schema[T]()
	if err != nil {
		return ""
	}
	return string(s)
}

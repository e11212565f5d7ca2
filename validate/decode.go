package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	sv "github.com/santhosh-tekuri/jsonschema/v6"
	skind "github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// Limits the lenient decoding clamps to: enough for any real package, small enough that a
// runaway answer cannot flood the prompts it feeds.
const (
	MaxDependencies      = 15
	MaxRiscvRisks        = 10
	MaxExpectedArtifacts = 10
	MinComplexity        = 1
	MaxComplexity        = 10
	// DefaultComplexity is used when an analysis gives no complexity.
	DefaultComplexity = 5
)

// SchemaError is the error Decode returns for an answer that breaks its schema. Its text
// names each JSON path and the rule, in words a model can act on.
type SchemaError struct {
	// Answer is the kind of answer, such as "build plan".
	Answer string
	// Problems are the individual findings, one per JSON location.
	Problems []string
}

// Error lists the problems.
func (e *SchemaError) Error() string {
	return "the " + e.Answer + " does not match the required JSON shape: " + strings.Join(e.Problems, "; ")
}

// Decode parses raw as a JSON answer of type T, checks it against T's schema, and returns
// it with defaults filled in and lists and numbers clamped. T is any struct type, so an
// embedder's node can validate its own model answers the way the pipeline's nodes do.
//
// For a struct that is not a built-in answer, the schema is generated from T on first use
// (invopop/jsonschema, jsonschema struct tags honoured) and cached: a field whose json tag
// has no omitempty or omitzero is required, unknown keys are ignored, a null counts as an
// absent key, and an integral number such as 7.0 decodes into an int field. Errors are
// *[SchemaError]s naming each JSON path, in words a model can act on.
//
// Acceptance is lenient, because models drift in shape more than in substance: unknown
// keys are ignored and a null counts as an absent key; only what a node cannot do without
// must be present. For an
// analysis: purpose (non-empty), build_system as an object with a type, dependencies as an
// array (of names or {name, evidence} objects), needs_custom_plan as a JSON boolean (the
// string "true" is rejected); dependencies are cut to 15, riscv_risks and
// expected_artifacts to 10, complexity clamped to 1..10 (5 when absent) and confidence to
// 0..1. A build plan needs phases with names and non-empty string commands. A fixer
// answer needs strategies or investigate; strategy ids may be numbers or strings; each
// action needs a known type (command, create_file, patch); a strategy without an id gets
// its position (1, 2, ...), a missing recommended_strategy_id the first strategy's id,
// and investigate commands are cut to 4. Decode checks the shape only; the semantic
// rules are the other functions of this package.
func Decode[T any](raw []byte) (T, error) {
	var zero T
	k, err := lookup(reflect.TypeOf((*T)(nil)).Elem())
	if err != nil {
		return zero, err
	}
	inst, err := sv.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return zero, &SchemaError{Answer: k.name, Problems: []string{"the answer is not valid JSON (" + err.Error() + "); answer with one JSON object only"}}
	}
	obj, ok := inst.(map[string]any)
	if !ok {
		return zero, &SchemaError{Answer: k.name, Problems: []string{fmt.Sprintf("the answer is a JSON %s, not an object; answer with one JSON object {...}", jsonType(inst))}}
	}
	dropNulls(obj)
	if err := k.pre(obj); err != nil {
		return zero, &SchemaError{Answer: k.name, Problems: []string{err.Error()}}
	}
	if err := k.compiled.Validate(obj); err != nil {
		var ve *sv.ValidationError
		if errors.As(err, &ve) {
			return zero, &SchemaError{Answer: k.name, Problems: describe(ve)}
		}
		return zero, &SchemaError{Answer: k.name, Problems: []string{err.Error()}}
	}
	normalizeNumbers(obj)
	b, err := json.Marshal(obj)
	if err != nil {
		return zero, fmt.Errorf("validate: re-encode %s: %w", k.name, err)
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return zero, &SchemaError{Answer: k.name, Problems: []string{"a value has the wrong type (" + err.Error() + ")"}}
	}
	k.post(&v, obj)
	return v, nil
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// dropNulls removes object keys whose value is null, at every level: a null is an
// absent value (strict structured outputs send null for optional fields).
func dropNulls(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			dropNulls(e)
		}
	case []any:
		for _, e := range x {
			dropNulls(e)
		}
	}
}

// normalizeNumbers rewrites integral numbers such as 7.0 or 1e2 as integers, so that they
// decode into int fields.
func normalizeNumbers(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if n, ok := e.(json.Number); ok {
				x[k] = integral(n)
				continue
			}
			normalizeNumbers(e)
		}
	case []any:
		for i, e := range x {
			if n, ok := e.(json.Number); ok {
				x[i] = integral(n)
				continue
			}
			normalizeNumbers(e)
		}
	}
}

func integral(n json.Number) json.Number {
	if _, err := n.Int64(); err == nil {
		return n
	}
	f, err := n.Float64()
	if err != nil || math.Trunc(f) != f || math.Abs(f) > 1<<53 {
		return n
	}
	return json.Number(strconv.FormatInt(int64(f), 10))
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

var printer = message.NewPrinter(language.English)

// describe turns a validation error tree into one sentence per finding.
func describe(ve *sv.ValidationError) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(e *sv.ValidationError)
	walk = func(e *sv.ValidationError) {
		if _, ok := e.ErrorKind.(*skind.AnyOf); ok {
			var wants []string
			for _, c := range e.Causes {
				if t, ok := c.ErrorKind.(*skind.Type); ok {
					wants = append(wants, t.Want...)
				}
			}
			if len(wants) == len(e.Causes) && len(wants) > 0 {
				add(&out, seen, e.InstanceLocation, "must be a JSON "+strings.Join(wants, " or "))
				return
			}
		}
		if len(e.Causes) == 0 {
			add(&out, seen, e.InstanceLocation, words(e))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(out) == 0 {
		out = append(out, ve.Error())
	}
	return out
}

func add(out *[]string, seen map[string]bool, loc []string, msg string) {
	s := "at " + location(loc) + ": " + msg
	if !seen[s] {
		seen[s] = true
		*out = append(*out, s)
	}
}

// location renders a JSON location as build_system.type or phases[0].commands[1].
func location(loc []string) string {
	if len(loc) == 0 {
		return "the top level"
	}
	var b strings.Builder
	for _, p := range loc {
		if _, err := strconv.Atoi(p); err == nil {
			b.WriteString("[" + p + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

func words(e *sv.ValidationError) string {
	switch k := e.ErrorKind.(type) {
	case *skind.Required:
		names := make([]string, len(k.Missing))
		for i, m := range k.Missing {
			names[i] = strconv.Quote(m)
		}
		return "missing required field " + strings.Join(names, ", ") + "; add it"
	case *skind.Type:
		want := strings.Join(k.Want, " or ")
		msg := "must be a JSON " + want + ", not a " + k.Got
		if want == "boolean" {
			msg += " (write true or false without quotes)"
		}
		if want == "array" {
			msg += " (write a list [...])"
		}
		return msg
	case *skind.Enum:
		var ws []string
		for _, w := range k.Want {
			ws = append(ws, fmt.Sprint(w))
		}
		return fmt.Sprintf("%v is not allowed; use one of %s", k.Got, strings.Join(ws, ", "))
	case *skind.MinLength:
		if k.Want == 1 {
			return "must not be empty"
		}
		return fmt.Sprintf("needs at least %d characters", k.Want)
	case *skind.MinItems:
		return fmt.Sprintf("needs at least %d item(s), has %d", k.Want, k.Got)
	case *skind.MaxItems:
		return fmt.Sprintf("has %d items; give at most %d", k.Got, k.Want)
	}
	return e.ErrorKind.LocalizedString(printer)
}

func noPre(map[string]any) error { return nil }

func lowerString(obj map[string]any, key string) {
	if s, ok := obj[key].(string); ok {
		obj[key] = strings.ToLower(strings.TrimSpace(s))
	}
}

func clampNumber(obj map[string]any, key string, lo, hi float64) {
	n, ok := obj[key].(json.Number)
	if !ok {
		return
	}
	f, err := n.Float64()
	if err != nil {
		return
	}
	f = math.Max(lo, math.Min(hi, f))
	if key == "complexity" {
		f = math.Round(f)
	}
	obj[key] = json.Number(strconv.FormatFloat(f, 'f', -1, 64))
}

func preAnalysis(obj map[string]any) error {
	if bs, ok := obj["build_system"].(map[string]any); ok {
		lowerString(bs, "type")
		clampNumber(bs, "confidence", 0, 1)
	}
	clampNumber(obj, "complexity", MinComplexity, MaxComplexity)
	return nil
}

func postAnalysis(v any, obj map[string]any) {
	a := v.(*atesor.AnalysisAnswer)
	a.Purpose = strings.TrimSpace(a.Purpose)
	if _, ok := obj["complexity"]; !ok {
		a.Complexity = DefaultComplexity
	}
	a.Dependencies = clampList(a.Dependencies, MaxDependencies)
	a.RiscvRisks = clampList(a.RiscvRisks, MaxRiscvRisks)
	a.ExpectedArtifacts = clampList(a.ExpectedArtifacts, MaxExpectedArtifacts)
}

func clampList[E any](s []E, n int) []E {
	if s == nil {
		return []E{}
	}
	if len(s) > n {
		return s[:n:n]
	}
	return s
}

func postPlan(v any, _ map[string]any) {
	p := v.(*atesor.BuildPlan)
	for i := range p.Phases {
		p.Phases[i].Name = strings.TrimSpace(p.Phases[i].Name)
		for j, c := range p.Phases[i].Commands {
			p.Phases[i].Commands[j] = strings.TrimSpace(c)
		}
	}
}

func preFix(obj map[string]any) error {
	_, hasS := obj["strategies"]
	_, hasI := obj["investigate"]
	if !hasS && !hasI {
		return errors.New(`the answer needs "strategies" (a list of {"id", "description", "actions"}) with "recommended_strategy_id", or, in the first round only, "investigate": {"commands": [...]}`)
	}
	if ss, ok := obj["strategies"].([]any); ok {
		for _, s := range ss {
			st, ok := s.(map[string]any)
			if !ok {
				continue
			}
			if as, ok := st["actions"].([]any); ok {
				for _, a := range as {
					if am, ok := a.(map[string]any); ok {
						lowerString(am, "type")
						if t, _ := am["type"].(string); t == "create-file" || t == "createfile" {
							am["type"] = string(atesor.ActionCreateFile)
						}
					}
				}
			}
		}
	}
	return nil
}

func postFix(v any, _ map[string]any) {
	p := v.(*atesor.FixProposal)
	for i := range p.Strategies {
		if p.Strategies[i].ID == "" {
			p.Strategies[i].ID = atesor.StrategyID(strconv.Itoa(i + 1))
		}
		if p.Strategies[i].Actions == nil {
			p.Strategies[i].Actions = []atesor.Action{}
		}
	}
	if p.RecommendedStrategyID == "" && len(p.Strategies) > 0 {
		p.RecommendedStrategyID = p.Strategies[0].ID
	}
	if p.Investigate != nil && len(p.Investigate.Commands) > MaxInvestigationCommands {
		p.Investigate.Commands = p.Investigate.Commands[:MaxInvestigationCommands:MaxInvestigationCommands]
	}
}

func postCurator(v any, _ map[string]any) {
	c := v.(*atesor.CuratorAnswer)
	c.Primary = clampList(c.Primary, math.MaxInt32)
	c.Secondary = clampList(c.Secondary, math.MaxInt32)
	c.Drop = clampList(c.Drop, math.MaxInt32)
}

func postProgramRun(v any, _ map[string]any) {
	r := v.(*atesor.ProgramRun)
	r.Program = strings.TrimSpace(r.Program)
	r.Command = strings.TrimSpace(r.Command)
}

func preHarness(obj map[string]any) error {
	lowerString(obj, "language")
	switch obj["language"] {
	case "c++", "cxx", "cc":
		obj["language"] = "cpp"
	case "golang":
		obj["language"] = "go"
	case "rs":
		obj["language"] = "rust"
	}
	return nil
}

func postHarness(v any, _ map[string]any) {
	h := v.(*atesor.Harness)
	h.Filename = strings.TrimSpace(h.Filename)
	if h.Functions == nil {
		h.Functions = []string{}
	}
}

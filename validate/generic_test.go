package validate

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// releaseNote is an embedder's own answer type, unknown to the package.
type releaseNote struct {
	Title    string   `json:"title" jsonschema:"minLength=1"`
	Items    []string `json:"items"`
	Severity string   `json:"severity,omitempty" jsonschema:"enum=low,enum=high"`
	Score    int      `json:"score,omitempty"`
	Author   *person  `json:"author,omitempty"`
}

type person struct {
	Name string `json:"name"`
}

func TestDecodeAnyStruct(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    releaseNote
		problem string // a fragment of the SchemaError, "" for success
	}{
		{"minimal", `{"title":"t","items":[]}`, releaseNote{Title: "t", Items: []string{}}, ""},
		{"extra keys and nulls are ignored", `{"title":"t","items":["a"],"mood":"happy","severity":null,"author":{"name":"ada","x":1}}`,
			releaseNote{Title: "t", Items: []string{"a"}, Author: &person{Name: "ada"}}, ""},
		{"integral float into int", `{"title":"t","items":[],"score":7.0}`, releaseNote{Title: "t", Items: []string{}, Score: 7}, ""},
		{"missing required", `{"items":[]}`, releaseNote{}, `missing required field "title"`},
		{"empty string", `{"title":"","items":[]}`, releaseNote{}, "at title: must not be empty"},
		{"enum", `{"title":"t","items":[],"severity":"medium"}`, releaseNote{}, "use one of low, high"},
		{"nested required", `{"title":"t","items":[],"author":{}}`, releaseNote{}, `at author: missing required field "name"`},
		{"not an object", `["t"]`, releaseNote{}, "not an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode[releaseNote]([]byte(tt.raw))
			if tt.problem == "" {
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(tt.want, got); d != "" {
					t.Errorf("decoded (-want +got):\n%s", d)
				}
				return
			}
			var se *SchemaError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tt.problem) {
				t.Fatalf("err = %v, want a SchemaError with %q", err, tt.problem)
			}
			if se.Answer != "release note answer" {
				t.Errorf("answer name %q", se.Answer)
			}
		})
	}
}

func TestSchemaOfAnyStructIsCachedAndStrictVariant(t *testing.T) {
	a, err := Schema[releaseNote]()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Schema[releaseNote]()
	if string(a) != string(b) {
		t.Error("the schema changed between calls")
	}
	k1, _ := lookup(typeOf[releaseNote]())
	k2, _ := lookup(typeOf[releaseNote]())
	if k1 != k2 {
		t.Error("the schema was generated twice")
	}
	var lenient map[string]any
	if err := json.Unmarshal(a, &lenient); err != nil {
		t.Fatal(err)
	}
	if _, ok := lenient["additionalProperties"]; ok {
		t.Error("the lenient schema refuses unknown keys")
	}
	if d := cmp.Diff([]any{"title", "items"}, lenient["required"]); d != "" {
		t.Errorf("required (-want +got):\n%s", d)
	}
	strict, err := StrictSchema[releaseNote]()
	if err != nil {
		t.Fatal(err)
	}
	var sm map[string]any
	if err := json.Unmarshal(strict, &sm); err != nil {
		t.Fatal(err)
	}
	if sm["additionalProperties"] != false || len(sm["required"].([]any)) != 5 {
		t.Errorf("strict schema %s", strict)
	}
	if strings.Contains(string(strict), "oneOf") {
		t.Errorf("strict schema uses oneOf: %s", strict)
	}
}

func TestDecodeRefusesNonStruct(t *testing.T) {
	if _, err := Decode[map[string]any]([]byte(`{}`)); err == nil || !strings.Contains(err.Error(), "not a struct type") {
		t.Errorf("err = %v", err)
	}
	if _, err := Schema[[]string](); err == nil {
		t.Error("a slice type got a schema")
	}
}

func BenchmarkDecodeAnyStruct(b *testing.B) {
	raw := []byte(`{"title":"t","items":["a","b"],"score":3,"author":{"name":"ada"}}`)
	for b.Loop() {
		if _, err := Decode[releaseNote](raw); err != nil {
			b.Fatal(err)
		}
	}
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

type RiskAnswer struct{}
type ReleaseNote struct{}
type Answer struct{}

func TestAnswerNameSaysAnswerOnce(t *testing.T) {
	for typ, want := range map[reflect.Type]string{
		reflect.TypeFor[RiskAnswer]():  "risk answer",
		reflect.TypeFor[ReleaseNote](): "release note answer",
		reflect.TypeFor[Answer]():      "answer",
		reflect.TypeFor[struct{}]():    "answer",
	} {
		if got := answerName(typ); got != want {
			t.Errorf("answerName(%v) = %q, want %q", typ, got, want)
		}
	}
}

package llm_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cloudwego/eino/schema"

	"github.com/eclipse-atesor/atesor-go/llm"
)

func TestExtractJSON(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{`{"a":1}`, `{"a":1}`, true},
		{"Here you go:\n```json\n{\"a\": {\"b\": [1]}}\n```\nDone.", `{"a": {"b": [1]}}`, true},
		{`prose with no json`, ``, false},
		{`} backwards {`, ``, false},
		{`[1,2,3]`, ``, false},
		{`{"a":1} and {"b":2}`, ``, false},
		{`{"a": }`, ``, false},
		{`{"s":"a } inside"} trailing`, `{"s":"a } inside"}`, true},
		{`{}`, `{}`, true},
	}
	for _, tt := range tests {
		got, err := llm.ExtractJSON(tt.in)
		if tt.ok != (err == nil) {
			t.Errorf("ExtractJSON(%q) err = %v", tt.in, err)
			continue
		}
		if !tt.ok && !errors.Is(err, llm.ErrNoJSON) {
			t.Errorf("ExtractJSON(%q) err %v is not ErrNoJSON", tt.in, err)
		}
		if string(got) != tt.want {
			t.Errorf("ExtractJSON(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestExtractContent(t *testing.T) {
	withParts := &schema.Message{Role: schema.Assistant, AssistantGenMultiContent: []schema.MessageOutputPart{
		{Type: schema.ChatMessagePartTypeReasoning, Reasoning: &schema.MessageOutputReasoning{Text: "{not json"}},
		{Type: schema.ChatMessagePartTypeText, Text: `{"a":`},
		{Type: schema.ChatMessagePartTypeText, Text: `1}`},
	}}
	tests := []struct {
		name string
		msg  *schema.Message
		want string
	}{
		{"nil", nil, ""},
		{"text", schema.AssistantMessage("hello", nil), "hello"},
		{"thinking field dropped", &schema.Message{Content: `{"a":1}`, ReasoningContent: "{broken"}, `{"a":1}`},
		{"parts", withParts, `{"a":1}`},
		{"inline think", schema.AssistantMessage("<think>maybe {x}</think>\n{\"a\":1}", nil), "\n{\"a\":1}"},
		{"unfinished think", schema.AssistantMessage("<think>still going {", nil), ""},
	}
	for _, tt := range tests {
		if got := llm.ExtractContent(tt.msg); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func FuzzExtractJSON(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "x {\"a\":[1,{}]} y", `}{`, `{"a":"}"}`, "{\n}", `{{}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw, err := llm.ExtractJSON(s)
		if err != nil {
			return
		}
		if len(raw) < 2 || raw[0] != '{' || raw[len(raw)-1] != '}' || !strings.Contains(s, string(raw)) {
			t.Fatalf("ExtractJSON(%q) = %q", s, raw)
		}
	})
}

func FuzzExtractContent(f *testing.F) {
	f.Add("hello", "thinking", "part")
	f.Add("<think>x</think>{}", "", "")
	f.Add("", "", "<think>")
	f.Fuzz(func(t *testing.T, content, reasoning, part string) {
		msg := &schema.Message{Content: content, ReasoningContent: reasoning, AssistantGenMultiContent: []schema.MessageOutputPart{
			{Type: schema.ChatMessagePartTypeText, Text: part},
			{Type: schema.ChatMessagePartTypeReasoning, Reasoning: &schema.MessageOutputReasoning{Text: reasoning}},
		}}
		got := llm.ExtractContent(msg)
		src := content
		if src == "" {
			src = part
		}
		if !strings.HasSuffix(src, got) {
			t.Fatalf("ExtractContent = %q, not a tail of the text %q", got, src)
		}
		if utf8.ValidString(src) && !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 from valid input")
		}
	})
}

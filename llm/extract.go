package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/schema"
)

// ErrNoJSON is wrapped by [ExtractJSON] when a reply holds no JSON object.
var ErrNoJSON = errors.New("no JSON object in the reply")

// ExtractContent returns the text parts of a model reply and nothing else: thinking parts
// (ReasoningContent, reasoning parts, a leading <think>...</think> block some models
// write into their content) and tool calls never reach the JSON parser. For a reply
// given only as parts, the text parts are joined in order.
func ExtractContent(msg *schema.Message) string {
	if msg == nil {
		return ""
	}
	text := msg.Content
	if text == "" {
		var b strings.Builder
		for _, p := range msg.AssistantGenMultiContent {
			if p.Type == schema.ChatMessagePartTypeText {
				b.WriteString(p.Text)
			}
		}
		for _, p := range msg.MultiContent { //nolint:staticcheck // older clients still fill it
			if p.Type == schema.ChatMessagePartTypeText {
				b.WriteString(p.Text)
			}
		}
		text = b.String()
	}
	return stripThink(text)
}

// stripThink removes thinking blocks written inline at the start of a reply.
func stripThink(s string) string {
	for {
		t := strings.TrimLeft(s, " \t\r\n")
		if !strings.HasPrefix(t, "<think>") {
			return s
		}
		end := strings.Index(t, "</think>")
		if end < 0 {
			return "" // thinking that never ended: no answer text
		}
		s = t[end+len("</think>"):]
	}
}

// ExtractJSON returns the text from the first '{' to the last '}' of a reply, checked to
// be one JSON value whose top level is an object. The error wraps [ErrNoJSON] when the
// reply has no braces, and tells what is wrong otherwise.
func ExtractJSON(text string) ([]byte, error) {
	start := strings.IndexByte(text, '{')
	end := strings.LastIndexByte(text, '}')
	if start < 0 || end < start {
		return nil, fmt.Errorf("%w: the reply has no {...} block", ErrNoJSON)
	}
	raw := []byte(text[start : end+1])
	dec := json.NewDecoder(bytes.NewReader(raw))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: the {...} block is not valid JSON: %v", ErrNoJSON, err)
	}
	if len(bytes.TrimSpace(raw[dec.InputOffset():])) > 0 {
		return nil, fmt.Errorf("%w: the {...} block holds more than one JSON object or text between them", ErrNoJSON)
	}
	return raw, nil
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// Compatible is an atesor.Provider for any server that speaks the OpenAI chat
// completions protocol (a local llama.cpp or vLLM server, a company gateway, ...),
// addressed by its base URL. Every role uses the same model.
type Compatible struct {
	// BaseURL is the API root, for example http://localhost:8080/v1; requests go to
	// BaseURL + "/chat/completions".
	BaseURL string
	// APIKey is sent as a bearer token when set.
	APIKey string
	// Model is the model id the server knows.
	Model string
	// MaxTokens is the output cap (default 8192).
	MaxTokens int
	// HTTP is the client (default: one with a 120 s timeout).
	HTTP *http.Client
	// Price is what the model costs; nil means free, as a model on one's own server is.
	// A gateway that charges sets its price here, so the run's budget counts it.
	Price *atesor.Price
}

var _ atesor.Provider = (*Compatible)(nil)

// Name is the provider's name in reports and audit logs.
func (c *Compatible) Name() string { return "openai-compatible" }

// Pool returns one model for every role: this server has no fallbacks.
func (c *Compatible) Pool(role atesor.Role) []atesor.ModelSpec {
	temp := float32(0.2)
	if role == atesor.RoleScout || role == atesor.RoleFixer {
		temp = 0.1
	}
	max := c.MaxTokens
	if max <= 0 {
		max = 8192
	}
	price := c.Price
	if price == nil {
		price = &atesor.Price{Source: "local server"}
	}
	return []atesor.ModelSpec{{Provider: c.Name(), Role: role, Model: c.Model, Temperature: &temp, MaxTokens: max, Price: price}}
}

// ChatModel returns a chat model for spec.
func (c *Compatible) ChatModel(_ context.Context, spec atesor.ModelSpec) (model.BaseChatModel, error) {
	if c.BaseURL == "" {
		return nil, errors.New("openai-compatible: no base URL; set it to the server's API root, for example http://localhost:8080/v1")
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 120 * time.Second}
	}
	// The pipeline never streams: GenerateOnly supplies Stream from Generate.
	return atesor.GenerateOnly(&chatModel{p: c, spec: spec, hc: hc}), nil
}

// chatModel is one configured model. It implements Generate only, which is all the
// pipeline calls.
type chatModel struct {
	p    *Compatible
	spec atesor.ModelSpec
	hc   *http.Client
}

type wireMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type wireRequest struct {
	Model       string        `json:"model"`
	Messages    []wireMessage `json:"messages"`
	Temperature *float32      `json:"temperature,omitempty"`
	MaxTokens   int           `json:"max_tokens,omitempty"`
}

type wireResponse struct {
	Choices []struct {
		Message      wireMessage `json:"message"`
		FinishReason string      `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

// Generate sends the messages and returns the assistant's reply. An HTTP error comes
// back as a *atesor.ProviderError, so the pipeline's error handling (rotation,
// Retry-After) works as with the built-in providers.
func (m *chatModel) Generate(ctx context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	req := wireRequest{Model: m.spec.Model, Temperature: m.spec.Temperature, MaxTokens: m.spec.MaxTokens}
	for _, msg := range input {
		req.Messages = append(req.Messages, wireMessage{Role: string(msg.Role), Content: msg.Content})
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	url := strings.TrimRight(m.p.BaseURL, "/") + "/chat/completions"
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	if m.p.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+m.p.APIKey)
	}
	resp, err := m.hc.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("openai-compatible %s: %w", url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("openai-compatible %s: read the answer: %w", url, err)
	}
	if resp.StatusCode >= 400 {
		pe := &atesor.ProviderError{Provider: m.p.Name(), Model: m.spec.Model, Status: resp.StatusCode, Body: string(data)}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
			pe.RetryAfter = time.Duration(s) * time.Second
		}
		return nil, pe
	}
	var wr wireResponse
	if err := json.Unmarshal(data, &wr); err != nil {
		return nil, fmt.Errorf("openai-compatible %s: the answer is not a chat completion: %w", url, err)
	}
	if len(wr.Choices) == 0 {
		return nil, fmt.Errorf("openai-compatible %s: the answer has no choices", url)
	}
	c := wr.Choices[0]
	return &schema.Message{
		Role:    schema.Assistant,
		Content: c.Message.Content,
		ResponseMeta: &schema.ResponseMeta{
			FinishReason: c.FinishReason,
			Usage: &schema.TokenUsage{
				PromptTokens:     wr.Usage.PromptTokens,
				CompletionTokens: wr.Usage.CompletionTokens,
				TotalTokens:      wr.Usage.TotalTokens,
			},
		},
	}, nil
}

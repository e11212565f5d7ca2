package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/llm"
	"github.com/eclipse-atesor/atesor-go/provider"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
	"github.com/eclipse-atesor/atesor-go/provider/openai"
)

type answer struct {
	Name string `json:"name"`
}

func validName(a *answer) error {
	if a.Name == "" {
		return errors.New("name must be a non-empty string")
	}
	return nil
}

func prompt() []*schema.Message {
	return []*schema.Message{schema.SystemMessage("answer in JSON"), schema.UserMessage("name it")}
}

func newClient(p atesor.Provider) (*llm.Client, *llm.ManualClock) {
	clock := llm.NewManualClock(time.Unix(0, 0))
	return &llm.Client{Provider: p, Clock: clock, Audit: llm.NewAuditLog(nil), Repository: "zlib"}, clock
}

func TestCallCritiqueRetries(t *testing.T) {
	tests := []struct {
		name         string
		replies      []string
		wantOK       bool
		wantAttempts int
		wantThread   int // messages in the last prompt
	}{
		{"valid at once", []string{`{"name":"zlib"}`}, true, 1, 2},
		{"fails validation twice", []string{`{"name":""}`, `{"other":1}`, `Sure: {"name":"zlib"}`}, true, 3, 6},
		{"fails validation three times", []string{`{"name":""}`, `{"name":""}`, `{"name":""}`, `{"name":"late"}`}, false, 3, 6},
		{"wrong type is a critique", []string{`{"name":5}`, `{"name":"x"}`}, true, 2, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fake.New()
			for _, r := range tt.replies {
				p.QueueReply(atesor.RoleScout, fake.Reply{Text: r, InputTokens: 100, OutputTokens: 10})
			}
			c, _ := newClient(p)
			out := llm.Call(context.Background(), c, llm.Request[answer]{Role: atesor.RoleScout, Messages: prompt(), Validate: validName})
			if out.OK() != tt.wantOK || out.Attempts != tt.wantAttempts {
				t.Fatalf("ok=%v attempts=%d err=%v", out.OK(), out.Attempts, out.LastErr)
			}
			if !tt.wantOK && !errors.Is(out.LastErr, llm.ErrInvalid) {
				t.Errorf("LastErr %v is not ErrInvalid", out.LastErr)
			}
			prompts := p.Prompts(atesor.RoleScout)
			if last := prompts[len(prompts)-1]; len(last) != tt.wantThread {
				t.Errorf("last prompt has %d messages, want %d", len(last), tt.wantThread)
			}
			if tt.wantThread > 2 {
				critique := prompts[len(prompts)-1][3].Content
				if !strings.Contains(critique, "failed validation") {
					t.Errorf("critique %q", critique)
				}
			}
			wantUsage := atesor.Usage{Calls: tt.wantAttempts, InputTokens: 100 * tt.wantAttempts, OutputTokens: 10 * tt.wantAttempts,
				CostUSD: llm.CostForUsage("fake-scout", 100*tt.wantAttempts, 10*tt.wantAttempts),
				Prices:  map[string]atesor.Price{"fake-scout": {Input: 3, Output: 12, Source: atesor.PriceUnknown}}}
			if d := cmp.Diff(wantUsage, out.Usage, cmpApprox); d != "" {
				t.Errorf("usage (-want +got):\n%s", d)
			}
			if n := len(c.Audit.Records()); n != tt.wantAttempts {
				t.Errorf("%d audit records, want %d", n, tt.wantAttempts)
			}
		})
	}
}

func TestCallDecoderAndMetadata(t *testing.T) {
	p := fake.New()
	p.Queue(atesor.RoleBuilder, `{"name":"bad"}`, `{"name":"good"}`)
	c, _ := newClient(p)
	decode := func(raw []byte) (answer, error) {
		var a answer
		if err := json.Unmarshal(raw, &a); err != nil {
			return a, err
		}
		if a.Name != "good" {
			return a, fmt.Errorf("at '/name': value must be good")
		}
		return a, nil
	}
	out := llm.Call(context.Background(), c, llm.Request[answer]{Role: atesor.RoleBuilder, Messages: prompt(), Decode: decode, Label: "optimizer", Node: "optimize", Phase: "optimize-harness-go"})
	if !out.OK() || out.Data.Name != "good" || out.Attempts != 2 {
		t.Fatalf("%+v", out)
	}
	recs := c.Audit.Records()
	if recs[1].Role != "optimizer" || recs[1].Metadata["phase"] != "optimize-harness-go" || recs[1].Metadata["attempt"] != 2 || recs[1].Metadata["repository"] != "zlib" {
		t.Errorf("record %+v", recs[1])
	}
	if recs[1].Metadata["node"] != "optimize" || recs[1].Metadata["llm_role"] != "builder" {
		t.Errorf("metadata does not name the node and the pool's role: %v", recs[1].Metadata)
	}
	if !strings.Contains(recs[1].Prompt, "value must be good") {
		t.Errorf("the logged thread lacks the critique: %s", recs[1].Prompt)
	}
}

func TestCallNeverPanicsOrErrors(t *testing.T) {
	out := llm.Call(context.Background(), &llm.Client{}, llm.Request[answer]{Role: atesor.RoleScout})
	if !errors.Is(out.LastErr, llm.ErrNoProvider) {
		t.Errorf("nil provider: %v", out.LastErr)
	}
	p := fake.New()
	p.Queue(atesor.RoleScout, `{"name":"x"}`)
	c, _ := newClient(p)
	out = llm.Call(context.Background(), c, llm.Request[answer]{Role: atesor.RoleScout, Validate: func(*answer) error { panic("boom") }})
	if out.OK() || out.LastErr == nil || !strings.Contains(out.LastErr.Error(), "boom") {
		t.Errorf("panicking validator: %+v", out)
	}
	p.Queue(atesor.RoleScout) // nothing queued: the fake errors, the call rotates, then gives up
	out = llm.Call(context.Background(), c, llm.Request[answer]{Role: atesor.RoleScout})
	if out.OK() || !errors.Is(out.LastErr, fake.ErrNoReply) || out.Attempts != 3 {
		t.Errorf("empty queue: %+v", out)
	}
}

// advanceOnTimers fires the wall timer of the next n hanging calls to p, one after
// another, each once the fake has received the call (so the timer never fires before
// the call has taken its reply).
func advanceOnTimers(p *fake.Provider, clock *llm.ManualClock, n int, by time.Duration) chan struct{} {
	from := len(p.Calls())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i <= n; i++ {
			p.WaitCalls(from + i)
			clock.BlockUntil(1)
			clock.Advance(by)
		}
	}()
	return done
}

func TestCallTimeouts(t *testing.T) {
	hang := fake.Reply{Hang: true}
	t.Run("critique retry on the same model", func(t *testing.T) {
		p := fake.New()
		p.QueueReply(atesor.RoleScout, hang, fake.Reply{Text: `{"name":"ok"}`})
		c, clock := newClient(p)
		done := advanceOnTimers(p, clock, 1, c.WallTimeout())
		out := llm.Call(context.Background(), c, llm.Request[answer]{Role: atesor.RoleScout, Messages: prompt()})
		<-done
		if !out.OK() || out.Attempts != 2 || clock.Now() != time.Unix(0, 0).Add(135*time.Second) {
			t.Fatalf("%+v at %s", out, clock.Now())
		}
	})
	t.Run("rotate, stop after the last, ask the other role", func(t *testing.T) {
		p := fake.New(fake.WithPool(atesor.RoleBuilder, "b1", "b2", "b3"), fake.WithPool(atesor.RolePlanner, "p1"))
		p.QueueReply(atesor.RoleBuilder, hang, hang, hang)
		p.Queue(atesor.RolePlanner, `{"name":"from planner"}`)
		c, clock := newClient(p)
		done := advanceOnTimers(p, clock, 3, llm.HarnessWallTimeout)
		out := llm.Call(context.Background(), c, llm.Request[answer]{Role: atesor.RoleBuilder, Messages: prompt(),
			RotateOnTimeout: true, FallbackRole: atesor.RolePlanner, WallTimeout: llm.HarnessWallTimeout, Label: "optimizer"})
		<-done
		if !out.OK() || out.Data.Name != "from planner" {
			t.Fatalf("%+v", out)
		}
		if d := cmp.Diff([]string{"b1", "b2", "b3", "p1"}, out.Models); d != "" {
			t.Errorf("models (-want +got):\n%s", d)
		}
	})
	t.Run("rotate without a fallback role ends with the timeout", func(t *testing.T) {
		p := fake.New(fake.WithPool(atesor.RoleBuilder, "b1", "b2"))
		p.QueueReply(atesor.RoleBuilder, hang, hang, fake.Reply{Text: `{"name":"never asked"}`})
		c, clock := newClient(p)
		done := advanceOnTimers(p, clock, 2, c.WallTimeout())
		out := llm.Call(context.Background(), c, llm.Request[answer]{Role: atesor.RoleBuilder, RotateOnTimeout: true})
		<-done
		if out.OK() || out.Attempts != 2 || !errors.Is(out.LastErr, llm.ErrTimeout) {
			t.Fatalf("%+v", out)
		}
	})
}

func TestCallStopsWithCallerContext(t *testing.T) {
	p := fake.New()
	p.QueueHTTPError(atesor.RoleScout, 500, nil, "oops")
	c, _ := newClient(p)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := llm.Call(ctx, c, llm.Request[answer]{Role: atesor.RoleScout})
	if out.Attempts != 0 || !errors.Is(out.LastErr, context.Canceled) {
		t.Fatalf("%+v", out)
	}
}

func TestInvoke(t *testing.T) {
	p := fake.New()
	p.QueueReply(atesor.RoleSummarizer, fake.Reply{Text: "# Recipe", Thinking: "secret plan", InputTokens: 1000, OutputTokens: 100})
	p.Queue(atesor.RoleSummarizer, "  ")
	p.QueueReply(atesor.RoleSummarizer, fake.Reply{Hang: true})
	c, clock := newClient(p)
	r, err := c.Invoke(context.Background(), atesor.RoleSummarizer, prompt(), llm.WithLabel("curator"))
	if err != nil || r.Text != "# Recipe" || r.Usage.InputTokens != 1000 || r.Message.ReasoningContent != "secret plan" {
		t.Fatalf("%+v %v", r, err)
	}
	if c.Audit.Records()[0].Role != "curator" {
		t.Errorf("label %q", c.Audit.Records()[0].Role)
	}
	if _, err := c.Invoke(context.Background(), atesor.RoleSummarizer, prompt()); err != nil {
		t.Fatalf("whitespace reply: %v", err) // text is not empty, only blank
	}
	done := advanceOnTimers(p, clock, 1, llm.CuratorWallTimeout)
	_, err = c.Invoke(context.Background(), atesor.RoleSummarizer, prompt(), llm.WithWallTimeout(llm.CuratorWallTimeout))
	<-done
	if !errors.Is(err, llm.ErrTimeout) {
		t.Fatalf("hang: %v", err)
	}
	p.Queue(atesor.RoleSummarizer, "")
	if _, err := c.Invoke(context.Background(), atesor.RoleSummarizer, prompt()); !errors.Is(err, llm.ErrEmptyReply) {
		t.Fatalf("empty: %v", err)
	}
	if _, err := (&llm.Client{}).Invoke(context.Background(), atesor.RoleSummarizer, prompt()); !errors.Is(err, llm.ErrNoProvider) {
		t.Fatalf("no provider: %v", err)
	}
}

func TestWallTimeoutFollowsTheProviderTimeout(t *testing.T) {
	p, err := openai.New(provider.Config{APIKey: "sk-wall-test", Timeout: 300 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		client *llm.Client
		want   time.Duration
	}{
		{"ATESOR_LLM_TIMEOUT of the provider", &llm.Client{Provider: p}, 315 * time.Second},
		{"explicit client timeout wins", &llm.Client{Provider: p, Timeout: 10 * time.Second}, 25 * time.Second},
		{"provider without a timeout", &llm.Client{Provider: fake.New()}, 135 * time.Second},
		{"no provider", &llm.Client{}, 135 * time.Second},
	}
	for _, tt := range tests {
		if got := tt.client.WallTimeout(); got != tt.want {
			t.Errorf("%s: WallTimeout = %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestCostOfAnAnswerFromASnapshotOrAlias(t *testing.T) {
	tests := []struct {
		name, answered string
		want           float64
	}{
		{"dated snapshot", "gpt-4o-2024-08-06", 12.50},
		{"alias the table does not know", "chatgpt-4o-latest", 12.50},
		{"free fallback answered", "qwen/qwen3-coder:free", 0},
		{"other priced model answered", "gpt-4o-mini", 0.75},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fake.New(fake.WithPool(atesor.RoleScout, "gpt-4o"))
			p.QueueReply(atesor.RoleScout, fake.Reply{Text: `{"name":"x"}`, Model: tt.answered, InputTokens: 1_000_000, OutputTokens: 1_000_000})
			c, _ := newClient(p)
			out := llm.Call(context.Background(), c, llm.Request[answer]{Role: atesor.RoleScout, Messages: prompt()})
			if !out.OK() {
				t.Fatal(out.LastErr)
			}
			if d := cmp.Diff(tt.want, out.Usage.CostUSD, cmpApprox); d != "" {
				t.Errorf("cost (-want +got):\n%s", d)
			}
		})
	}
}

func TestRetryAfterWaitOncePerModel(t *testing.T) {
	p := fake.New()
	h := http.Header{"Retry-After": {"10"}}
	p.QueueHTTPError(atesor.RoleFixer, 429, h, "slow")
	p.QueueHTTPError(atesor.RoleFixer, 429, h, "slow")
	p.Queue(atesor.RoleFixer, `{"name":"x"}`)
	c, clock := newClient(p)
	out := llm.Call(context.Background(), c, llm.Request[answer]{Role: atesor.RoleFixer})
	if !out.OK() || out.Attempts != 3 {
		t.Fatalf("%+v", out)
	}
	// The second 429 is not waited for again: the 1-model pool spends a critique retry.
	if d := cmp.Diff([]time.Duration{10 * time.Second}, clock.Sleeps()); d != "" {
		t.Errorf("sleeps (-want +got):\n%s", d)
	}
}

func TestProviderErrorRules(t *testing.T) {
	const valid = `{"name":"x"}`
	ra := func(s string) http.Header { return http.Header{"Retry-After": {s}} }
	tests := []struct {
		name       string
		pool       []string
		errs       []*atesor.ProviderError // answers of the first model, then valid from every model
		wantModels []string
		wantCaps   []int
		wantWaits  []time.Duration
	}{
		{"402 lowers every cap to 90% of N", []string{"m1", "m2"},
			[]*atesor.ProviderError{fake.HTTPError(402, nil, "can only afford 5000"), fake.HTTPError(503, nil, "down")},
			[]string{"m1", "m1", "m2"}, []int{8192, 4500, 4500}, nil},
		{"402 cap is at least 256", []string{"m1", "m2"},
			[]*atesor.ProviderError{fake.HTTPError(402, nil, "can only afford 100"), fake.HTTPError(503, nil, "down")},
			[]string{"m1", "m1", "m2"}, []int{8192, 256, 256}, nil},
		{"Retry-After 65 s is waited", []string{"m1", "m2"},
			[]*atesor.ProviderError{fake.HTTPError(429, ra("65"), "slow")},
			[]string{"m1", "m1"}, []int{8192, 8192}, []time.Duration{65 * time.Second}},
		{"Retry-After 66 s rotates", []string{"m1", "m2"},
			[]*atesor.ProviderError{fake.HTTPError(429, ra("66"), "slow")},
			[]string{"m1", "m2"}, []int{8192, 8192}, nil},
		{"slug added after the active model", []string{"m1", "m2"},
			[]*atesor.ProviderError{fake.HTTPError(404, nil, `{"error":{"message":"gone; use this slug instead: v/new-model"}}`)},
			[]string{"m1", "v/new-model"}, []int{8192, 8192}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fake.New(fake.WithPool(atesor.RolePlanner, tt.pool...))
			for _, e := range tt.errs {
				p.QueueModel("m1", fake.Reply{Err: e})
			}
			p.Queue(atesor.RolePlanner, valid)
			c, clock := newClient(p)
			out := llm.Call(context.Background(), c, llm.Request[answer]{Role: atesor.RolePlanner, Messages: prompt(), Validate: validName})
			if !out.OK() {
				t.Fatalf("%+v", out)
			}
			var caps []int
			for _, call := range p.Calls() {
				caps = append(caps, call.MaxTokens)
			}
			if d := cmp.Diff(tt.wantModels, out.Models); d != "" {
				t.Errorf("models (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantCaps, caps); d != "" {
				t.Errorf("caps (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantWaits, clock.Sleeps()); d != "" {
				t.Errorf("waits (-want +got):\n%s", d)
			}
		})
	}
}

package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
)

// Tracer prints one line when a pipeline node or a model call ends: what it was, how long
// it took, and for a model call the tokens it used. It is an ordinary Eino callback
// handler, so it works for any Eino graph, not only Atesor's.
type Tracer struct {
	w   io.Writer
	now func() time.Time

	mu            sync.Mutex
	calls, tokens int
}

// NewTracer returns a tracer writing to w.
func NewTracer(w io.Writer) *Tracer { return &Tracer{w: w, now: time.Now} }

type startKey struct{}

// Handler is the callback handler to pass with compose.WithCallbacks.
func (t *Tracer) Handler() callbacks.Handler {
	return callbacks.NewHandlerBuilder().
		OnStartFn(func(ctx context.Context, _ *callbacks.RunInfo, _ callbacks.CallbackInput) context.Context {
			// Each callback gets its own context, so the start time travels in it.
			return context.WithValue(ctx, startKey{}, t.now())
		}).
		OnEndFn(func(ctx context.Context, info *callbacks.RunInfo, out callbacks.CallbackOutput) context.Context {
			t.end(ctx, info, out, nil)
			return ctx
		}).
		OnErrorFn(func(ctx context.Context, info *callbacks.RunInfo, err error) context.Context {
			t.end(ctx, info, nil, err)
			return ctx
		}).Build()
}

func (t *Tracer) end(ctx context.Context, info *callbacks.RunInfo, out callbacks.CallbackOutput, err error) {
	var took time.Duration
	if start, ok := ctx.Value(startKey{}).(time.Time); ok {
		took = t.now().Sub(start)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch info.Component {
	case compose.ComponentOfLambda:
		line := fmt.Sprintf("node  %-16s %8s", info.Name, took.Round(time.Millisecond))
		if err != nil {
			line += "  error: " + err.Error()
		}
		fmt.Fprintln(t.w, line)
	case components.ComponentOfChatModel:
		t.calls++
		line := fmt.Sprintf("model %-16s %8s", info.Name, took.Round(time.Millisecond))
		if o := model.ConvCallbackOutput(out); o != nil && o.TokenUsage != nil {
			u := o.TokenUsage
			t.tokens += u.TotalTokens
			line += fmt.Sprintf("  tokens in=%d out=%d", u.PromptTokens, u.CompletionTokens)
		}
		if err != nil {
			line += "  error: " + err.Error()
		}
		fmt.Fprintln(t.w, line)
	}
}

// Summary prints the number of model calls and their tokens.
func (t *Tracer) Summary() {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.w, "%d model calls, %d tokens\n", t.calls, t.tokens)
}

package graph

import (
	"context"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/llm"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// client returns the run's model client (nil provider means offline): the run's audit
// log, logger and clock, and rejected answers reported as events.
func (r *run) client() *llm.Client {
	return &llm.Client{Provider: r.provider, Audit: r.audit, Logger: r.log, Repository: r.state.RepoName,
		Clock: r.p.opts.clock, Notify: r.notice}
}

// notice turns a client notice into an event.
func (r *run) notice(n llm.Notice) {
	if n.Kind != llm.NoticeRejected {
		return
	}
	e := atesor.Event{Kind: atesor.EventAnswerRejected, Node: n.Node, Role: string(n.Role), Label: n.Label, Model: n.Model, Rule: n.Rule}
	if n.Err != nil {
		e.Err = n.Err.Error()
	}
	r.emit(e)
}

// askJSON makes one validated call: the answer decoded and schema-checked by validate,
// then checked by the node's semantic rule and the embedder's validators of T (see
// [WithValidator]). Tokens and cost of every attempt are added to the run's usage. It
// returns nil when no model gave a valid answer.
func askJSON[T any](ctx context.Context, r *run, s *atesor.State, role atesor.Role, label, prompt string, check func(*T) error) *T {
	return askJSONTimeout(ctx, r, s, role, label, prompt, 0, check)
}

func askJSONTimeout[T any](ctx context.Context, r *run, s *atesor.State, role atesor.Role, label, prompt string, wall time.Duration, check func(*T) error) *T {
	if r.provider == nil {
		return nil
	}
	out := llm.Call(ctx, r.client(), llm.Request[T]{
		Role: role, Messages: []*schema.Message{schema.UserMessage(prompt)},
		Decode: validate.Decode[T], Validate: check, Validators: validatorsFor[T](r),
		Label: label, Node: r.current, WallTimeout: wall,
	})
	r.addUsage(s, out.Usage)
	if out.Data == nil {
		r.log.Warn("model call failed", "node", r.current, "role", role, "label", label, "attempts", out.Attempts, "err", out.LastErr)
		return nil
	}
	return out.Data
}

// askText asks for free text (the recipe); no validation beyond a non-empty answer.
func askText(ctx context.Context, r *run, s *atesor.State, role atesor.Role, label, prompt string, wall time.Duration) (string, bool) {
	if r.provider == nil {
		return "", false
	}
	opts := []llm.InvokeOption{llm.WithLabel(label), llm.WithNode(r.current)}
	if wall > 0 {
		opts = append(opts, llm.WithWallTimeout(wall))
	}
	reply, err := r.client().Invoke(ctx, role, []*schema.Message{schema.UserMessage(prompt)}, opts...)
	r.addUsage(s, reply.Usage)
	if err != nil {
		r.log.Warn("model call failed", "node", r.current, "role", role, "label", label, "err", err)
		return "", false
	}
	return reply.Text, reply.Text != ""
}

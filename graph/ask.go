package graph

import (
	"context"
	"time"

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

// askJSON makes one validated call for a built-in node, through the same path as a
// replacement node's [atesor.Run.Ask]: the answer decoded and schema-checked by
// validate, then checked by the node's semantic rule and the embedder's validators of T
// (see [WithValidator]). Tokens and cost of every attempt are added to the run's usage.
// It returns nil when no model gave a valid answer (or the run is offline).
func askJSON[T any](ctx context.Context, r *run, s *atesor.State, role atesor.Role, label, prompt string, check func(*T) error) *T {
	return askJSONTimeout(ctx, r, s, role, label, prompt, 0, check)
}

func askJSONTimeout[T any](ctx context.Context, r *run, s *atesor.State, role atesor.Role, label, prompt string, wall time.Duration, check func(*T) error) *T {
	q := atesor.Question{Role: role, Label: label, Prompt: prompt, Timeout: wall,
		Decode: func(raw []byte) (any, error) {
			v, err := validate.Decode[T](raw)
			if err != nil {
				return nil, err
			}
			return &v, nil
		}}
	if check != nil {
		q.Check = func(v any) error { return check(v.(*T)) }
	}
	ans, err := r.services(s).Ask(ctx, q)
	if err != nil {
		return nil
	}
	return ans.Value.(*T)
}

// askText asks for free text (the recipe), through the same path as askJSON; no
// validation beyond a non-empty answer.
func askText(ctx context.Context, r *run, s *atesor.State, role atesor.Role, label, prompt string, wall time.Duration) (string, bool) {
	ans, err := r.services(s).Ask(ctx, atesor.Question{Role: role, Label: label, Prompt: prompt, Timeout: wall})
	if err != nil {
		return "", false
	}
	return ans.Text, true
}

package graph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/llm"
)

// services is the [atesor.Run] a node gets: the run's sandbox, memory, model client,
// events, logger and clock, bound to the node's registered name and the state.
type services struct {
	r    *run
	node string
	s    *atesor.State
}

var _ atesor.Run = services{}

// services returns the services of the node running now, for the built-in nodes' own
// model calls (askJSON, askText).
func (r *run) services(s *atesor.State) services { return services{r: r, node: r.current, s: s} }

func (v services) Sandbox() atesor.Sandbox { return v.r.sb }

func (v services) Memory() atesor.MemoryStore {
	if v.r.memory == nil {
		return noMemory{}
	}
	return v.r.memory
}

func (v services) Platform() atesor.Platform { return v.s.Platform }

func (v services) Logger() *slog.Logger { return v.r.log.With("node", v.node) }

func (v services) Now() time.Time { return v.r.now() }

func (v services) Emit(e atesor.Event) {
	if e.Node == "" {
		e.Node = v.node
	}
	v.r.emit(e)
}

// Ask is the validated call of built-in nodes (see askJSON), for any answer type: the
// embedder's validators registered for the dynamic type of the decoded value run after
// the question's own check.
func (v services) Ask(ctx context.Context, q atesor.Question) (atesor.Answer, error) {
	r := v.r
	if r.provider == nil {
		return atesor.Answer{}, atesor.ErrOffline
	}
	label := q.Label
	if label == "" {
		label = string(q.Role)
	}
	msgs := []*schema.Message{schema.UserMessage(q.Prompt)}
	if q.Decode == nil {
		opts := []llm.InvokeOption{llm.WithLabel(label), llm.WithNode(v.node)}
		if q.Timeout > 0 {
			opts = append(opts, llm.WithWallTimeout(q.Timeout))
		}
		reply, err := r.client().Invoke(ctx, q.Role, msgs, opts...)
		r.addUsage(v.s, reply.Usage)
		ans := atesor.Answer{Text: reply.Text, Attempts: 1, Usage: reply.Usage}
		if err == nil && reply.Text == "" {
			err = errors.New("the model gave an empty reply")
		}
		if err != nil {
			r.log.Warn("model call failed", "node", v.node, "role", q.Role, "label", label, "err", err)
			return ans, fmt.Errorf("ask %s: %w", q.Role, err)
		}
		return ans, nil
	}
	out := llm.Call(ctx, r.client(), llm.Request[any]{
		Role: q.Role, Messages: msgs, Label: label, Node: v.node, WallTimeout: q.Timeout,
		Decode: q.Decode,
		Validate: func(a *any) error {
			if q.Check != nil {
				if err := q.Check(*a); err != nil {
					return err
				}
			}
			return v.embedderChecks(*a)
		},
	})
	r.addUsage(v.s, out.Usage)
	ans := atesor.Answer{Attempts: out.Attempts, Usage: out.Usage}
	if out.Data == nil {
		err := out.LastErr
		if err == nil {
			err = errors.New("no model gave a valid answer")
		}
		r.log.Warn("model call failed", "node", v.node, "role", q.Role, "label", label, "attempts", out.Attempts, "err", err)
		return ans, fmt.Errorf("ask %s: %w", q.Role, err)
	}
	ans.Value = *out.Data
	return ans, nil
}

// embedderChecks runs the validators registered with WithValidator for the type of a
// (a pointer or a value of a validated type); a validator's panic is recorded on the
// run, like a built-in node's (see recordValidatorPanic).
func (v services) embedderChecks(a any) error {
	if a == nil {
		return nil
	}
	rv := reflect.ValueOf(a)
	if rv.Kind() != reflect.Pointer {
		p := reflect.New(rv.Type())
		p.Elem().Set(rv)
		rv = p
	}
	t := rv.Type().Elem()
	defer v.r.recordValidatorPanic(t)
	for _, val := range v.r.p.opts.validators[t] {
		m := reflect.ValueOf(val).MethodByName("Validate")
		if out := m.Call([]reflect.Value{rv}); !out[0].IsNil() {
			return out[0].Interface().(error)
		}
	}
	return nil
}

// noMemory is the store of a pipeline without one: no examples, no recipes, nothing kept.
type noMemory struct{}

var _ atesor.MemoryStore = noMemory{}

func (noMemory) Relevant(context.Context, atesor.Agent, atesor.Query, int) ([]atesor.Example, error) {
	return nil, nil
}
func (noMemory) Save(context.Context, atesor.Agent, atesor.Example) (bool, error) { return false, nil }
func (noMemory) Recipe(context.Context, string, string) (*atesor.CachedRecipe, error) {
	return nil, nil
}
func (noMemory) SaveRecipe(context.Context, atesor.CachedRecipe) error { return nil }

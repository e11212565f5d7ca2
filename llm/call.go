package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
)

// DefaultCritiqueRetries is the number of critique retries of the nodes and the
// optimizer agent.
const DefaultCritiqueRetries = 2

// Errors in Outcome.LastErr.
var (
	// ErrInvalid wraps a reply that failed decoding or validation.
	ErrInvalid = errors.New("the reply failed validation")
	// ErrAuth wraps a 401/403 answer: the API key is wrong; the call stops at once.
	ErrAuth = errors.New("the provider rejected the API key")
	// ErrDailyCap wraps OpenRouter's free-models-per-day limit; the call stops at once,
	// since the cap covers every free model of the account.
	ErrDailyCap = errors.New("the daily free-model request cap is reached")
)

// Request describes one validated call.
type Request[T any] struct {
	// Role selects the model pool.
	Role atesor.Role
	// Messages is the prompt thread. Call never changes it.
	Messages []*schema.Message
	// Decode turns the extracted JSON object into a T and may check its schema; its error
	// text goes back to the model as a critique. Default: encoding/json into T.
	Decode func(raw []byte) (T, error)
	// Validate checks the decoded value (the node's semantic validator); its error text
	// goes back to the model as a critique. Optional.
	Validate func(v *T) error
	// Validators are further checks, such as an embedder's [atesor.Validator]s; they run
	// after Validate, in order, and the first error goes back to the model as a
	// critique. Optional.
	Validators []atesor.Validator[T]
	// CritiqueRetries is the number of critique retries; 0 means the default of 2, a
	// negative value means none.
	CritiqueRetries int
	// RotateOnTimeout makes a timeout rotate to the next model, and a timeout on the last
	// model end the pool (the optimizer agent sets it). Without it a timeout is a critique
	// retry of the same model.
	RotateOnTimeout bool
	// FallbackRole, with RotateOnTimeout, is asked one time (each of its models once, no
	// critique retries) when the call ends because the last model of Role timed out:
	// the planner pool for a harness, the builder pool for a program run.
	FallbackRole atesor.Role
	// WallTimeout overrides the wall timeout of each attempt (default: Client.Timeout +
	// 15 s; the optimizer uses [HarnessWallTimeout] for a harness).
	WallTimeout time.Duration
	// Label is the agent label of the audit log entries' role field (default: Role), for
	// example "analyst", "curator" or "optimizer"; when it differs from Role, the
	// metadata's "llm_role" names the pool.
	Label string
	// Node is the pipeline node that makes the call, as events name it ("analyst",
	// "fix", "finish"); it goes into the audit metadata.
	Node string
	// Phase goes into the audit metadata, e.g. "optimize-harness-c".
	Phase string
}

// Outcome is the result of [Call]. A failed call is not an error: Data is nil and LastErr
// says why.
type Outcome[T any] struct {
	// Data is the validated answer, nil when every attempt failed.
	Data *T
	// Attempts counts the model calls made.
	Attempts int
	// LastErr is the error of the last failed attempt (nil on success).
	LastErr error
	// Usage sums the calls, tokens and cost of every attempt, failed ones included.
	Usage atesor.Usage
	// Models lists the model of each attempt, in order.
	Models []string
	// Waits lists the Retry-After waits taken, in order.
	Waits []time.Duration
}

// OK reports whether the call produced a validated answer.
func (o Outcome[T]) OK() bool { return o.Data != nil }

// Call sends req.Messages to the models of req.Role until one returns a JSON object that
// decodes and validates. Each
// attempt asks the provider for a JSON answer ([provider.JSONOutput]; providers without
// a JSON mode, and servers that ignore it, still work, since the JSON is extracted from
// the text):
//
//   - The reply's text parts (see [ExtractContent]) from the first '{' to the last '}'
//     are parsed; the top level must be an object. Then Decode and Validate run; a
//     failure appends the reply and a critique to the thread and asks the same model
//     again, up to CritiqueRetries times.
//   - A provider error, an empty reply or a parse failure rotates to the next model of
//     the pool; when no model remains it uses a critique retry instead.
//   - Retry-After of at most 65 s: wait once per model, then try the same model again.
//   - HTTP 402 "can only afford N": lower every pool model's cap to 90 % of N (at least
//     256) and try the same model again.
//   - "use this slug instead: <id>": add that model to the pool, right after the active
//     one, and rotate to it.
//   - "free-models-per-day", 401 or 403: stop at once ([ErrDailyCap], [ErrAuth] naming the
//     key variable).
//   - A timeout is a critique retry of the same model, unless RotateOnTimeout.
//
// At most CritiqueRetries + 1 + pool size attempts are made, plus 1 per added model
// (plus the FallbackRole pass). Call never panics and never returns an error: the
// Outcome holds the data or the last error.
func Call[T any](ctx context.Context, c *Client, req Request[T]) (out Outcome[T]) {
	defer func() {
		if p := recover(); p != nil {
			out.Data = nil
			out.LastErr = fmt.Errorf("llm call for role %s failed unexpectedly: %v", req.Role, p)
		}
	}()
	if c == nil || c.Provider == nil {
		out.LastErr = ErrNoProvider
		return out
	}
	pool := c.Provider.Pool(req.Role)
	if len(pool) == 0 {
		out.LastErr = fmt.Errorf("%w %s", ErrNoModels, req.Role)
		return out
	}
	retries := req.CritiqueRetries
	switch {
	case retries == 0:
		retries = DefaultCritiqueRetries
	case retries < 0:
		retries = 0
	}
	r := &run[T]{c: c, req: req, out: &out}
	timedOut := r.pool(ctx, pool, retries)
	if timedOut && req.RotateOnTimeout && req.FallbackRole != "" && req.FallbackRole != req.Role && ctx.Err() == nil {
		fb := c.Provider.Pool(req.FallbackRole)
		if len(fb) > 0 {
			c.logger().Info("no model answered in time; asking the other role's models", "role", req.Role, "fallback_role", req.FallbackRole)
			r.pool(ctx, fb, 0)
		}
	}
	return out
}

// run is the state of one Call.
type run[T any] struct {
	c   *Client
	req Request[T]
	out *Outcome[T]
}

// pool runs the attempts on one pool. It reports whether it ended because the last
// model timed out with RotateOnTimeout.
func (r *run[T]) pool(ctx context.Context, pool []atesor.ModelSpec, critiques int) (timedOut bool) {
	c, req, out := r.c, r.req, r.out
	pool = slices.Clone(pool)
	thread := slices.Clone(req.Messages)
	wall := req.WallTimeout
	if wall <= 0 {
		wall = c.WallTimeout()
	}
	limit := critiques + 1 + len(pool)
	waited := map[string]bool{}
	idx := 0
	// rotate moves to the next model, or spends a critique retry on the last one.
	rotate := func() bool {
		if idx+1 < len(pool) {
			idx++
			return true
		}
		if critiques > 0 {
			critiques--
			return true
		}
		return false
	}
	for n := 0; n < limit; n++ {
		if err := ctx.Err(); err != nil {
			out.LastErr = err
			return false
		}
		spec := pool[idx]
		out.Attempts++
		out.Models = append(out.Models, spec.Model)
		reply, err := c.invoke(ctx, spec, thread, wall, auditMeta{label: req.Label, node: req.Node, phase: req.Phase, attempt: out.Attempts, poolIndex: idx, json: true})
		out.Usage = out.Usage.Add(reply.Usage)
		log := c.logger().With("role", spec.Role, "model", spec.Model, "attempt", out.Attempts)

		if err != nil {
			out.LastErr = err
			if ctx.Err() != nil {
				return false
			}
			f := classify(err)
			log.Warn("model call failed", "error", err)
			switch {
			case f.auth:
				out.LastErr = r.authError(f)
				return false
			case f.dailyCap:
				out.LastErr = fmt.Errorf("%w (free-models-per-day): rotating cannot help; wait for the reset or add credits: %w", ErrDailyCap, err)
				return false
			case f.afford > 0 && cappedTo(f.afford) < spec.MaxTokens:
				lowered := cappedTo(f.afford)
				for i := range pool {
					pool[i].MaxTokens = min(pool[i].MaxTokens, lowered)
				}
				log.Info("lowering the output cap after a 402", "max_tokens", lowered)
				continue
			case f.timeout && req.RotateOnTimeout:
				if idx+1 < len(pool) {
					idx++
					continue
				}
				return true
			case f.timeout:
				if critiques > 0 {
					critiques--
					continue
				}
				return false
			case f.retryAfter > 0 && f.retryAfter <= MaxRetryAfterWait && !waited[spec.Model]:
				waited[spec.Model] = true
				out.Waits = append(out.Waits, f.retryAfter)
				if werr := c.clock().Sleep(ctx, f.retryAfter); werr != nil {
					out.LastErr = werr
					return false
				}
				continue
			}
			if f.slug != "" && !slices.ContainsFunc(pool, func(s atesor.ModelSpec) bool { return s.Model == f.slug }) {
				added := spec
				added.Model = f.slug
				pool = slices.Insert(pool, idx+1, added)
				limit++
				log.Info("the provider named a replacement model", "added", f.slug)
			}
			if !rotate() {
				return false
			}
			continue
		}

		if strings.TrimSpace(reply.Text) == "" {
			out.LastErr = fmt.Errorf("model %s: %w", spec.Model, ErrEmptyReply)
			log.Warn("empty reply")
			if !rotate() {
				return false
			}
			continue
		}
		raw, perr := ExtractJSON(reply.Text)
		if perr != nil {
			out.LastErr = fmt.Errorf("model %s: %w", spec.Model, perr)
			log.Warn("reply without a JSON object", "error", perr)
			r.rejected(spec, perr)
			if idx+1 < len(pool) {
				idx++
				continue
			}
			if critiques == 0 {
				return false
			}
			critiques--
			thread = append(thread, schema.AssistantMessage(reply.Text, nil), schema.UserMessage(
				"Your previous response did not contain a valid JSON object ("+perr.Error()+
					"). Reply with only the JSON object the instructions ask for, with no text around it."))
			continue
		}
		v, verr := r.decode(raw)
		if verr == nil && req.Validate != nil {
			verr = req.Validate(&v)
		}
		for _, val := range req.Validators {
			if verr != nil {
				break
			}
			verr = val.Validate(&v)
		}
		if verr != nil {
			out.LastErr = fmt.Errorf("model %s: %w: %w", spec.Model, ErrInvalid, verr)
			log.Warn("reply failed validation", "rule", RuleOf(verr), "error", verr)
			r.rejected(spec, verr)
			if critiques == 0 {
				return false
			}
			critiques--
			thread = append(thread, schema.AssistantMessage(reply.Text, nil), schema.UserMessage(
				"Your previous response failed validation: "+verr.Error()+
					"\nFix these problems and reply with only the corrected JSON object."))
			continue
		}
		out.Data = &v
		out.LastErr = nil
		return false
	}
	return false
}

// rejected reports a rejected answer to the client's Notify hook.
func (r *run[T]) rejected(spec atesor.ModelSpec, err error) {
	label := r.req.Label
	if label == "" {
		label = string(spec.Role)
	}
	r.c.notify(Notice{Kind: NoticeRejected, Role: spec.Role, Label: label, Node: r.req.Node, Model: spec.Model, Rule: RuleOf(err), Err: err})
}

func (r *run[T]) decode(raw []byte) (T, error) {
	if r.req.Decode != nil {
		return r.req.Decode(raw)
	}
	var v T
	err := json.Unmarshal(raw, &v)
	return v, err
}

func (r *run[T]) authError(f failure) error {
	name := r.c.Provider.Name()
	status := 0
	if f.provider != nil {
		status = f.provider.Status
	}
	if v := provider.KeyVariable(name); v != "" {
		return fmt.Errorf("%w (%s, HTTP %d): check %s: %w", ErrAuth, name, status, v, f.err)
	}
	return fmt.Errorf("%w (%s, HTTP %d): check the provider's API key: %w", ErrAuth, name, status, f.err)
}

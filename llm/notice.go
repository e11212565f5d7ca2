package llm

import (
	"errors"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// NoticeKind is the kind of a [Notice].
type NoticeKind string

// The notices a client reports.
const (
	// NoticeRejected: an answer failed decoding or validation. Rule names the rule, Err
	// is the error sent back as the critique (or the last error, when no retry is left).
	NoticeRejected NoticeKind = "rejected"
)

// Notice is something a caller of the client may want to show or record: the graph turns
// notices into events. Notices are delivered synchronously on the calling goroutine.
type Notice struct {
	Kind NoticeKind
	// Role is the model pool, Label the audit label (agent), Node the pipeline node.
	Role  atesor.Role
	Label string
	Node  string
	// Model is the model concerned.
	Model string
	// Rule names the rule of a rejection: "json" (no JSON object), "schema" (the JSON
	// shape, see [validate.SchemaError]), the [validate.Rejection] rule, or "validator"
	// for a validator error without a rule.
	Rule string
	// Err is the error of the rejection.
	Err error
}

// notify delivers n to the client's Notify hook, when set.
func (c *Client) notify(n Notice) {
	if c == nil || c.Notify == nil {
		return
	}
	c.Notify(n)
}

// RuleOf names the rule behind a validation error: the [validate.Rejection] rule,
// "schema" for a [validate.SchemaError], "json" for a reply without a JSON object
// ([ErrNoJSON]), else "validator".
func RuleOf(err error) string {
	var rej *validate.Rejection
	var se *validate.SchemaError
	switch {
	case errors.As(err, &rej):
		return rej.Rule
	case errors.As(err, &se):
		return "schema"
	case errors.Is(err, ErrNoJSON):
		return "json"
	}
	return "validator"
}

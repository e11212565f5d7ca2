package provider

import "context"

type labelKey struct{}

// WithLabel returns ctx carrying the audit label of a model call ("analyst", "scout",
// "fixer", "summarizer", "curator", ...), as package llm sets it for every call, so a
// provider (the fake, a gateway that tags requests) can tell apart two callers that
// share a model pool, such as the summarizer and the artifact curator.
func WithLabel(ctx context.Context, label string) context.Context {
	return context.WithValue(ctx, labelKey{}, label)
}

// Label returns the audit label of a model call, "" when none was set.
func Label(ctx context.Context) string {
	s, _ := ctx.Value(labelKey{}).(string)
	return s
}

package provider

import "context"

type agentKey struct{}

// WithAgent returns ctx carrying the agent label of a model call ("analyst", "scout",
// "fixer", "summarizer", "curator", ...), as package llm sets it for every call, so a
// provider (the fake, a gateway that tags requests) can tell apart two agents that share
// a model pool, such as the summarizer and the artifact curator.
func WithAgent(ctx context.Context, label string) context.Context {
	return context.WithValue(ctx, agentKey{}, label)
}

// Agent returns the agent label of a model call, "" when none was set.
func Agent(ctx context.Context) string {
	s, _ := ctx.Value(agentKey{}).(string)
	return s
}

// Package fake is a scripted [atesor.Provider] for tests and examples. Nothing in it
// talks to the network.
//
// Replies are queued per role (or per model) and handed out in order; every call's
// messages are recorded. A reply can be text, a thinking part (ReasoningContent), token
// usage, an error (for example an HTTP error as *atesor.ProviderError), a delay, or a
// hang until the caller's context ends. When a queue is empty the model returns an
// error wrapping [ErrNoReply]; it never makes an answer up.
//
//	p := fake.New()
//	p.Queue(atesor.RoleScout, `{"phases": [...]}`)
//	p.QueueHTTPError(atesor.RolePlanner, 429, http.Header{"Retry-After": {"10"}}, "rate limited")
//	... run the code under test with p ...
//	prompts := p.Prompts(atesor.RoleScout)
//
// Package llm waits for a Retry-After of up to 65 s: give the llm.Client an
// llm.ManualClock (and the fake [WithSleeper] of that clock for Reply.Delay) so tests
// never wait for real.
package fake

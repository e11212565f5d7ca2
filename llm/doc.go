// Package llm makes the model calls of the Atesor pipeline: [Client.Invoke] for one call
// under a wall timeout, [Call] for the validated JSON call with critique retries, model
// rotation and the rules for each kind of provider error, [CostForUsage] for the
// price of a call, and [AuditLog] for the per-package log of every call.
//
// # Calls never fail loudly
//
// [Call] returns an [Outcome] whatever happens: the validated data, or nil and the last
// error. Every graph node has a fallback for a failed call, so a run goes on without a
// model. Errors of HTTP error responses wrap *atesor.ProviderError; [ErrAuth],
// [ErrDailyCap], [ErrTimeout], [ErrEmptyReply], [ErrInvalid], [ErrNoJSON] and
// [ErrNoProvider] tell the other cases apart with errors.Is.
//
// # Time
//
// Wall timeouts and Retry-After waits go through a [Clock]; tests use a [ManualClock] and
// never wait for real.
//
// The decoding of a reply is pluggable ([Request].Decode), so the schemas and semantic
// rules live in package validate and a caller chooses them per call; this package imports
// validate only to name the rule behind a rejected answer ([RuleOf]) in its notices.
package llm

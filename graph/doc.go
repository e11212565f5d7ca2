// Package graph is the porting pipeline: an Eino compose graph whose nodes fetch the
// source, analyse it, plan, build, verify, fix and finish a port in a riscv64 sandbox,
// with the run state saved after every node, the recipe cache consulted first, and
// few-shot examples learned from verified ports.
//
// # Where to start
//
// [New] takes a [Config] (a Provider, a Sandbox or OpenSandbox, a MemoryStore, the output
// directory, the state home, a Logger) and options; [Pipeline.Run] ports one package and returns an
// [atesor.Result] whose status is always final and whose State is the final run state.
// A nil Provider is offline mode: every LLM node uses its scripted fallback.
//
// # Seams and what they promise
//
//   - [WithNode] replaces a node by its registered name (one of [Nodes]); routing,
//     events, timings and the audit log use that name, whatever the replacement's Name.
//     The node gets the run's services ([atesor.Run]: sandbox, memory, platform, a
//     validated model call, events, logger, clock) and owns the parts of
//     [atesor.State] the built-in node writes, with their invariants.
//   - [WithValidator] adds an [atesor.Validator] to the answers of one type (analysis,
//     build plan, fixer answer, curator ranking, workload harness, or a type a
//     replacement node asks for, declared with [WithAnswerType]); its error goes back to
//     the model. New refuses a validator of a type nothing asks for.
//   - A node or validator that panics ends the run with a final state (failure class
//     infra) and an error naming what panicked; New checks the options, then the
//     Config, and refuses a nil node.
//   - [WithEvents] receives progress [atesor.Event]s in order: nodes, commands, output lines,
//     rejected answers (with the rule), fallbacks, scripted fixes, warnings.
//   - [Pipeline.RunWith] passes Eino compose options, such as compose.WithCallbacks: a
//     handler sees each node (a Lambda named after the node) and each model call (a
//     chat model named after the model, with token usage).
//   - [WithClock] sets the one clock of the run: timestamps, atesor.Event.Elapsed, model wall
//     timeouts and Retry-After waits.
//   - Config.Logger receives the run's structured log (see Logging).
//
// # Logging
//
// A run writes its structured log to agent_<repo>.log (every level) and to
// Config.Logger. Debug: detail; Info: progress (node started/finished with its duration,
// the supervisor's route, commands); Warn: a model call without a valid answer, a
// rejected answer, a model without a known price; Error: a node failed (the run ends
// with failure class setup or infra). Every record carries repo; node records carry node.
package graph

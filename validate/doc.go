// Package validate decides what an LLM answer may contain and what a model may make the
// sandbox run. It is security code: every shell rule works on the syntax tree of a real
// shell parser (mvdan.cc/sh/v3/syntax), never on prefixes or regular expressions.
//
// # Schemas and decoding
//
// The JSON schemas of the answers (atesor.AnalysisAnswer, BuildPlan, FixProposal,
// CuratorAnswer, ProgramRun, Harness) are generated from the Go structs with
// invopop/jsonschema and compiled once with santhosh-tekuri/jsonschema/v6. [Decode]
// parses, validates and normalizes an answer leniently (unknown keys ignored, optional
// fields defaulted, lists and numbers clamped); its [SchemaError] names each JSON path and
// the rule. [Schema] and [SchemaText] give the schema for prompts; [StrictSchema] gives
// the strict variant for providers' structured-output modes.
//
// # Semantic rules
//
// Each rule is a plain function whose error (a [*Rejection]) names the rule that fired and
// says what to do instead, because the text goes back to the model as a critique:
// [Analysis], [BuildPlan] (and [PlanLine]), [StripTestCommands], [FixProposal],
// [FixCommand], [SingleCommand], [InvestigationCommand], [WorkloadCommand] and [Harness].
// [DenyRules] applies the deny rules of FixCommand to every simple command of a line; the
// sandbox runs every executed line through it.
package validate

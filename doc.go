// Package atesor holds the domain types and the public interfaces of Atesor for Go, a
// library that ports open-source packages (C, C++, Go, Rust) to RISC-V.
//
// Atesor builds a package natively inside a riscv64 sandbox, lets LLM agents repair what
// breaks, proves that the artifacts are riscv64 ELF files built from the package's own
// sources, writes a replayable recipe, and learns few-shot examples from every verified port.
//
// # Seams
//
// The pipeline talks to the outside world through six small interfaces, so an embedder can
// swap any of them:
//
//   - [Provider] makes chat models for the agent roles (package provider and its
//     sub-packages implement it for Gemini, OpenAI, OpenRouter and Anthropic).
//   - [Sandbox] runs commands on a riscv64 system (package sandbox).
//   - [MemoryStore] holds few-shot examples and the recipe cache (package memory).
//   - [Validator] checks a decoded LLM answer (package validate).
//   - [Node] is one step of the pipeline and [Graph] runs it (package graph).
//
// # Prices
//
// Every model call is charged to the run's [Usage], and the run escalates when the cost
// passes its limit. A [Provider] states what its models cost in [ModelSpec.Price] (US
// dollars per million input and output tokens; &Price{} for a local model). A spec
// without a price is charged from the built-in table in package llm; a model
// the table does not know counts high (3.00 in, 12.00 out) and the run reports a warning
// naming the model and how to set its price. [Usage.Prices] records which price each
// model was charged at, and where it came from; the report carries it.
//
// # Types
//
// JSON field names are snake_case (build_system, needs_custom_plan, error_pattern,
// repo_name, ...), because example files and recipe caches are shared with people and
// other tools. Where the answer a model gives differs from what
// Atesor stores, there are two types: [AnalysisAnswer] is what the analyst answers and
// [PackageAnalysis] what the run keeps.
//
// # Names
//
// Four vocabularies name the parts of a run, and they are kept apart on purpose:
//
//   - A node (graph.NodeAnalyst, ...) is a step of the pipeline; events (atesor.Event.Node),
//     the state's LastNode and timings, and the audit log's metadata "node" use it.
//   - A [Role] is an LLM model pool (RolePlanner, ...); [Provider.Pool] is asked by role.
//   - A label (Event.Label, Question.Label) is the audit log's role field: who asked the
//     model. When it differs from the pool's role, the metadata's "llm_role" names the
//     pool.
//   - An [Agent] names a few-shot example file (AgentScout, AgentFixer, AgentBuilder).
//
// Which node asks which pool, under which label:
//
//	node      Role         audit label   few-shot Agent
//	analyst   planner      analyst       -
//	scout     scout        scout         scout
//	fix       fixer        fixer         fixer
//	finish    summarizer   summarizer    -   (the recipe)
//	finish    summarizer   curator       -   (the artifact curator)
//
// An artifact's curator verdict is an [ArtifactRole] (ArtifactPrimary, ArtifactSecondary,
// ArtifactDrop); it is not an LLM role.
//
// This package imports only the standard library and the Eino model and schema packages
// needed by the [Provider] interface.
package atesor

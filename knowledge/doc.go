// Package knowledge holds what Atesor knows without asking a model: the distro platform
// profiles (alpine, debian, and ubuntu on the Debian profile) with their canonical package
// maps and name corrections, the static RISC-V porting knowledge that prompts carry
// ([Banner] and [Summary]), the scripted analysis of a source tree ([Detect], [Evidence],
// [ErrorExcerpts]), and the default build plans used when no model is available
// ([DefaultPlan]).
//
// Everything here is deterministic and makes zero LLM calls. Detection reads a source tree
// on the host; it never writes to it.
package knowledge

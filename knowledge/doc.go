// Package knowledge holds what Atesor knows without asking a model: the distro platform
// profiles (alpine, debian, and ubuntu on the Debian profile) with their canonical package
// maps and name corrections, the static RISC-V porting knowledge that prompts carry
// ([Banner] and [Summary]), the scripted analysis of a source tree ([Detect], [Evidence],
// [ErrorExcerpts]), and the default build plans used when no model is available
// ([DefaultPlan]).
//
// The build systems detection names are autotools (a shipped configure, or configure.ac
// for autoreconf), CMake, meson, make, Go, cargo, Perl and R: a top-level Makefile.PL is a
// Perl distribution built with ExtUtils::MakeMaker (perl Makefile.PL, make, make test;
// its XS modules are the artifacts), and a top-level DESCRIPTION with compiled code in
// src/ an R package built with R CMD INSTALL (its libs/<package>.so is the artifact). A directory with no GNUmakefile, makefile or
// Makefile but a Unix platform makefile (makefile.unx, Makefile.linux, ...) is a make
// build whose commands name that makefile with -f ([atesor.Detection.Makefile]).
//
// Everything here is deterministic and makes zero LLM calls. Detection reads a source tree
// on the host; it never writes to it.
package knowledge

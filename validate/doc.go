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
//
// # Threat model
//
// Model answers are untrusted: a model makes mistakes, and a poisoned prompt (a package's
// README, build output, an example) can make it answer what an attacker wants. validate
// is the guard that keeps such an answer from running at all, and gives the model a
// critique it can act on. It guards against commands that
//
//   - destroy or change the sandbox's system, the home directory's tool configuration,
//     or the repository's history and earlier fixes;
//   - run code the rules never saw: inline interpreter code, shells fed from pipes,
//     wrapper programs (sudo, env, timeout, strace, qemu-riscv64, the dynamic loader,
//     busybox, watch, ...; chroot, unshare, gdb and parallel are refused), toolchain hooks
//     (response files, -specs, -wrapper, -B, plugins, -toolexec, RUSTC_WRAPPER, APT_CONFIG,
//     MAKEFLAGS --eval, ...), code fetched from outside the distro archive (go run/install
//     of remote modules, cargo install, pip, npm, gem), and files the model's own commands
//     wrote, decoded or downloaded and then run — within one line, one plan or one fix;
//   - combine harmless steps into a harmful one: a link out of the repository and a write
//     through it, another repository cloned or fetched and then built;
//   - cross-compile: the sandbox is a riscv64 system, so a cross toolchain only hides
//     a build that was not native (the native riscv64 triplet is
//     the sandbox's own and stays allowed).
//
// Options are resolved the way each program's own parser reads them (GNU getopt_long
// abbreviations such as --ev for --eval, clustered and attached short options, --opt
// value and --opt=value), from per-program option tables, before any rule looks at them;
// a sed script or a wrapper option the rules cannot fully read is refused, not ignored.
// git gets its own reader, because git parses options itself: the options before the
// subcommand exactly as git.c does, and each subcommand's options with the rules of
// parse-options (any unambiguous prefix, --no- negations, attached short values,
// options after operands) against git's real option tables. Configuration that runs a
// program or changes where and how git connects is refused in every spelling (-c, a
// subcommand's --config, --config-env, GIT_CONFIG_KEY_<n>, git config writes), and work
// trees, git dirs, -C and git apply --directory are held to the repository.
//
// validate is not the security boundary. The package's own build code (configure, make,
// cmake scripts, build.rs, go generate) runs arbitrary code by design, a value only known
// at run time is judged by what can be known statically, and a rule set over an open
// world of programs is never complete. The boundary is the sandbox behind it: a riscv64
// rootfs under bubblewrap with no host files, provider keys or network beyond the package
// mirrors. validate keeps a model's mistakes and a poisoned answer from reaching it.
package validate

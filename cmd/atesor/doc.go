// Command atesor ports open-source packages to RISC-V from the shell.
//
// Usage:
//
//	atesor port SOURCE [flags]          port a directory, tarball (path or URL), git URL or debian:NAME
//	atesor batch [--list FILE] [SOURCE...]  port many packages (shards, summaries, dashboard)
//	atesor merge --out DIR SHARD_DIR... combine the output directories of batch shards
//	atesor sandbox create|status|remove [PLATFORM]
//	atesor doctor                       check host tools, binfmt, sandboxes, toolchains and the provider
//	atesor examples list|lint|merge     work with few-shot example files
//	atesor recipe show PACKAGE          print a cached recipe
//	atesor replay RECIPE.md|PACKAGE     replay a recipe in a fresh sandbox and compare the artifacts
//	atesor mcp [--root DIR]... [--out DIR]  serve these tools to coding agents (Model Context Protocol)
//	atesor version                      print the version
//
// Every command takes --help. Flags follow the command and may come before or after its
// arguments.
//
// Before a command runs, variables from .env files are loaded, the user's own first:
// ~/.config/atesor-ai/.env, then $ATESOR_HOME/.env, then the working directory's ./.env.
// A variable that is already set is never overridden, so the environment wins over
// every file and earlier files win over later ones. The user's files set only Atesor's
// own variables (LLM_PROVIDER, the provider keys and base URLs,
// OPENROUTER_FALLBACK_MODELS and ATESOR_*); other names are ignored with a warning. The
// working directory is often a package checkout, so its .env is the package author's
// word: it may set only model names, the model timeout, the output cap and the
// platform, and nothing when it lies inside the source being ported; what it may not
// set is ignored with one warning naming the variables. doctor shows where each setting
// came from. A .env that is a symbolic link or owned by another user is refused.
//
// Exit codes of port: 0 verified or cached, 1 not verified, tests_failing or escalated, 2 usage or setup
// error, 130 interrupted (the run state is saved; continue with --resume). Other commands
// exit 0 on success, 1 when they found problems, 2 on usage or setup errors.
//
// The quick start, as root on a fresh Debian or Ubuntu machine, from a source checkout:
//
//	go run ./cmd/atesor port --offline ./testdata/packages/hello
//
// installs the missing host tools with apt (qemu-user-static, mmdebstrap, bubblewrap, slirp4netns,
// debian-archive-keyring), provisions the riscv64 sandbox on first use, ports the bundled
// sample package and prints the verdict.
package main

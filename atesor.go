package atesor

import (
	"context"
	"io/fs"

	"github.com/cloudwego/eino/components/model"
)

// Provider makes chat models for agent roles. Errors returned by its models wrap
// *ProviderError when the provider answered with an HTTP error.
type Provider interface {
	// Name is the provider's registry name: gemini, openai, openrouter, anthropic or fake.
	Name() string
	// Pool lists the models of a role: the primary first, then its fallbacks.
	Pool(role Role) []ModelSpec
	// ChatModel returns a model configured as spec says (model id, temperature or effort,
	// output cap). The pipeline only calls Generate, never Stream: wrap a model that
	// cannot stream with [GenerateOnly].
	ChatModel(ctx context.Context, spec ModelSpec) (model.BaseChatModel, error)
}

// Sandbox runs commands on a riscv64 system and moves files in and out of it.
// Paths given to the sandbox are sandbox paths (for example /workspace/zlib).
//
// What the pipeline expects of an implementation:
//
//   - The package lives at /workspace/<repo>; commands run there unless Command.Dir
//     says otherwise, with HOME=/root. Plan and fix commands ask for network
//     (Command.Network); investigation commands, smoke runs and package tests do not.
//   - Artifacts are found by listing the repository with Exec (a find command) and
//     reading each ELF file with ReadFile, unless the sandbox also implements
//     sandbox.HostPather (HostPath maps a sandbox path to a host path), in which case
//     the tree is walked on the host directly: much faster for a large build tree.
//   - The fake in package sandbox/sandboxtest implements the contract for tests, with
//     real riscv64 ELF fixtures a scripted build can plant.
type Sandbox interface {
	// Platform is the distro profile the sandbox runs.
	Platform() Platform
	// Exec runs one command line. A command that ran and failed is not an error: its
	// exit code is in the result. Errors mean the command could not be run at all.
	Exec(ctx context.Context, cmd Command) (CommandResult, error)
	// CopyIn copies a host directory (the package's source tree, already unpacked from a
	// tarball on the host) to sandboxPath. For a git source, hostPath is the git URL
	// instead, and CopyIn clones it to sandboxPath inside the sandbox (shallow, with
	// submodules), so the clone's commit is what builds; the pipeline then copies the
	// clone out for detection (CopyOut) and reads its commit with Exec("git rev-parse
	// HEAD"). A sandbox without git or network for clones returns an error saying so.
	CopyIn(ctx context.Context, hostPath, sandboxPath string) error
	// CopyOut copies a sandbox file or directory to hostPath.
	CopyOut(ctx context.Context, sandboxPath, hostPath string) error
	// ReadFile reads a file inside the sandbox.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// WriteFile writes a file inside the sandbox, resolving symbolic links in sandbox
	// coordinates and refusing a target outside the package's repository.
	WriteFile(ctx context.Context, path string, data []byte, perm fs.FileMode) error
	// Close releases the sandbox instance.
	Close() error
}

// MemoryStore holds few-shot examples and the recipe cache.
type MemoryStore interface {
	// Relevant returns at most limit examples of agent that match q, best first.
	Relevant(ctx context.Context, agent Agent, q Query, limit int) ([]Example, error)
	// Save stores a learned example; saved is false when it was a duplicate or incomplete.
	Save(ctx context.Context, agent Agent, ex Example) (saved bool, err error)
	// Recipe returns the cached recipe of a package in a sandbox, or nil, nil on a miss.
	Recipe(ctx context.Context, pkg, sandbox string) (*CachedRecipe, error)
	// SaveRecipe stores or replaces a recipe cache entry.
	SaveRecipe(ctx context.Context, r CachedRecipe) error
}

// Validator checks a decoded LLM answer. The error text is sent back to the model as a
// critique, so it says what is wrong and what to do instead.
type Validator[T any] interface {
	Validate(v *T) error
}

// ValidatorFunc adapts a plain function to [Validator].
type ValidatorFunc[T any] func(v *T) error

// Validate calls f(v).
func (f ValidatorFunc[T]) Validate(v *T) error { return f(v) }

// Node is one step of the pipeline. It gets the run's services and the state; which part
// of the state each node owns, and what the pipeline reads of it, is documented on
// [State]. A returned error ends the run (failure class setup for init, infra
// otherwise) with a final state; so does a panic.
type Node interface {
	Name() string
	Run(ctx context.Context, run Run, s *State) error
}

// Graph runs the whole pipeline for one package.
type Graph interface {
	Run(ctx context.Context, req Request) (*Result, error)
}

var _ Validator[int] = ValidatorFunc[int](nil)

package fixapply

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/buildlog"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/validate"
	"github.com/eclipse-atesor/atesor-go/verify"
)

// PatchFile is the file, in the package's directory, that a patch is written to before
// patch(1) applies it; it is removed afterwards.
const PatchFile = ".atesor-fix.patch"

// Applier applies fix actions in one package's tree.
type Applier struct {
	// Sandbox runs the commands and holds the tree; files are read through its gate.
	Sandbox atesor.Sandbox
	// RepoDir is the package's directory in the sandbox.
	RepoDir string
	// Env is the extra environment of fix commands (the build's).
	Env []string
	// Emit receives an [atesor.EventCommand] (Phase "apply") before each command runs;
	// nil emits nothing.
	Emit func(atesor.Event)
	// Output gives, for a command line about to run, the writer of its live output and
	// a func called with its result when it ends; nil discards the output.
	Output func(line string) (io.Writer, func(atesor.CommandResult))
}

// Done is what applying actions did, for the run state and the recipe; when an action
// fails, it holds what the actions before it did.
type Done struct {
	// Commands are the command lines that ran successfully, in order.
	Commands []string
	// Files are the files created or patched, relative to the package's directory.
	Files []string
	// Stubs are created files that define an entry point or compile nothing
	// (verify.IsStub): what a port must not be proven by.
	Stubs []string
	// Patches are the changes as unified diffs (a created file as a diff from
	// /dev/null), in order, without names: the recipe names them.
	Patches []atesor.Patch
}

// Apply applies the actions in order and stops at the first that fails. A command
// passes validate.FixCommand again and runs with network in the package's directory;
// create_file writes through the sandbox's WriteFile at a path kept inside the
// directory; a patch is applied with patch(1) (see [Applier.Patch]).
func (a Applier) Apply(ctx context.Context, actions []atesor.Action) (Done, error) {
	var d Done
	for _, act := range actions {
		switch act.Type {
		case atesor.ActionCommand:
			if err := a.command(ctx, act.Command); err != nil {
				return d, err
			}
			d.Commands = append(d.Commands, act.Command)
		case atesor.ActionCreateFile:
			p := path.Join(a.RepoDir, path.Clean("/"+act.Path))
			// Whether the file is new; one too large to read or not a regular file exists.
			_, statErr := sandbox.ReadBounded(ctx, a.Sandbox, p, sandbox.BoundSource)
			isNew := statErr != nil && !errors.Is(statErr, sandbox.ErrTooLarge) && !errors.Is(statErr, sandbox.ErrNotRegular)
			if err := a.Sandbox.WriteFile(ctx, p, []byte(act.Content), fs.FileMode(0o644)); err != nil {
				return d, fmt.Errorf("create %s: %w", act.Path, err)
			}
			if verify.IsStub(act.Path, act.Content, isNew) {
				d.Stubs = append(d.Stubs, act.Path)
			}
			d.Files = append(d.Files, act.Path)
			d.Patches = append(d.Patches, atesor.Patch{File: act.Path, Diff: newFileDiff(act.Path, act.Content)})
		case atesor.ActionPatch:
			if err := a.Patch(ctx, act.File, act.Diff); err != nil {
				return d, err
			}
			d.Files = append(d.Files, act.File)
			d.Patches = append(d.Patches, atesor.Patch{File: act.File, Diff: act.Diff})
		default:
			return d, fmt.Errorf("unknown action type %q", act.Type)
		}
	}
	return d, nil
}

// command runs one fix command after validating it again.
func (a Applier) command(ctx context.Context, line string) error {
	if err := validate.FixCommand(line); err != nil {
		return fmt.Errorf("command %q: %w", line, err)
	}
	if a.Emit != nil {
		a.Emit(atesor.Event{Kind: atesor.EventCommand, Phase: "apply", Line: line})
	}
	var out io.Writer
	end := func(atesor.CommandResult) {}
	if a.Output != nil {
		out, end = a.Output(line)
	}
	res, err := a.Sandbox.Exec(ctx, atesor.Command{Line: line, Dir: a.RepoDir, Network: true, Stdout: out, Stderr: out, Env: a.Env})
	end(res)
	if err != nil {
		return fmt.Errorf("run %q: %w", line, err)
	}
	if !res.OK() {
		return fmt.Errorf("fix command %q failed with exit %d: %s", line, res.ExitCode, excerpt.FirstLine(buildlog.Extract(res.Output).Text))
	}
	return nil
}

// Patch writes diff, the change of file, into the package's directory and applies it
// with patch(1), trying -p1 (a/ b/ prefixes) then -p0.
func (a Applier) Patch(ctx context.Context, file, diff string) error {
	p := path.Join(a.RepoDir, PatchFile)
	if !strings.HasSuffix(diff, "\n") {
		diff += "\n"
	}
	if err := a.Sandbox.WriteFile(ctx, p, []byte(diff), 0o644); err != nil {
		return fmt.Errorf("patch %s: %w", file, err)
	}
	defer a.Sandbox.Exec(ctx, atesor.Command{Line: "rm -f " + PatchFile, Dir: a.RepoDir}) //nolint:errcheck // best effort
	var last atesor.CommandResult
	for _, level := range []string{"-p1", "-p0"} {
		res, err := a.Sandbox.Exec(ctx, atesor.Command{Line: "patch --batch --forward " + level + " -i " + PatchFile, Dir: a.RepoDir, Timeout: time.Minute})
		if err != nil {
			return fmt.Errorf("patch %s: %w", file, err)
		}
		if res.OK() {
			return nil
		}
		last = res
	}
	return fmt.Errorf("patch for %s does not apply: %s", file, excerpt.FirstLine(last.Output))
}

// newFileDiff is a created file as a unified diff from /dev/null, for the recipe.
func newFileDiff(p, content string) string {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", p, len(lines))
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// Describe says in a few words what an action does: its command line, or the file it
// creates or patches.
func Describe(a atesor.Action) string {
	switch a.Type {
	case atesor.ActionCommand:
		return a.Command
	case atesor.ActionCreateFile:
		return "create " + a.Path
	case atesor.ActionPatch:
		return "patch " + a.File
	}
	return string(a.Type)
}

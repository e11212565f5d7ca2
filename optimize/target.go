package optimize

import (
	"context"
	"fmt"
	"io/fs"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
)

// TargetOf describes a verified port to the optimizer from its run state: the package,
// its primary artifacts, the commands of the verified build, the files its fixes
// changed, its tests (when it has some) and what the analysis or detection says of its
// purpose and language. source is the package's pristine tree on the host, read the
// gate's way (nil: none); env is the base environment of every command, the verified
// build's.
func TargetOf(s *atesor.State, source fs.FS, env []string) Target {
	t := Target{
		Package: s.RepoName, RepoDir: s.RepoDir, Commands: s.ExecutedCommands,
		Artifacts: atesor.PrimaryArtifacts(s.Artifacts), TestTimeout: s.Request.WithDefaults().TestTimeout,
		Env: env,
	}
	if source != nil {
		t.Source = source
		t.Module, t.Crate = ModulePath(source), CrateName(source)
	}
	if s.Analysis != nil {
		t.Purpose, t.Language = s.Analysis.Purpose, s.Analysis.Language
	}
	if t.Language == "" && s.Detection != nil {
		t.Language = s.Detection.Language
	}
	if s.Tests != nil && !s.Tests.NoTests {
		t.TestCommands, t.TestsPassed = s.Tests.Commands, s.Tests.Passed
	}
	for _, p := range s.Patches {
		t.ChangedFiles = append(t.ChangedFiles, p.File)
	}
	return t
}

// Execer runs a command in the sandbox.
type Execer interface {
	Exec(ctx context.Context, cmd atesor.Command) (atesor.CommandResult, error)
}

var _ Execer = atesor.Sandbox(nil)

// Rebuild runs one command of the verified build again, as the build ran it; failed
// reports a command that ran and failed.
type Rebuild func(ctx context.Context, line string) (res atesor.CommandResult, failed bool, err error)

// EnsureBuilt makes sure the verified build is in the sandbox before it is measured:
// when a primary artifact of t is missing (a run resumed into performance mode has a
// fresh sandbox, where the package was restored as source with its fixes), t's
// commands run again through rebuild, after a line to progress (nil: none). It returns
// why the build is not there, or "".
func EnsureBuilt(ctx context.Context, sb Execer, t Target, rebuild Rebuild, progress func(line string)) string {
	missing := false
	for _, a := range t.Artifacts {
		res, err := sb.Exec(ctx, atesor.Command{Line: "test -e " + shellwords.Quote(a.Path), Dir: "/"})
		if err != nil {
			return "checking the verified build: " + err.Error()
		}
		if !res.OK() {
			missing = true
			break
		}
	}
	if !missing {
		return ""
	}
	if progress != nil {
		progress("rebuilding the verified build in this sandbox (the run was resumed)")
	}
	for _, line := range t.Commands {
		res, failed, err := rebuild(ctx, line)
		if err != nil {
			return "rebuilding the verified build: " + err.Error()
		}
		if failed {
			return fmt.Sprintf("rebuilding the verified build: `%s` exited %d: %s", line, res.ExitCode, excerpt.FirstLine(res.Output))
		}
	}
	return ""
}

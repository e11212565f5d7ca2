package sandboxtest

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/archive"
	"github.com/eclipse-atesor/atesor-go/sandbox"
)

var (
	_ atesor.Sandbox     = (*Sandbox)(nil)
	_ sandbox.HostPather = (*Sandbox)(nil)
	_ sandbox.HostTree   = (*Sandbox)(nil)
)

// Rule scripts the answer to the commands it matches.
type Rule struct {
	// Match decides whether the rule answers a command.
	Match func(cmd atesor.Command) bool
	// Result is returned for a matching command (Line is filled in).
	Result atesor.CommandResult
	// Err, when set, is returned instead of running the command.
	Err error
	// Times limits how often the rule answers; 0 means always.
	Times int
	// Do, when set, runs before answering, for example to create files a build would make.
	Do func(sb *Sandbox, cmd atesor.Command)
	// Plant, when set, plants these fixtures (sandbox path to fixture, see
	// [Sandbox.Plant]) before answering; a planting error makes the command fail with
	// the error as its output.
	Plant map[string]Fixture

	used int
}

// Sandbox is the fake. The zero value is not usable; call [New].
type Sandbox struct {
	root     string
	platform atesor.Platform

	mu       sync.Mutex
	rules    []*Rule
	commands []atesor.Command
	repo     string
	closed   bool
	// Default is returned for commands no rule matches (exit 0, no output, by default).
	Default atesor.CommandResult
}

// New returns a fake sandbox whose file tree lives in t.TempDir().
func New(t testing.TB, p atesor.Platform) *Sandbox {
	t.Helper()
	return NewAt(t.TempDir(), p)
}

// NewAt returns a fake sandbox whose file tree lives in the host directory root.
func NewAt(root string, p atesor.Platform) *Sandbox {
	_ = os.MkdirAll(filepath.Join(root, "workspace"), 0o755)
	return &Sandbox{root: root, platform: p}
}

// Root returns the host directory that plays the sandbox's /.
func (s *Sandbox) Root() string { return s.root }

// SetRepo sets the repository directory (/workspace/<name>) relative paths and the
// default working directory refer to.
func (s *Sandbox) SetRepo(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repo = path.Join(sandbox.Workspace, name)
	_ = os.MkdirAll(filepath.Join(s.root, filepath.FromSlash(s.repo)), 0o755)
}

// Add appends a rule; rules are tried in the order they were added.
func (s *Sandbox) Add(r Rule) *Sandbox {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append(s.rules, &r)
	return s
}

// On answers commands whose line matches the regular expression pattern.
func (s *Sandbox) On(pattern string, res atesor.CommandResult) *Sandbox {
	re := regexp.MustCompile(pattern)
	return s.Add(Rule{Match: func(c atesor.Command) bool { return re.MatchString(c.Line) }, Result: res})
}

// OnPrefix answers commands whose line starts with prefix.
func (s *Sandbox) OnPrefix(prefix string, res atesor.CommandResult) *Sandbox {
	return s.Add(Rule{Match: func(c atesor.Command) bool { return strings.HasPrefix(c.Line, prefix) }, Result: res})
}

// Fail is a helper for a failed result with exit code and output.
func Fail(exit int, output string) atesor.CommandResult {
	return atesor.CommandResult{ExitCode: exit, Stderr: output, Output: output}
}

// OK is a helper for a successful result with output.
func OK(output string) atesor.CommandResult {
	return atesor.CommandResult{Stdout: output, Output: output}
}

// Commands returns the commands run so far, in order.
func (s *Sandbox) Commands() []atesor.Command {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]atesor.Command(nil), s.commands...)
}

// Lines returns the command lines run so far, in order.
func (s *Sandbox) Lines() []string {
	var out []string
	for _, c := range s.Commands() {
		out = append(out, c.Line)
	}
	return out
}

// Closed reports whether Close was called.
func (s *Sandbox) Closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Platform returns the platform given to New.
func (s *Sandbox) Platform() atesor.Platform { return s.platform }

// Exec records cmd and answers with the first matching rule, else Default (and, for the
// pipeline's install step, an empty staging directory: the install-staging rule). Output is
// also written to the command's live writers.
func (s *Sandbox) Exec(ctx context.Context, cmd atesor.Command) (atesor.CommandResult, error) {
	if err := ctx.Err(); err != nil {
		return atesor.CommandResult{Line: cmd.Line}, err
	}
	s.mu.Lock()
	s.commands = append(s.commands, cmd)
	var rule *Rule
	for _, r := range s.rules {
		if (r.Times == 0 || r.used < r.Times) && r.Match(cmd) {
			r.used++
			rule = r
			break
		}
	}
	res := s.Default
	s.mu.Unlock()
	if rule != nil {
		if rule.Do != nil {
			rule.Do(s, cmd)
		}
		if err := s.plant(rule.Plant); err != nil {
			res := Fail(1, err.Error())
			res.Line = cmd.Line
			return res, nil
		}
		if rule.Err != nil {
			return atesor.CommandResult{Line: cmd.Line}, rule.Err
		}
		res = rule.Result
	} else if err := s.stage(cmd.Line); err != nil {
		res = Fail(1, err.Error())
	}
	res.Line = cmd.Line
	if res.Output == "" {
		res.Output = res.Stdout + res.Stderr
	}
	if res.Signal != "" || strings.Contains(res.Output, "qemu: uncaught target signal") {
		res.EmulatorFault = sandbox.IsEmulatorFault(res)
	}
	if cmd.Stdout != nil && res.Stdout != "" {
		_, _ = cmd.Stdout.Write([]byte(res.Stdout))
	}
	if cmd.Stderr != nil && res.Stderr != "" {
		_, _ = cmd.Stderr.Write([]byte(res.Stderr))
	}
	return res, nil
}

// stageLine is the start of the pipeline's install step: the staging directory inside
// the repository is emptied, then the build system installs into it.
var stageLine = regexp.MustCompile(`^rm -rf '(/workspace/[^']+/\.atesor-stage)' && `)

// stage is the install-staging rule of commands no rule answers: an install step
// creates its (empty) staging directory, as a real install that installs nothing
// would, so a port in the fake sandbox stages nothing instead of failing to list the
// stage. A test that wants files staged adds a rule that plants them.
func (s *Sandbox) stage(line string) error {
	m := stageLine.FindStringSubmatch(line)
	if m == nil {
		return nil
	}
	dir, err := s.HostPath(m[1])
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.MkdirAll(dir, 0o755)
}

func (s *Sandbox) repoDir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.repo
}

// HostPath maps a sandbox path into the temporary file tree.
func (s *Sandbox) HostPath(p string) (string, error) {
	resolved, err := sandbox.ResolvePath(s.root, p)
	if err != nil {
		return "", err
	}
	return filepath.Join(s.root, filepath.FromSlash(resolved)), nil
}

// CopyIn copies a host file or directory (or unpacks a tarball) into the file tree. A
// git URL is recorded as a "git clone" command and answered by the rules.
func (s *Sandbox) CopyIn(ctx context.Context, src, sandboxPath string) error {
	if sandbox.IsGitURL(src) {
		res, err := s.Exec(ctx, atesor.Command{Line: "git clone --depth 1 --recurse-submodules " + src + " " + sandboxPath, Network: true})
		if err != nil {
			return err
		}
		if !res.OK() {
			return fmt.Errorf("git clone %s failed (exit %d): %s", src, res.ExitCode, res.Output)
		}
	} else {
		dest, err := s.HostPath(sandboxPath)
		if err != nil {
			return err
		}
		if err := copyIn(ctx, src, dest); err != nil {
			return err
		}
	}
	s.mu.Lock()
	if s.repo == "" {
		s.repo = sandbox.RepoOf(sandboxPath)
	}
	s.mu.Unlock()
	return nil
}

func copyIn(ctx context.Context, src, dest string) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if !fi.IsDir() && archive.Kind(src) != "" {
		if err := os.MkdirAll(dest, 0o755); err != nil {
			return err
		}
		return archive.Extract(ctx, src, dest, archive.DefaultLimits())
	}
	return os.CopyFS(dest, os.DirFS(src))
}

// CopyOut copies a file or directory of the file tree to the host with the real
// sandboxes' rules (regular files only, bounded, links that stay inside a tree).
func (s *Sandbox) CopyOut(ctx context.Context, sandboxPath, dest string) error {
	src, err := s.HostPath(sandboxPath)
	if err != nil {
		return err
	}
	return sandbox.CopyOutHostPath(ctx, src, dest, sandbox.DefaultCopyLimits(), nil)
}

// ReadFile reads a file of the repository with the real sandboxes' path rules.
func (s *Sandbox) ReadFile(ctx context.Context, p string) ([]byte, error) {
	return sandbox.ReadFileIn(ctx, s.root, s.repoDir(), p)
}

// WriteFile writes a file of the repository with the real sandboxes' path rules.
func (s *Sandbox) WriteFile(ctx context.Context, p string, data []byte, perm fs.FileMode) error {
	return sandbox.WriteFileIn(s.root, s.repoDir(), p, data, perm)
}

// Close marks the fake closed; the file tree stays for inspection.
func (s *Sandbox) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

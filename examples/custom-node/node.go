package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// BuildNode is an embedder's replacement for the pipeline's build node (install it with
// graph.WithNode(graph.NodeBuild, node)): it runs the plan's phases through the run's
// sandbox, reports each command as the built-in node does, and after a successful build
// asks the summarizer for a one-line note about the build output, through the run's
// Ask (audit log, events, usage).
//
// It owns the state's build part and keeps the invariants the pipeline reads (see
// atesor.BuildPart and atesor.FixPart): BuildSucceeded on every run, Status built or
// build_failed, a failed command recorded with State.Record, ExecutedCommands for the
// recipe, and after a successful build the fix attempts since BuiltFixes marked
// successful; every build run then sets BuiltFixes to the number of fix attempts.
type BuildNode struct{}

var _ atesor.Node = BuildNode{}

// Name is the node's own name; the pipeline reports it under the name it replaces.
func (BuildNode) Name() string { return "house-build" }

// Run builds the package.
func (BuildNode) Run(ctx context.Context, run atesor.Run, s *atesor.State) error {
	s.BuildSucceeded = false
	if s.Plan == nil {
		return errors.New("no build plan")
	}
	var output strings.Builder
	for _, ph := range s.Plan.Phases {
		if contains(s.CompletedPhases, ph.Name) {
			continue // a rebuild after a fix is incremental
		}
		run.Emit(atesor.Event{Kind: atesor.EventPhase, Phase: ph.Name})
		for _, line := range ph.Commands {
			run.Emit(atesor.Event{Kind: atesor.EventCommand, Phase: ph.Name, Line: line})
			res, err := run.Sandbox().Exec(ctx, atesor.Command{Line: line, Dir: s.RepoDir, Network: true})
			if err != nil {
				return fmt.Errorf("run %q: %w", line, err) // the sandbox failed, not the package
			}
			if !res.OK() {
				s.Record(atesor.ErrorRecord{Node: "build", Phase: ph.Name, Command: line, ExitCode: res.ExitCode, Message: tail(res.Output, 4000)})
				s.Status = atesor.StatusBuildFailed
				s.BuiltFixes = len(s.FixAttempts) // these fixes were followed by a failed build
				run.Logger().Warn("house build failed", "command", line, "exit", res.ExitCode)
				return nil
			}
			output.WriteString(res.Output)
			if !contains(s.ExecutedCommands, line) {
				s.ExecutedCommands = append(s.ExecutedCommands, line)
			}
		}
		s.CompletedPhases = append(s.CompletedPhases, ph.Name)
	}
	s.BuildSucceeded = true
	s.Status = atesor.StatusBuilt
	for i := s.BuiltFixes; i < len(s.FixAttempts); i++ {
		s.FixAttempts[i].Success = true // the fixes since the last build made it build
	}
	s.BuiltFixes = len(s.FixAttempts)

	ans, err := run.Ask(ctx, atesor.Question{
		Role:   atesor.RoleSummarizer,
		Label:  "build-notes",
		Prompt: "In one line, what did this riscv64 build of " + s.RepoName + " produce?\n\n" + tail(output.String(), 4000),
	})
	switch {
	case err == nil:
		run.Emit(atesor.Event{Kind: atesor.EventInfo, Line: "build note: " + firstLine(ans.Text)})
	case errors.Is(err, atesor.ErrOffline):
	default:
		run.Logger().Warn("no build note", "err", err) // a note is optional
	}
	return nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

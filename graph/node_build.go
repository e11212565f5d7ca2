package graph

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/buildlog"
	"github.com/eclipse-atesor/atesor-go/cargotool"
	"github.com/eclipse-atesor/atesor-go/gotool"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/internal/logfile"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// emulatorFaultPrefix starts the error message of a command the emulator broke.
const emulatorFaultPrefix = "emulator fault: "

// maxErrorChars bounds the error message kept for a failed command.
const maxErrorChars = buildlog.MaxChars

// buildNode runs the plan's phases in the sandbox. Phases that succeeded before are
// skipped, and the build directory is never wiped, so a rebuild after a fix is
// incremental; only what the earlier build made with flags or switches the plan no
// longer has is dropped first (dropStaleProducts). It stops at the first failing command and keeps its full output in
// <repo>_build.log.
func (r *run) buildNode(ctx context.Context, s *atesor.State) error {
	s.BuildSucceeded = false
	if s.Plan == nil {
		return fmt.Errorf("no build plan")
	}
	if err := r.ensureRepo(ctx, s); err != nil {
		return err
	}
	r.dropStaleProducts(ctx, s)
	s.BuiltPlan = clonePlan(s.Plan)
	for i := 0; i < len(s.Plan.Phases); i++ {
		if isCargo(s) && (s.Plan.Phases[i].Name != "setup" || r.p.cfg.Crates != atesor.CratesAuto) {
			// Before anything is installed, so a crate the distribution lacks ends the
			// port at once; auto mode tries cargo fetch, so after setup installed cargo.
			if err := r.ensureCrates(ctx, s, i); err != nil {
				return err
			}
		}
		ph := s.Plan.Phases[i]
		if slices.Contains(s.CompletedPhases, ph.Name) {
			continue
		}
		r.emit(atesor.Event{Kind: atesor.EventPhase, Node: NodeBuild, Phase: ph.Name})
		for _, line := range ph.Commands {
			if gotool.UsesGo(line) {
				if err := r.ensureGoToolchain(ctx, s); err != nil {
					return err
				}
			}
			res, failed, err := r.runPlanCommand(ctx, s, NodeBuild, ph.Name, line)
			if err != nil {
				return err
			}
			if failed {
				r.failBuild(ctx, s, ph.Name, line, res)
				return nil
			}
		}
		s.CompletedPhases = append(s.CompletedPhases, ph.Name)
		if ph.Name == cargotool.Phase {
			if err := r.checkRust(ctx, s); err != nil {
				return err
			}
		}
	}
	s.BuildSucceeded = true
	s.Status = atesor.StatusBuilt
	for i := s.BuiltFixes; i < len(s.FixAttempts); i++ {
		s.FixAttempts[i].Success = true // the fixes since the last build run made it build
	}
	s.BuiltFixes = len(s.FixAttempts)
	r.stageInstall(ctx, s)
	return nil
}

// runPlanCommand checks a line against the deny rules, runs it with network and live
// output, and reruns it once on an emulator fault. failed reports a command that ran
// and failed.
func (r *run) runPlanCommand(ctx context.Context, s *atesor.State, node, phase, line string) (atesor.CommandResult, bool, error) {
	return r.runPlanCommandWithin(ctx, s, node, phase, line, 0)
}

// runPlanCommandWithin is runPlanCommand bounded by timeout (0: the sandbox's default
// per-command bound).
func (r *run) runPlanCommandWithin(ctx context.Context, s *atesor.State, node, phase, line string, timeout time.Duration) (atesor.CommandResult, bool, error) {
	if err := validate.DenyRules(line); err != nil {
		return atesor.CommandResult{Line: line, ExitCode: -1, Output: "refused by the command safety rules: " + err.Error()}, true, nil
	}
	r.emit(atesor.Event{Kind: atesor.EventCommand, Node: node, Phase: phase, Line: line})
	log := r.startLog(line)
	lw := (&lineWriter{r: r, node: node, phase: phase}).teeTo(log)
	res, fault, err := sandbox.ExecRetryingFaults(ctx, r.sb, atesor.Command{
		Line: line, Dir: s.RepoDir, Network: true, Stdout: lw, Stderr: lw, Env: buildEnv(s), Timeout: timeout,
	})
	log.end(res)
	if err != nil {
		return res, false, fmt.Errorf("run %q: %w", line, err)
	}
	if fault == sandbox.FaultInfra {
		res.Output = emulatorFaultPrefix + "the emulator crashed running `" + line + "` and the rerun behaved differently\n" + res.Output
		return res, true, nil
	}
	if !res.OK() {
		return res, true, nil
	}
	if !slices.Contains(s.ExecutedCommands, line) {
		s.ExecutedCommands = append(s.ExecutedCommands, line)
	}
	return res, false, nil
}

func (r *run) failBuild(ctx context.Context, s *atesor.State, phase, line string, res atesor.CommandResult) {
	rec := atesor.ErrorRecord{Node: NodeBuild, Phase: phase, Command: line, ExitCode: res.ExitCode}
	if strings.HasPrefix(res.Output, emulatorFaultPrefix) {
		rec.Message, rec.Category = excerpt.FirstLine(res.Output), atesor.CategoryUnknown
	} else {
		ev := r.failureEvidence(ctx, s, phase, line, res)
		rec.Message, rec.Category = ev.Text, ev.Category()
	}
	s.Record(rec)
	if strings.Contains(res.Output, cmakeConfigureFailed) {
		r.forgetFailedConfigure(ctx, s)
	}
	r.lastOutput = res.Output
	s.BuiltFixes = len(s.FixAttempts) // those fixes were followed by a failed build
	s.Status = atesor.StatusBuildFailed
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeBuild, Phase: phase, Line: "failed: " + line, Err: excerpt.FirstLine(rec.Message)})
}

// cmakeConfigureFailed is what CMake prints when a configure stops at an error.
const cmakeConfigureFailed = "-- Configuring incomplete, errors occurred!"

// forgetFailedConfigure removes the CMakeCache.txt files in the package's tree after a
// CMake configure stopped at an error. CMake initialises some settings only on a first
// configure (a project that sets its prefix when CMAKE_INSTALL_PREFIX_INITIALIZED_TO_DEFAULT
// installs elsewhere when configured again over the cache), so the rebuild after the fix
// would configure differently from a replay, which configures once in a fresh tree. The
// compiled objects stay: only the cache of the failed configure goes.
func (r *run) forgetFailedConfigure(ctx context.Context, s *atesor.State) {
	res, err := r.sb.Exec(ctx, atesor.Command{Line: "find . -maxdepth 4 -type f -name CMakeCache.txt -delete", Dir: s.RepoDir, Timeout: time.Minute})
	if err != nil || !res.OK() {
		r.log.Warn("remove the cache of the failed CMake configure", "err", err, "exit", res.ExitCode)
	}
}

// appendLog keeps the full output of every build command.
func (r *run) appendLog(line string, res atesor.CommandResult) {
	f, err := logfile.OpenAppend(r.outPath("_build.log"))
	if err != nil {
		r.log.Warn("build log", "err", err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "$ %s\n%s\n[exit %d, %s]\n\n", line, res.Output, res.ExitCode, res.Duration.Round(1e6))
}

// ensureRepo restores the package in a fresh sandbox on resume: the source is copied in
// again, the successful fixes are applied again, and the phases rerun from the start.
func (r *run) ensureRepo(ctx context.Context, s *atesor.State) error {
	res, err := r.sb.Exec(ctx, atesor.Command{Line: "test -d " + shellwords.Quote(s.RepoDir), Dir: "/"})
	if err != nil {
		return fmt.Errorf("check the package directory: %w", err)
	}
	if res.OK() {
		return nil
	}
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeBuild, Line: "restoring the package in a fresh sandbox"})
	if err := r.placeSource(ctx, s); err != nil {
		return err
	}
	s.CompletedPhases, s.BuiltPlan = nil, nil // a fresh tree holds nothing built
	// The fixes below and whatever node resumes may run the go command: a release the
	// port fetched must be back in the fresh sandbox first.
	if t := s.GoToolchain; t != nil && t.GOROOT != "" {
		if err := r.ensureGoToolchain(ctx, s); err != nil {
			return err
		}
	}
	for _, f := range s.FixAttempts {
		if err := r.applyActions(ctx, s, f.Actions, nil); err != nil {
			r.log.Warn("reapply fix", "err", err)
		}
	}
	return nil
}

// buildEnv is the environment of build and fix commands: SOURCE_DATE_EPOCH from the
// source, so that compilers and archivers that embed dates reproduce in a replay.
func buildEnv(s *atesor.State) []string {
	env := gotool.Env(s.GoToolchain)
	if s.SourceDateEpoch <= 0 {
		return env
	}
	return append(env, "SOURCE_DATE_EPOCH="+strconv.FormatInt(s.SourceDateEpoch, 10))
}

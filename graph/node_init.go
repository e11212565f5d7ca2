package graph

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/source"
	"github.com/eclipse-atesor/atesor-go/verify"
)

// initNode puts the source into the sandbox at /workspace/<repo>, runs the scripted
// detection and remembers the ELF files the source ships.
func (r *run) initNode(ctx context.Context, s *atesor.State) error {
	if err := r.placeSource(ctx, s); err != nil {
		return err
	}
	det, err := knowledge.DetectWith(ctx, r.hostTree, goModuleHint(s.Request))
	if err != nil {
		return fmt.Errorf("detect the build system: %w", err)
	}
	s.Detection = det
	s.Evidence = knowledge.Evidence(ctx, r.hostTree)
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeInit, Line: fmt.Sprintf("detected %s (confidence %.2f, %s)", det.BuildSystem, det.Confidence, det.Evidence)})
	shipped, err := verify.ScanArtifacts(ctx, r.sb, s.RepoDir, r.log)
	if err != nil {
		return fmt.Errorf("scan the source for shipped binaries: %w", err)
	}
	s.SourceELFs = verify.ShippedELFs(shipped)
	r.snapshotOriginal(ctx, s)
	return nil
}

// noGoModulePath ends a run whose Go packages have no go.mod and no known module path
// (class setup), or that import packages no go.mod requires (class dependency), with
// what to give: no plan builds them.
func noGoModulePath(s *atesor.State, err error) error {
	s.FailureClass = atesor.FailureSetup
	if errors.Is(err, knowledge.ErrGoImportsWithoutModule) {
		s.FailureClass = atesor.FailureDependency
	}
	s.EscalationReason = err.Error()
	return err
}

// goModuleHint is the module path the request knows for Go packages with no go.mod:
// the one it gives, else the distribution's Go-Import-Path of the package it was
// resolved from.
func goModuleHint(req atesor.Request) knowledge.DetectOptions {
	switch {
	case req.GoModule != "":
		return knowledge.DetectOptions{GoModulePath: req.GoModule, GoModulePathFrom: "the request"}
	case req.Origin != nil && req.Origin.GoImportPath != "":
		return knowledge.DetectOptions{GoModulePath: req.Origin.GoImportPath,
			GoModulePathFrom: fmt.Sprintf("the Go-Import-Path of %s %s %s", req.Origin.Distro, req.Origin.Package, req.Origin.Version)}
	}
	return knowledge.DetectOptions{}
}

// placeSource copies a directory or unpacked tarball in, or clones a git URL inside the
// sandbox and copies the clone out for detection.
func (r *run) placeSource(ctx context.Context, s *atesor.State) error {
	if r.src.Kind != source.Git {
		if err := r.sb.CopyIn(ctx, r.hostTree, s.RepoDir); err != nil {
			return fmt.Errorf("copy the source into the sandbox: %w", err)
		}
		return nil
	}
	if err := r.sb.CopyIn(ctx, r.src.Raw, s.RepoDir); err != nil {
		return fmt.Errorf("clone %s: %w", source.RedactURL(r.src.Raw), source.RedactError(err, r.src.Raw))
	}
	res, err := r.sb.Exec(ctx, atesor.Command{Line: "git rev-parse HEAD", Dir: s.RepoDir, Timeout: time.Minute})
	if err == nil && res.OK() {
		s.SourceCommit = strings.TrimSpace(res.Stdout)
	}
	if res, err := r.sb.Exec(ctx, atesor.Command{Line: "git log -1 --format=%ct", Dir: s.RepoDir, Timeout: time.Minute}); err == nil && res.OK() {
		s.SourceDateEpoch, _ = strconv.ParseInt(strings.TrimSpace(res.Stdout), 10, 64) // the commit's date
	}
	tree, err := r.src.PrepareTree()
	if err != nil {
		return err
	}
	r.hostTree = tree
	if err := r.sb.CopyOut(ctx, s.RepoDir, r.hostTree); err != nil {
		return fmt.Errorf("copy the clone out for detection: %w", err)
	}
	return nil
}

// taskPlanNode records the fixed task plan, with no model call (see atesor.TaskPlan).
func (r *run) taskPlanNode(_ context.Context, s *atesor.State) error {
	s.TaskPlan = &atesor.TaskPlan{Steps: []string{
		"fetch the source into the sandbox and detect its build system",
		"analyse the package and its RISC-V risks",
		"plan the build (default plan for a standard build system, else the scout)",
		"build natively in the riscv64 sandbox",
		"verify every primary artifact is a riscv64 ELF built here that starts",
		"repair failures with the fixer, within the attempt and cost limits",
		"run the package tests, write the recipe, learn from a verified port",
	}}
	return nil
}

// heuristicPlanNode sets the default plan of a standard build system, unless the analysis
// asks for a custom plan or the detection is unsure; then the scout plans.
func (r *run) heuristicPlanNode(ctx context.Context, s *atesor.State) error {
	det := s.Detection
	switch {
	case det == nil:
		return nil
	case s.Analysis != nil && s.Analysis.NeedsCustomPlan:
		r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeHeuristicPlan, Line: "the analysis asks for a custom plan: the scout plans"})
		return nil
	case det.Confidence < 0.5 || det.BuildSystem == atesor.BuildUnknown:
		r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeHeuristicPlan, Line: "the detection is unsure: the scout plans"})
		return nil
	}
	plan, tests, err := knowledge.DefaultPlan(det, s.Platform)
	if errors.Is(err, knowledge.ErrGoImportsWithoutModule) {
		gp, gtests, why := r.goPathPlan(ctx, s)
		if why == "" {
			plan, tests, err = gp, gtests, nil
		} else {
			err = fmt.Errorf("%w; no GOPATH build: %s", err, why)
		}
	}
	if err != nil && r.provider == nil && (errors.Is(err, knowledge.ErrNoGoModulePath) || errors.Is(err, knowledge.ErrGoImportsWithoutModule)) {
		return noGoModulePath(s, err)
	}
	if err != nil {
		r.log.Info("no default plan", "err", err)
		return nil
	}
	r.cargoPlan(ctx, s, &plan)
	plan = knowledge.CorrectedPlan(s.Platform, plan)
	s.Plan, s.TestCommands, s.PlanSource = &plan, knowledge.CorrectedLines(s.Platform, tests), "heuristic"
	return nil
}

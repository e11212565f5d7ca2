package graph

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/cargotool"
	"github.com/eclipse-atesor/atesor-go/internal/debarchive"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/knowledge/crates"
)

// CrateIndexLoader loads the distribution's index of packaged crates for a platform.
type CrateIndexLoader func(ctx context.Context, p atesor.Platform) (*crates.Index, error)

// WithCrateIndex sets how the distribution's crate index is loaded (default: the
// suite's riscv64 Packages index through the verified Debian archive client, from
// Config.DebianMirror, cached under the state home).
func WithCrateIndex(f CrateIndexLoader) Option {
	return func(o *options) { o.crateIndex = f }
}

// crateIndex loads the crate index with the option's loader or the archive's.
func (r *run) crateIndex(ctx context.Context, p atesor.Platform) (*crates.Index, error) {
	if f := r.p.opts.crateIndex; f != nil {
		return f(ctx, p)
	}
	suite := knowledge.DebianSuite(p)
	return r.p.crates.load(ctx, suite, func(ctx context.Context) (*crates.Index, error) {
		// The verifier's distribution comparison reads the same Packages index: one cache.
		c, err := debarchive.Open(debarchive.Settings{Mirror: r.p.cfg.DebianMirror, Suite: suite, CacheDir: r.p.cfg.cacheDir("debian-binaries")})
		if err != nil {
			return nil, err
		}
		return crates.LoadIndex(ctx, c, "main", "riscv64")
	})
}

// crateCache keeps the crate index each suite's first cargo port loaded, so the runs of
// one pipeline (a batch) parse the Packages index once. A failed load is not kept: the
// next run tries again.
type crateCache struct {
	mu      sync.Mutex
	indexes map[string]*crates.Index
}

func (c *crateCache) load(ctx context.Context, suite string, load func(context.Context) (*crates.Index, error)) (*crates.Index, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ix, ok := c.indexes[suite]; ok {
		return ix, nil
	}
	ix, err := load(ctx)
	if err != nil {
		return nil, err
	}
	if c.indexes == nil {
		c.indexes = map[string]*crates.Index{}
	}
	c.indexes[suite] = ix
	return ix, nil
}

// isCargo reports whether the port builds with cargo (the analysis' choice wins over
// the detection's, as for the install step).
func isCargo(s *atesor.State) bool {
	if s.Analysis != nil && s.Analysis.BuildSystem != "" && s.Analysis.BuildSystem != atesor.BuildUnknown {
		return s.Analysis.BuildSystem == atesor.BuildCargo
	}
	return s.Detection != nil && s.Detection.BuildSystem == atesor.BuildCargo
}

// cargoPackage reads the port's cargo package from the host copy of the tree.
func (r *run) cargoPackage(ctx context.Context, s *atesor.State) (*cargotool.Package, error) {
	dir := ""
	if s.Detection != nil {
		dir = s.Detection.BuildDir
	}
	return cargotool.Read(ctx, r.hostTree, dir)
}

// cargoPlan gives the default plan of a cargo port the build line its manifest asks
// for (a library crate also builds its test binaries, its riscv64 evidence).
func (r *run) cargoPlan(ctx context.Context, s *atesor.State, plan *atesor.BuildPlan) {
	if !isCargo(s) {
		return
	}
	pkg, err := r.cargoPackage(ctx, s)
	if err != nil {
		r.log.Info("cargo manifest", "err", err) // the build's own cargo says what is wrong
		return
	}
	for i := range plan.Phases {
		if plan.Phases[i].Name == "build" {
			plan.Phases[i].Commands = []string{cargotool.BuildLine(pkg)}
		}
	}
}

// ensureCrates decides, once per run, where a cargo port's crates come from
// (Config.Crates), and puts the crates phase into the plan at index at, or after the
// setup phase when that is the phase at at (again after a re-plan dropped it). A dependency the distribution
// lacks ends the run with class dependency; a failure to read the manifest or the
// index is a setup failure.
func (r *run) ensureCrates(ctx context.Context, s *atesor.State, at int) error {
	if s.Crates == nil {
		deps, err := r.decideCrates(ctx, s)
		if err != nil {
			var de *cargotool.DependencyError
			if errors.As(err, &de) {
				s.FailureClass = atesor.FailureDependency
				s.EscalationReason = err.Error()
			} else if s.FailureClass == atesor.FailureNone {
				s.FailureClass = atesor.FailureSetup
				s.EscalationReason = "cargo dependencies: " + err.Error()
			}
			return err
		}
		s.Crates = deps
		r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeBuild, Phase: cargotool.Phase, Line: "crates: " + deps.String()})
	}
	if len(s.Crates.Commands) == 0 || slices.ContainsFunc(s.Plan.Phases, func(p atesor.Phase) bool { return p.Name == cargotool.Phase }) {
		return nil
	}
	if s.Plan.Phases[at].Name == "setup" {
		at++
	}
	s.Plan.Phases = slices.Insert(s.Plan.Phases, at, atesor.Phase{Name: cargotool.Phase, Commands: slices.Clone(s.Crates.Commands)})
	if note := cratesNote(s.Crates); !strings.Contains(s.Plan.Reasoning, note) {
		s.Plan.Reasoning = strings.TrimSpace(s.Plan.Reasoning + " " + note)
	}
	return nil
}

// cratesNote is the plan's note on the crates phase.
func cratesNote(d *atesor.CargoDeps) string {
	note := "Crates phase: " + d.String() + "."
	if d.ConfigSetAside != "" {
		note += " The package's cargo configuration is set aside as " + d.ConfigSetAside + "."
	}
	return note
}

// decideCrates reads the manifest and chooses the way of the crates by the setting.
func (r *run) decideCrates(ctx context.Context, s *atesor.State) (*atesor.CargoDeps, error) {
	pkg, err := r.cargoPackage(ctx, s)
	if err != nil {
		return nil, err
	}
	mode := r.p.cfg.Crates
	if mode == "" {
		mode = atesor.CratesDistribution
	}
	var fetchErr string
	switch mode {
	case atesor.CratesRegistry:
		return cargotool.Registry(pkg, mode), nil
	case atesor.CratesAuto:
		line := inPackageDir(pkg.Dir, cargotool.FetchLine)
		res, failed, err := r.runPlanCommandWithin(ctx, s, NodeBuild, cargotool.Phase, line, cargotool.FetchTimeout)
		if err != nil {
			return nil, err
		}
		if !failed {
			return cargotool.Registry(pkg, mode), nil
		}
		fetchErr = fetchFailure(res)
		r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeBuild, Phase: cargotool.Phase, Line: "the crates registry did not answer: the distribution's crates", Err: fetchErr})
	case atesor.CratesDistribution:
	default:
		return nil, fmt.Errorf("unknown crates setting %q (graph.Config.Crates): want distribution, registry or auto", mode)
	}
	if s.Platform.PackageManager != "apt-get" {
		return nil, fmt.Errorf("the distribution's crates are Debian's librust packages, and the %s sandbox has none: port with --crates registry", s.Platform.Name)
	}
	ix, err := r.crateIndex(ctx, s.Platform)
	if err != nil {
		return nil, fmt.Errorf("the distribution's crate index: %w", err)
	}
	deps, err := cargotool.Distribution(ix, pkg, s.Platform, mode)
	if err != nil {
		return nil, err
	}
	deps.RegistryError = fetchErr
	return deps, nil
}

// fetchFailure is the first line of a failed cargo fetch worth reporting.
func fetchFailure(res atesor.CommandResult) string {
	for _, l := range strings.Split(res.Output, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "error") {
			return excerpt.FirstLine(l)
		}
	}
	if res.ExitCode == 124 || res.Duration >= cargotool.FetchTimeout {
		return fmt.Sprintf("cargo fetch did not finish within %s", cargotool.FetchTimeout)
	}
	return fmt.Sprintf("cargo fetch failed (exit %d)", res.ExitCode)
}

// checkRust asks the sandbox's rustc for its version after the crates phase and
// ends the run with a setup failure when the manifest's rust-version asks for more.
func (r *run) checkRust(ctx context.Context, s *atesor.State) error {
	if s.Crates == nil || s.Crates.Rustc != "" {
		return nil
	}
	res, err := r.sb.Exec(ctx, atesor.Command{Line: cargotool.RustcLine, Dir: s.RepoDir, Timeout: 2 * time.Minute})
	if err != nil {
		return fmt.Errorf("ask rustc for its version: %w", err)
	}
	s.Crates.Rustc = cargotool.RustcVersion(res.Stdout)
	if s.Crates.RustVersion == "" {
		return nil
	}
	if !res.OK() || s.Crates.Rustc == "" {
		s.FailureClass = atesor.FailureSetup
		s.EscalationReason = fmt.Sprintf("the package asks for Rust %s and the sandbox's rustc did not say its version (exit %d): %s", s.Crates.RustVersion, res.ExitCode, excerpt.FirstLine(res.Output))
		return errors.New(s.EscalationReason)
	}
	if err := cargotool.CheckRust(s.Crates.RustVersion, s.Crates.Rustc); err != nil {
		s.FailureClass = atesor.FailureSetup
		s.EscalationReason = "rust: " + err.Error()
		return err
	}
	return nil
}

func inPackageDir(dir, line string) string {
	if dir == "" {
		return line
	}
	return "cd " + shellwords.Quote(dir) + " && " + line
}

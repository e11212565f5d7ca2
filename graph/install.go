package graph

import (
	"context"
	"slices"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/install"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/verify"
)

// stageInstall runs the build system's install step into the staging directory after a
// successful build (package install); its lines run as the build's plan commands do,
// and they are recorded last in the recipe's commands.
func (r *run) stageInstall(ctx context.Context, s *atesor.State) {
	st := install.Stager{Sandbox: r.sb, Emit: r.emitFor(NodeBuild),
		Run: func(ctx context.Context, line string, timeout time.Duration) (atesor.CommandResult, bool, error) {
			// A rerun after a fix moves the install to the end of the recipe's commands.
			s.ExecutedCommands = slices.DeleteFunc(s.ExecutedCommands, func(c string) bool { return c == line })
			return r.runPlanCommandWithin(ctx, s, NodeBuild, "install", line, timeout)
		}}
	pkg := install.Package{RepoDir: s.RepoDir, Detection: s.Detection, Plan: s.Plan, GoToolchain: s.GoToolchain}
	if s.Analysis != nil {
		pkg.BuildSystem = s.Analysis.BuildSystem
	}
	if isCargo(s) {
		if c, err := r.cargoPackage(ctx, s); err == nil && !slices.Contains(c.Manifest.Members, ".") {
			pkg.CargoWorkspacePrograms = c.Manifest.Binaries // a virtual workspace
		}
	}
	s.Install = st.Stage(ctx, pkg)
}

// chooseArtifacts decides the artifact roles after the curator rules (package
// install): test programs are secondary, staged ELF files are primary when the install
// step staged any.
func (r *run) chooseArtifacts(ctx context.Context, s *atesor.State, built []atesor.Artifact, shipped map[string]bool) []atesor.Artifact {
	c := install.Chooser{Sandbox: r.sb, HostTree: r.hostTree,
		Scan: func(ctx context.Context, dir string) ([]atesor.Artifact, error) {
			return verify.ScanArtifacts(ctx, r.sb, dir, r.log)
		},
		Read: func(ctx context.Context, p string, b sandbox.Bound) ([]byte, error) {
			return sandbox.ReadBounded(ctx, r.sb, p, b)
		},
		Log: r.log}
	var arts []atesor.Artifact
	s.Install, arts = c.Choose(ctx, s.RepoDir, s.Install, built, shipped)
	return arts
}

// writeInstallTarball writes the staged install tree as <repo>_install.tar.gz, within
// the run's copy-out bounds, dated SOURCE_DATE_EPOCH.
func (r *run) writeInstallTarball(ctx context.Context, s *atesor.State) error {
	return install.WriteTarball(ctx, r.sb, s.Install, r.outPath("_install.tar.gz"), time.Unix(s.SourceDateEpoch, 0), r.copyBudget, r.log)
}

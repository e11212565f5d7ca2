package graph

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/cargotool"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/knowledge/crates"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// cargoRun is a run over a fake sandbox of a cargo package whose host tree holds
// files, with the default plan (heuristic_plan), the crates setting mode and the
// distribution index of cargotool's test data.
func cargoRun(t *testing.T, mode atesor.CratesMode, files map[string]string) (*run, *atesor.State, *sandboxtest.Sandbox) {
	t.Helper()
	r, s, sb := testRunOver(t, atesor.BuildCargo)
	s.Status, s.Verified = "", false
	s.Request.OutputDir = t.TempDir()
	r.state = s
	p, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	s.Platform = p
	r.hostTree = t.TempDir()
	for rel, text := range files {
		f := filepath.Join(r.hostTree, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r.p.cfg.Crates = mode
	r.p.opts.crateIndex = func(context.Context, atesor.Platform) (*crates.Index, error) {
		f, err := os.Open(filepath.Join("..", "cargotool", "testdata", "Packages"))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return crates.ParseIndex(f)
	}
	s.Detection.Confidence, s.Detection.Evidence = 0.95, "Cargo.toml"
	if err := r.heuristicPlanNode(context.Background(), s); err != nil || s.Plan == nil {
		t.Fatalf("plan %v: %v", s.Plan, err)
	}
	sb.OnPrefix(cargotool.RustcLine, sandboxtest.OK("rustc 1.85.1 (4eb161250 2025-03-15) (built from a source tarball)\n"))
	return r, s, sb
}

const wordcountManifest = "[package]\nname = \"wordcount\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nitoa = \"1\"\nmemchr = \"2\"\n"

func phaseNames(p *atesor.BuildPlan) []string {
	var out []string
	for _, ph := range p.Phases {
		out = append(out, ph.Name)
	}
	return out
}

func indexOf(lines []string, prefix string) int {
	return slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, prefix) })
}

// TestCargoDistributionPlan: the crates phase comes after setup and installs the
// packaged crates, writes the cargo configuration and sets the Cargo.lock aside, all
// as plan commands in the recipe's block; rustc is asked for its version before the
// build.
func TestCargoDistributionPlan(t *testing.T) {
	r, s, sb := cargoRun(t, atesor.CratesDistribution, map[string]string{
		"Cargo.toml": wordcountManifest, "Cargo.lock": "version = 3\n", "src/main.rs": "fn main() {}\n",
	})
	if err := r.buildNode(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if !s.BuildSucceeded {
		t.Fatalf("build failed: %+v", s.LastError)
	}
	if got := phaseNames(s.Plan); !slices.Equal(got, []string{"setup", "crates", "build"}) {
		t.Errorf("phases %v", got)
	}
	c := s.Crates
	if c == nil || c.Source != atesor.CratesDistribution || c.LockfileSetAside != cargotool.LockSetAside || c.Rustc != "1.85.1" {
		t.Fatalf("crates record %+v", c)
	}
	lines := sb.Lines()
	setup, install, config, lock := indexOf(lines, "apt-get update && apt-get install -y build-essential cargo"),
		indexOf(lines, "apt-get update && apt-get install -y 'librust-itoa-dev' 'librust-memchr-dev'"),
		indexOf(lines, "mkdir -p .cargo && printf"), indexOf(lines, "test ! -e Cargo.lock || mv Cargo.lock")
	rustc, build := indexOf(lines, cargotool.RustcLine), indexOf(lines, "cargo build --release")
	if setup < 0 || !(setup < install && install < config && config < lock && lock < rustc && rustc < build) {
		t.Errorf("order: setup %d, crates %d %d %d, rustc %d, build %d in\n%s", setup, install, config, lock, rustc, build, strings.Join(lines, "\n"))
	}
	for _, cmd := range c.Commands {
		if !slices.Contains(s.ExecutedCommands, cmd) {
			t.Errorf("the recipe block lacks %q", cmd)
		}
	}
	if !strings.Contains(s.Plan.Reasoning, "Cargo.lock set aside as Cargo.lock.upstream") {
		t.Errorf("the plan's notes do not say the Cargo.lock was set aside: %q", s.Plan.Reasoning)
	}
	if !strings.Contains(fallbackRecipe(s), "Cargo.lock was set aside") {
		t.Error("the recipe does not say the Cargo.lock was set aside")
	}
	// A re-plan that drops the phase gets it back; the crates are decided once.
	s.Plan.Phases = slices.DeleteFunc(s.Plan.Phases, func(p atesor.Phase) bool { return p.Name == cargotool.Phase })
	s.CompletedPhases = nil
	before := c
	if err := r.buildNode(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if s.Crates != before || !slices.Equal(phaseNames(s.Plan), []string{"setup", "crates", "build"}) {
		t.Errorf("after a re-plan: crates %p (was %p), phases %v", s.Crates, before, phaseNames(s.Plan))
	}
}

// TestCargoMissingDependencyEndsBeforeInstalling: a crate the distribution lacks ends
// the port with class dependency before anything is installed, and the reason names
// the crate, the requirement and the versions the distribution has.
func TestCargoMissingDependencyEndsBeforeInstalling(t *testing.T) {
	r, s, sb := cargoRun(t, atesor.CratesDistribution, map[string]string{
		"Cargo.toml":  "[package]\nname = \"m\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nitoa = \"2\"\n",
		"src/main.rs": "fn main() {}\n",
	})
	err := r.buildNode(context.Background(), s)
	var de *cargotool.DependencyError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v, want a *cargotool.DependencyError", err)
	}
	if s.FailureClass != atesor.FailureDependency {
		t.Errorf("class %q", s.FailureClass)
	}
	for _, w := range []string{"itoa", " 2 ", "1.0.14"} {
		if !strings.Contains(s.EscalationReason, w) {
			t.Errorf("reason %q lacks %q", s.EscalationReason, w)
		}
	}
	if lines := sb.Lines(); indexOf(lines, "apt-get") >= 0 || indexOf(lines, "cargo") >= 0 {
		t.Errorf("commands ran before the port ended: %q", lines)
	}
	if s.Crates != nil || s.BuildSucceeded {
		t.Errorf("crates %+v, built %t", s.Crates, s.BuildSucceeded)
	}
}

func TestCargoRegistryKeepsTheLock(t *testing.T) {
	r, s, sb := cargoRun(t, atesor.CratesRegistry, map[string]string{
		"Cargo.toml": wordcountManifest, "Cargo.lock": "version = 3\n", "src/main.rs": "fn main() {}\n",
	})
	if err := r.buildNode(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if s.Crates == nil || s.Crates.Source != atesor.CratesRegistry || s.Crates.LockfileSetAside != "" {
		t.Fatalf("crates %+v", s.Crates)
	}
	if got := phaseNames(s.Plan); !slices.Equal(got, []string{"setup", "build"}) {
		t.Errorf("phases %v", got)
	}
	if lines := sb.Lines(); indexOf(lines, "apt-get update && apt-get install -y 'librust") >= 0 || indexOf(lines, "test ! -e Cargo.lock") >= 0 {
		t.Errorf("registry mode set distribution crates up: %q", lines)
	}
}

func TestCargoAuto(t *testing.T) {
	files := map[string]string{"Cargo.toml": wordcountManifest, "src/main.rs": "fn main() {}\n"}
	t.Run("registry answers", func(t *testing.T) {
		r, s, sb := cargoRun(t, atesor.CratesAuto, files)
		sb.OnPrefix(cargotool.FetchLine, sandboxtest.OK("    Updating crates.io index\n"))
		if err := r.buildNode(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		if s.Crates == nil || s.Crates.Source != atesor.CratesRegistry || s.Crates.Mode != atesor.CratesAuto {
			t.Fatalf("crates %+v", s.Crates)
		}
		lines := sb.Lines()
		if f := indexOf(lines, cargotool.FetchLine); f < 0 || f < indexOf(lines, "apt-get update && apt-get install -y build-essential cargo") {
			t.Errorf("cargo fetch did not run after setup: %q", lines)
		}
		for _, c := range sb.Commands() {
			if c.Line == cargotool.FetchLine && (!c.Network || c.Timeout != cargotool.FetchTimeout) {
				t.Errorf("fetch network %t timeout %s", c.Network, c.Timeout)
			}
		}
	})
	t.Run("registry says no", func(t *testing.T) {
		r, s, sb := cargoRun(t, atesor.CratesAuto, files)
		sb.OnPrefix(cargotool.FetchLine, sandboxtest.Fail(101, "    Updating crates.io index\nerror: failed to get `itoa` as a dependency of package `wordcount v0.1.0`\n"))
		if err := r.buildNode(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		c := s.Crates
		if c == nil || c.Source != atesor.CratesDistribution || !strings.Contains(c.RegistryError, "failed to get `itoa`") {
			t.Fatalf("crates %+v", c)
		}
		if slices.Contains(s.ExecutedCommands, cargotool.FetchLine) {
			t.Error("the failed fetch is in the recipe block")
		}
	})
}

func TestCargoRustVersionTooNewIsSetup(t *testing.T) {
	r, s, sb := cargoRun(t, atesor.CratesDistribution, map[string]string{
		"Cargo.toml":  strings.Replace(wordcountManifest, "edition = \"2021\"\n", "edition = \"2021\"\nrust-version = \"1.88\"\n", 1),
		"src/main.rs": "fn main() {}\n",
	})
	err := r.buildNode(context.Background(), s)
	var re *cargotool.RustVersionError
	if !errors.As(err, &re) || s.FailureClass != atesor.FailureSetup {
		t.Fatalf("err %v, class %q", err, s.FailureClass)
	}
	if !strings.Contains(s.EscalationReason, "1.88") || !strings.Contains(s.EscalationReason, "1.85.1") {
		t.Errorf("reason %q", s.EscalationReason)
	}
	if indexOf(sb.Lines(), "cargo build") >= 0 {
		t.Error("the build ran")
	}
}

// TestCargoLibraryPlanBuildsTestBinaries: a library crate's default build also
// compiles its test binaries, its riscv64 evidence.
func TestCargoLibraryPlanBuildsTestBinaries(t *testing.T) {
	_, s, _ := cargoRun(t, atesor.CratesDistribution, map[string]string{
		"Cargo.toml": strings.Replace(wordcountManifest, "wordcount", "fmtlib", 1), "src/lib.rs": "pub fn f() {}\n",
	})
	build := s.Plan.Phases[len(s.Plan.Phases)-1]
	if build.Name != "build" || !slices.Equal(build.Commands, []string{"cargo build --release && cargo test --release --no-run"}) {
		t.Errorf("build phase %+v", build)
	}
}

// TestCargoVirtualWorkspaceInstallsEachProgram: cargo install refuses a virtual
// workspace, so the install step copies each member's built program into the stage.
func TestCargoVirtualWorkspaceInstallsEachProgram(t *testing.T) {
	member := func(name string) string {
		return "[package]\nname = \"" + name + "\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nitoa = \"1\"\n"
	}
	r, s, sb := cargoRun(t, atesor.CratesDistribution, map[string]string{
		"Cargo.toml":       "[workspace]\nmembers = [\"alpha\", \"beta\"]\nresolver = \"2\"\n",
		"alpha/Cargo.toml": member("alpha"), "alpha/src/main.rs": "fn main() {}\n",
		"beta/Cargo.toml": member("beta"), "beta/src/main.rs": "fn main() {}\n",
	})
	if err := r.buildNode(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if i := indexOf(sb.Lines(), "rm -rf '/workspace/pkg/.atesor-stage' && mkdir -p"); i < 0 ||
		!strings.Contains(sb.Lines()[i], "cp 'target/release/alpha' 'target/release/beta' ") {
		t.Errorf("no copy of both programs into the stage in %q", sb.Lines())
	}
	if s.Install == nil || s.Install.Method != "cargo" {
		t.Errorf("install %+v", s.Install)
	}
}

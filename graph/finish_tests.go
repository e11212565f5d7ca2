package graph

import (
	"context"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/gotool"
	"github.com/eclipse-atesor/atesor-go/install"
	"github.com/eclipse-atesor/atesor-go/pkgtest"
	"github.com/eclipse-atesor/atesor-go/recipe"
	"github.com/eclipse-atesor/atesor-go/repair"
)

// runTests runs the package's tests (the commands the scout stripped, else the build
// system's default, with the plan's Go build tags) through package pkgtest, as part of
// the finish node.
func (r *run) runTests(ctx context.Context, s *atesor.State) *atesor.TestResult {
	cmds := s.TestCommands
	var bs atesor.BuildSystem
	if s.Detection != nil {
		bs = s.Detection.BuildSystem
		if len(cmds) == 0 {
			cmds = pkgtest.DefaultCommands(bs)
		}
	}
	env := gotool.Env(s.GoToolchain)
	if cpath := repair.PlanIncludePath(s.Plan); cpath != "" {
		// A suite built again with its tests on compiles with the plan's header directories.
		env = append(env, "CPATH="+cpath)
	}
	return pkgtest.Run(ctx, r.sb, r.finishEmit, pkgtest.Suite{
		Commands: gotool.WithPlanTags(cmds, s.Plan), BuildSystem: bs, Dir: s.RepoDir,
		Env: env, Timeout: s.Request.WithDefaults().TestTimeout,
		// Test programs only CMake's file API names (no add_test) run on their own.
		Programs: install.UnregisteredTestPrograms(s.Install),
	})
}

// finishEmit emits an event of the finish node's work done by a package below graph.
func (r *run) finishEmit(e atesor.Event) {
	e.Node = NodeFinish
	r.emit(e)
}

// judgeTests decides what the package tests mean for a verified port ([pkgtest.Judge])
// and reports it.
func (r *run) judgeTests(s *atesor.State) {
	if line := pkgtest.Judge(s); line != "" {
		r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeFinish, Line: line})
	}
}

// withTestEvidence makes sure the Verification section of a recipe (the model's or the
// fallback) carries the test counts and failed names, inserting them at the end of the
// section when the writer left them out.
func withTestEvidence(md string, s *atesor.State) string {
	ev := pkgtest.Evidence(s.Tests, s.Status)
	if h := hollowEvidence(s); h != "" {
		ev = strings.TrimLeft(ev+"\n"+h, "\n")
	}
	return recipe.WithVerification(md, ev)
}

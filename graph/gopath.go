package graph

import (
	"context"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// goPathPlan is the plan for Go packages with no go.mod that import packages outside
// the tree when the distribution builds the source against golang-*-dev packages (its
// Build-Depends): Debian's GOPATH build (see knowledge.GoPathPlan). Without a
// distribution, or when it names no such package, there is none, and the run keeps its
// dependency ending. The reason says why not.
func (r *run) goPathPlan(ctx context.Context, s *atesor.State) (plan atesor.BuildPlan, tests []string, why string) {
	dist := r.distribution(s)
	if dist == nil {
		return atesor.BuildPlan{}, nil, "the source is no distribution's package"
	}
	d, err := dist(ctx)
	if err != nil {
		return atesor.BuildPlan{}, nil, "the distribution's packaging could not be read: " + err.Error()
	}
	if d == nil {
		return atesor.BuildPlan{}, nil, "the distribution does not package the source"
	}
	plan, tests, err = knowledge.GoPathPlan(s.Detection, s.Platform, knowledge.GoDevPackages(d.BuildDepends))
	if err != nil {
		return atesor.BuildPlan{}, nil, d.Package + " " + d.Version + ": " + err.Error()
	}
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeHeuristicPlan,
		Line: "Go packages with no go.mod import packages of the Build-Depends of " + d.Package + " " + d.Version + ": GOPATH build"})
	return plan, tests, ""
}

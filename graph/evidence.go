package graph

import (
	"context"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/buildlog"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// failureEvidence extracts the error that failed a build command (see buildlog). When a
// parallel build's output holds no strong diagnostic it reruns the command once with one
// job, as a porter does, to get a clean error; that rerun's output is kept apart (in the
// build log, marked) and it is not an attempt.
func (r *run) failureEvidence(ctx context.Context, s *atesor.State, phase, line string, res atesor.CommandResult) buildlog.Evidence {
	ev := buildlog.Extract(res.Output)
	if ev.Strong() || !buildlog.Parallel(line, res.Output) {
		return ev
	}
	serial, ok := buildlog.Serial(line)
	if !ok || validate.DenyRules(serial) != nil {
		return ev
	}
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeBuild, Phase: phase,
		Line: "no clean error in the parallel build's output; rerunning it serially for evidence: " + serial})
	sres, fault, err := sandbox.ExecRetryingFaults(ctx, r.sb, atesor.Command{Line: serial, Dir: s.RepoDir, Network: true})
	if err != nil {
		r.log.Warn("serial rerun for evidence", "line", serial, "err", err)
		return ev
	}
	r.appendLog(serial+"    # serial rerun for evidence, not an attempt", sres)
	if fault == sandbox.FaultInfra {
		return ev
	}
	return buildlog.Rerun(ev, line, serial, sres.Output, sres.OK())
}

// extractError is the extracted error of a failed command's output (see buildlog).
func extractError(output string) string {
	return buildlog.Extract(output).Text
}

package fixapply

import (
	"context"
	"fmt"
	"strings"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// The limits of the fixer's investigation round: how many commands, how much of each
// output the fixer sees, and how long each may run.
const (
	MaxInvestigations    = 4
	investigationOutput  = 1500
	investigationTimeout = time.Minute
)

// Execer runs a command in the sandbox.
type Execer interface {
	Exec(ctx context.Context, cmd atesor.Command) (atesor.CommandResult, error)
}

var _ Execer = atesor.Sandbox(nil)

// Investigate runs the fixer's read-only commands in dir, without network, at most
// [MaxInvestigations] of them, each validated again (validate.InvestigationCommand) and
// given a minute; it returns the transcript the fixer reads: each command with the
// first 1500 characters of its output and its exit, or why it was refused or did not
// run. emit, when not nil, gets an [atesor.EventCommand] (Phase "investigate") for each
// command run.
func Investigate(ctx context.Context, sb Execer, dir string, cmds []string, emit func(atesor.Event)) string {
	var b strings.Builder
	for i, c := range cmds {
		if i == MaxInvestigations {
			break
		}
		if err := validate.InvestigationCommand(c); err != nil {
			fmt.Fprintf(&b, "$ %s\nrefused: %v\n\n", c, err)
			continue
		}
		if emit != nil {
			emit(atesor.Event{Kind: atesor.EventCommand, Phase: "investigate", Line: c})
		}
		res, err := sb.Exec(ctx, atesor.Command{Line: c, Dir: dir, Timeout: investigationTimeout})
		if err != nil {
			fmt.Fprintf(&b, "$ %s\nfailed to run: %v\n\n", c, err)
			continue
		}
		fmt.Fprintf(&b, "$ %s\n%s\n[exit %d]\n\n", c, excerpt.Head(res.Output, investigationOutput), res.ExitCode)
	}
	return b.String()
}

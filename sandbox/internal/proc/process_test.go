package proc

import (
	"context"
	"errors"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// TestRunStartFailures: a process that cannot be started, and one whose setup after the
// start fails, are start failures (the command never ran); the set-up failure kills the
// process at once.
func TestRunStartFailures(t *testing.T) {
	_, err := Run(context.Background(), Process{Argv: []string{"/nonexistent/program"}, Line: "x"})
	var se *StartError
	if !errors.As(err, &se) {
		t.Errorf("a program that does not exist: %v, want a start failure", err)
	}
	setup := errors.New("the cgroup is gone")
	res, err := Run(context.Background(), Process{Argv: []string{"sleep", "30"}, Line: "sleep 30",
		Started: func(context.Context, int) (func(*atesor.CommandResult), error) { return nil, setup }})
	if !errors.As(err, &se) || !errors.Is(err, setup) {
		t.Errorf("a failed setup: %v, want a start failure wrapping %v", err, setup)
	}
	if res.Signal != "SIGKILL" {
		t.Errorf("the process was not killed: %+v", res)
	}
	// A command that ran and failed is no start failure.
	res, err = Run(context.Background(), Process{Argv: []string{"sh", "-c", "exit 3"}, Line: "exit 3"})
	if err != nil || res.ExitCode != 3 {
		t.Errorf("exit 3: %v %+v", err, res)
	}
}

package optimize

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
)

// probeSandbox answers the plugin probe like an emulator with or without plugin
// support.
type probeSandbox struct {
	fakeSandbox
	res   atesor.CommandResult
	err   error
	execs []atesor.Command
}

func (p *probeSandbox) Exec(_ context.Context, c atesor.Command) (atesor.CommandResult, error) {
	p.execs = append(p.execs, c)
	return p.res, p.err
}

func TestInstructionCounts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		emulated bool
		res      atesor.CommandResult
		err      error
		want     string
	}{
		// qemu-user 7.2 from Debian: QEMU_PLUGIN is not an option it knows; it runs the
		// program as if the variable were not set.
		{"no plugin support", true, atesor.CommandResult{}, nil, insnNoPlugins},
		{"plugin support", true, atesor.CommandResult{ExitCode: 1, Output: "Could not load plugin /nonexistent/atesor-plugin-probe.so: cannot open shared object file"}, nil, insnNotImplemented},
		{"probe broke", true, atesor.CommandResult{}, errors.New("sandbox closed"), "unavailable: probing the emulator for TCG plugin support failed: sandbox closed"},
		{"no answer", true, atesor.CommandResult{Signal: "SIGSEGV", Output: "Segmentation fault"}, nil, "unavailable: probing the emulator for TCG plugin support gave no answer (exit 0 (SIGSEGV): Segmentation fault)"},
		{"hardware", false, atesor.CommandResult{}, nil, insnHardware},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb := &probeSandbox{res: tc.res, err: tc.err}
			got := (&Optimizer{Sandbox: sb}).instructionCounts(context.Background(), tc.emulated)
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if !tc.emulated {
				if len(sb.execs) != 0 {
					t.Errorf("probed on hardware: %v", sb.execs)
				}
				return
			}
			if len(sb.execs) != 1 || !slices.Contains(sb.execs[0].Env, pluginProbe) {
				t.Errorf("want one probe with %s, got %+v", pluginProbe, sb.execs)
			}
			if !strings.HasPrefix(got, "unavailable") {
				t.Errorf("an emulated run never counts instructions here, got %q", got)
			}
		})
	}
}

package optimize

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
)

// pluginProbe asks the emulator to load a TCG plugin that does not exist. qemu-user reads
// QEMU_PLUGIN (the -plugin option) only when it was built with plugin support: an
// emulator without it ignores the variable and the probe command succeeds; one with it
// fails to load the plugin and the command fails.
const pluginProbe = "QEMU_PLUGIN=file=/nonexistent/atesor-plugin-probe.so"

// The statements of [atesor.Performance.InstructionCounts].
const (
	insnNoPlugins = "unavailable: the emulator (qemu-user) was built without TCG plugin support, " +
		"so it cannot count guest instructions; the table has wall times only"
	insnNotImplemented = "unavailable: the emulator supports TCG plugins, but counting guest " +
		"instructions with an instruction-count plugin is not implemented in performance mode"
	insnHardware = "not counted: on riscv64 hardware performance mode times the runs; " +
		"it does not read the CPU's instruction counters"
)

// instructionCounts probes once whether the sandbox's emulator can count guest
// instructions and returns the statement the Performance section and the report carry.
// Counting itself is not implemented: a plugin-capable emulator is reported as such.
func (o *Optimizer) instructionCounts(ctx context.Context, emulated bool) string {
	if !emulated {
		return insnHardware
	}
	r, err := o.Sandbox.Exec(ctx, atesor.Command{Line: "/bin/true", Dir: "/", Env: []string{pluginProbe}, Timeout: time.Minute})
	switch {
	case err != nil:
		return "unavailable: probing the emulator for TCG plugin support failed: " + err.Error()
	case r.OK():
		return insnNoPlugins
	case strings.Contains(strings.ToLower(r.Output+r.Stderr), "plugin"):
		return insnNotImplemented
	}
	return fmt.Sprintf("unavailable: probing the emulator for TCG plugin support gave no answer (exit %d%s: %s)",
		r.ExitCode, sig(r.Signal), lastLine(r.Output+r.Stderr))
}

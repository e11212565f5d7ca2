package atesor

import (
	"time"
)

// EmulatedCaveat labels figures measured under an emulator: they compare variants of
// one build on one machine, they are not what riscv64 hardware does.
const EmulatedCaveat = "emulated — not a hardware measurement"

// Workload sources of performance mode, in the order they are tried.
const (
	WorkloadProgram   = "agent-program"  // the optimizer agent's run of a built program
	WorkloadHarness   = "agent-harness"  // a harness the optimizer agent wrote
	WorkloadBenchmark = "own-benchmark"  // the package's own benchmark
	WorkloadTests     = "own-test-suite" // the package's tests, as the last resort
)

// Performance is the result of performance mode: the workload, every variant measured
// (the baseline first) and the winner. Figures measured under emulation are not
// hardware figures; Emulated and Caveat say so.
type Performance struct {
	// Source is where the workload came from (the Workload* constants).
	Source string `json:"source"`
	// Workload is the command line that was timed, run in the package directory.
	Workload string `json:"workload"`
	// Check says how a variant's output was compared with the baseline's.
	Check string `json:"check"`
	// Harness is the harness the optimizer agent wrote, for an agent-harness workload.
	Harness *Harness `json:"harness,omitempty"`
	// Runs is how many times each variant's workload was timed.
	Runs int `json:"runs"`
	// Emulated is true when the figures were measured under an emulator.
	Emulated bool `json:"emulated"`
	// Caveat is the label every figure carries ([EmulatedCaveat] under emulation).
	Caveat string `json:"caveat,omitempty"`
	// InstructionCounts says whether guest instructions executed were counted, and
	// if not, why (counting needs a qemu-user with TCG plugins and a program workload).
	InstructionCounts string    `json:"instruction_counts,omitempty"`
	Measured          time.Time `json:"measured"`
	// Variants are the baseline (first) and the candidates, in the order tried.
	Variants []Variant `json:"variants"`
	// Winner names the fastest accepted variant ("baseline" when no candidate beat it).
	Winner string `json:"winner"`
	// Replay is the replayable command block of the winner: its environment and the
	// build commands.
	Replay []string `json:"replay,omitempty"`
	// Notes record what was tried and skipped (workload sources that gave nothing, ...).
	Notes []string `json:"notes,omitempty"`
}

// Variant is one build of the package measured in performance mode.
type Variant struct {
	Name string `json:"name"`
	// Env holds the build's extra environment (CFLAGS=..., LDFLAGS=...); empty for the
	// baseline.
	Env []string `json:"env,omitempty"`
	// ConfigureArgs are options added to the configure, cmake or meson command (the
	// package's own SIMD/RVV switches).
	ConfigureArgs []string `json:"configure_args,omitempty"`
	// RunEnv is the environment of the workload runs (QEMU_CPU for the vector extension).
	RunEnv []string `json:"run_env,omitempty"`
	// NeedsVector is true when the build needs a CPU with the vector extension.
	NeedsVector bool `json:"needs_vector,omitempty"`
	Built       bool `json:"built"`
	// Accepted is true when the build succeeded, the workload's output equals the
	// baseline's and the package tests pass as they did for the baseline.
	Accepted bool `json:"accepted"`
	// Rejected says why a candidate was not accepted.
	Rejected string `json:"rejected,omitempty"`
	// Output is the checked output (the ATESOR-CHECK line, or a digest).
	Output string `json:"output,omitempty"`
	// Figures are the median of the speeds and times the package's own benchmark
	// reports (the fields of its report that vary between runs), for an own-benchmark
	// workload: a benchmark that runs for a fixed time shows speed only there.
	Figures []string `json:"benchmark_figures,omitempty"`
	// Instructions is the guest instructions the workload's program executed in one
	// extra, untimed run under the counting emulator (0: not counted; see
	// Performance.InstructionCounts and the notes).
	Instructions uint64 `json:"instructions,omitempty"`
	// Tests summarises the package tests run on this variant.
	Tests string `json:"tests,omitempty"`
	// Median, Min, Max and Durations are written to JSON in seconds.
	Median    time.Duration   `json:"-"`
	Min       time.Duration   `json:"-"`
	Max       time.Duration   `json:"-"`
	Durations []time.Duration `json:"-"`
}

// WinningVariant returns the winner's variant, or nil.
func (p *Performance) WinningVariant() *Variant {
	if p == nil {
		return nil
	}
	for i := range p.Variants {
		if p.Variants[i].Name == p.Winner {
			return &p.Variants[i]
		}
	}
	return nil
}

// Package optimize is performance mode: after a verified port it measures the build on a
// workload and tries optimisation candidates.
//
// Workload sources are tried in order until one gives a workload that runs on the
// verified build:
//
//  1. the optimizer agent's program run (planner role): one built program with plain
//     arguments, checked by validate.WorkloadCommand;
//  2. the optimizer agent's harness (builder role, 240 s wall timeout): a C/C++ file
//     calling an exported function of the library, a Go BenchmarkAtesor or a Rust
//     example, checked by validate.Harness, then built and run in the sandbox;
//  3. the package's own benchmarks: a built program's benchmark flag found in its
//     --help, a bench make target, go test -bench, cargo bench;
//  4. the package's test suite, when its tests passed.
//
// The agent's calls are bounded like every validated call: 2 critique retries, rotate on
// timeout, the other role's pool asked once when no model of the role answers in time,
// audit label "optimizer" and phases optimize-workload-program / optimize-harness-<lang>.
//
// Candidates ([Candidates]) are rebuilds of the package in their own directory: -O3,
// -O3 -march=rv64gcv (built and run with [VectorCPU] under emulation), -O3 with LTO,
// and the package's own SIMD/RVV switches ([FindSwitches]). A candidate is accepted only
// if it builds, its workload output checks equal to the baseline's ([Checker]) and the
// package tests pass as they did for the baseline. Each variant's workload runs at
// least 5 times; the report gives median, min and max. Under an emulator the figures
// are labelled atesor.EmulatedCaveat: they compare builds, they are not hardware figures.
// A benchmark report is compared as a terminal shows it (lines redrawn with carriage
// returns count as their final picture); the fields that vary between the baseline's
// runs are masked in the check and reported as the benchmark's own figures.
//
// Under emulation, the guest instructions each accepted variant's workload executes are
// counted in one extra, untimed run ([Optimizer.CounterTools], [PrepareCounter]): the
// host's dynamically linked qemu-riscv64 (Debian's qemu-user, built with TCG plugins;
// the static emulator binfmt runs is not), its libraries and x86-64 loader, and a
// counting plugin compiled from embedded C source with the host's gcc, are copied into
// the sandbox and run the workload's program. Only that program is counted: the
// processes it starts run under binfmt's emulator, so a workload that is a build tool's
// command (make bench, go test, cargo bench) is not counted. Whatever prevents a count,
// the report says why instead of giving a number.
//
// [TargetOf] reads what performance mode needs from a verified port's run state, and
// [EnsureBuilt] puts the verified build back first when a resumed run's fresh sandbox
// lacks it; the pipeline's node only wires the sandbox, the clock and the events in.
package optimize

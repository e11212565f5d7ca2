package optimize

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
)

// CounterInSandbox is where [Optimizer.Run] copies the instruction counter's tools
// (see [PrepareCounter]) inside the sandbox.
const CounterInSandbox = "/opt/atesor/insncount"

// insnLabel is [atesor.Performance.InstructionCounts] when the variants were counted.
const insnLabel = "guest instructions executed, counted under emulation (qemu-user with Atesor's " +
	"TCG counting plugin, one extra run per variant, not timed): the workload's own program " +
	"only, not the processes it starts; emulated — not a hardware measurement"

// insnHardware is the statement on riscv64 hardware.
const insnHardware = "not counted: on riscv64 hardware performance mode times the runs; " +
	"it does not read the CPU's instruction counters"

// insnLine is the plugin's report at exit.
var insnLine = regexp.MustCompile(`(?m)^atesor-insns: ([0-9]+)\s*$`)

// ParseInsnCount reads the instruction count the counting plugin printed (its last
// "atesor-insns: N" line). ok is false when there is none.
func ParseInsnCount(out string) (n uint64, ok bool) {
	m := insnLine.FindAllStringSubmatch(out, -1)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseUint(m[len(m)-1][1], 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// countable says why a workload command cannot be counted, or "": the counted run
// starts the command's program under the counting emulator, so the command must be one
// program (by its path) with plain arguments. A build tool's command (make bench, go
// test, cargo bench) does its work in child processes, which are not counted.
func countable(line string) string {
	f, err := shellwords.Parse(line)
	if err != nil || len(f.Stmts) != 1 {
		return "the workload is not one simple command"
	}
	st := f.Stmts[0]
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(ce.Assigns) > 0 || len(ce.Args) == 0 {
		return "the workload is not one program with plain arguments"
	}
	for _, w := range ce.Args {
		if w.Lit() == "" && !quotedLiteral(w) {
			return "the workload's arguments are not plain words"
		}
	}
	if !strings.Contains(ce.Args[0].Lit(), "/") {
		return "the workload runs " + ce.Args[0].Lit() + ", a tool found on PATH whose work runs in child processes, not one built program"
	}
	return ""
}

// quotedLiteral reports whether w is a single-quoted word or a double-quoted one with
// no expansions.
func quotedLiteral(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch q := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, qp := range q.Parts {
				if _, ok := qp.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// counter is the counting emulator inside the sandbox, or why there is none.
type counter struct {
	prefix string // the command that starts a program under the counting emulator
	why    string
}

// setupCounter makes the counting tools available in the sandbox: it prepares them on
// the host (o.CounterTools) and copies them to [CounterInSandbox].
func (o *Optimizer) setupCounter(ctx context.Context, wl Workload) counter {
	if why := countable(wl.Command); why != "" {
		return counter{why: why}
	}
	if o.CounterTools == nil {
		return counter{why: "no instruction counter is set up for this sandbox (counting runs host tools inside the riscv64 root-filesystem sandbox under qemu-user)"}
	}
	dir, err := o.CounterTools(ctx)
	if err != nil {
		return counter{why: err.Error()}
	}
	if err := o.Sandbox.CopyIn(ctx, dir, CounterInSandbox); err != nil {
		return counter{why: "copying the counter into the sandbox: " + err.Error()}
	}
	return counter{prefix: CounterCommand(CounterInSandbox)}
}

// CounterCommand is the command prefix that runs a riscv64 program under the counting
// emulator whose tools (see [PrepareCounter]) are in dir: the host's x86-64 loader with
// the tools' own libraries starts qemu-user with the plugin, logging to $ATESOR_INSN_LOG.
func CounterCommand(dir string) string {
	return shQuote(dir+"/"+counterLoader) + " --inhibit-cache --library-path " + shQuote(dir+"/lib") + " " +
		shQuote(dir+"/"+counterQemu) + " -plugin " + shQuote(dir+"/"+counterPlugin) + ` -d plugin -D "$ATESOR_INSN_LOG"`
}

// count runs the workload once under the counting emulator in dir and returns the
// guest instructions its program executed, or why there is no count.
func (o *Optimizer) count(ctx context.Context, c counter, wl Workload, dir string, env []string) (uint64, string) {
	if c.prefix == "" {
		return 0, c.why
	}
	line := `ATESOR_INSN_LOG=$(mktemp) && { ` + c.prefix + " " + wl.Command + ` >/dev/null 2>"$ATESOR_INSN_LOG.err"; rc=$?; ` +
		`cat "$ATESOR_INSN_LOG"; tail -n 3 "$ATESOR_INSN_LOG.err" >&2; rm -f "$ATESOR_INSN_LOG" "$ATESOR_INSN_LOG.err"; exit $rc; }`
	r, err := o.Sandbox.Exec(ctx, atesor.Command{Line: line, Dir: dir, Env: env, Timeout: 3 * o.MaxRunTime})
	switch {
	case err != nil:
		return 0, err.Error()
	case r.TimedOut:
		return 0, fmt.Sprintf("the counted run took longer than %s", 3*o.MaxRunTime)
	case !r.OK():
		return 0, fmt.Sprintf("the counted run exited %d%s: %s", r.ExitCode, sig(r.Signal), lastLine(r.Stderr+"\n"+r.Output))
	}
	n, ok := ParseInsnCount(r.Stdout)
	if !ok {
		return 0, "the counting plugin reported no count: " + lastLine(r.Output)
	}
	return n, ""
}

// countVariant adds the instruction count of the variant's workload to v, or a note on
// why it has none.
func (o *Optimizer) countVariant(ctx context.Context, perf *atesor.Performance, c counter, wl Workload, v *atesor.Variant, dir string, env []string) {
	if !perf.Emulated || c.prefix == "" {
		return
	}
	o.progress("counting the instructions of variant " + v.Name)
	start := time.Now()
	n, why := o.count(ctx, c, wl, dir, env)
	if why != "" {
		if ctx.Err() == nil {
			perf.Notes = append(perf.Notes, fmt.Sprintf("variant %s: instructions not counted: %s", v.Name, why))
		}
		return
	}
	v.Instructions = n
	o.Logger.Info("optimize: instructions counted", "variant", v.Name, "instructions", n, "took", time.Since(start))
}

// insnStatement is [atesor.Performance.InstructionCounts] after the runs.
func insnStatement(perf *atesor.Performance, c counter) string {
	if !perf.Emulated {
		return insnHardware
	}
	if c.prefix == "" {
		return "unavailable: " + c.why
	}
	for _, v := range perf.Variants {
		if v.Instructions > 0 {
			return insnLabel
		}
	}
	return "unavailable: no variant's counted run gave a count (see the notes)"
}

package optimize

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"strings"
	"text/template"

	"github.com/cloudwego/eino/schema"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/llm"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// AuditLabel is the optimizer's label in the audit log.
const AuditLabel = "optimizer"

// The audit phases of the advisor's calls.
const (
	PhaseProgram = "optimize-workload-program"
	// PhaseHarnessPrefix is followed by the harness language: optimize-harness-c.
	PhaseHarnessPrefix = "optimize-harness-"
)

// Advisor is the optimizer's model client: it asks a model for a workload. A program run uses the
// planner role (the builder pool is asked once when no planner model answers in time);
// a harness uses the builder role with the 240 s harness wall timeout (the planner pool
// is the fallback). Both use 2 critique retries and rotate on timeout, as the reference
// system does. Every call's usage is returned for the run's total.
type Advisor struct {
	Client *llm.Client
	// Node is the pipeline node named in the audit metadata (default "optimize").
	Node string
	// Validators are further checks of a harness (an embedder's), after validate.Harness.
	Validators []atesor.Validator[atesor.Harness]
}

// Subject is what the advisor is told about the package.
type Subject struct {
	Package  string
	Purpose  string
	Language string
	// Programs are the built programs (sandbox paths); Libraries the built libraries.
	Programs  []string
	Libraries []string
	// Exports are functions the library exports; a C/C++ harness must call one.
	Exports []string
	// Headers are the package's public headers (repository paths), for a C harness.
	Headers []string
	// Crate is the Rust crate name, for a Rust example.
	Crate string
	// Module is the Go module path, for a Go benchmark.
	Module string
}

// HarnessLanguage is the harness language for a package language: c, cpp, go or rust;
// "" when no harness can be written.
func HarnessLanguage(lang string) string {
	switch strings.ToLower(lang) {
	case "c":
		return "c"
	case "c++", "cpp", "cxx":
		return "cpp"
	case "go":
		return "go"
	case "rust":
		return "rust"
	}
	return ""
}

// ProgramRun asks for a run of one of the built programs. It returns nil when the
// package built no program or no model gave a valid answer.
func (a *Advisor) ProgramRun(ctx context.Context, sub Subject) (*atesor.ProgramRun, atesor.Usage, error) {
	if a == nil || a.Client == nil || a.Client.Provider == nil || len(sub.Programs) == 0 {
		return nil, atesor.Usage{}, nil
	}
	prompt, err := renderPrompt(programPrompt, sub, validate.SchemaText[atesor.ProgramRun]())
	if err != nil {
		return nil, atesor.Usage{}, err
	}
	out := llm.Call(ctx, a.Client, llm.Request[atesor.ProgramRun]{
		Role: atesor.RolePlanner, FallbackRole: atesor.RoleBuilder, RotateOnTimeout: true,
		Messages: []*schema.Message{schema.UserMessage(prompt)},
		Decode:   validate.Decode[atesor.ProgramRun],
		Validate: func(p *atesor.ProgramRun) error { return validate.WorkloadCommand(p.Command, sub.Programs) },
		Label:    AuditLabel, Node: a.node(), Phase: PhaseProgram,
	})
	return out.Data, out.Usage, outcomeErr(out.LastErr, out.Data != nil)
}

// Harness asks for a harness in the package's language. It returns nil when no
// harness fits the package or no model gave a valid answer.
func (a *Advisor) Harness(ctx context.Context, sub Subject) (*atesor.Harness, atesor.Usage, error) {
	lang := HarnessLanguage(sub.Language)
	if a == nil || a.Client == nil || a.Client.Provider == nil || lang == "" {
		return nil, atesor.Usage{}, nil
	}
	if (lang == "c" || lang == "cpp") && len(sub.Libraries) == 0 {
		return nil, atesor.Usage{}, nil
	}
	if lang == "rust" && sub.Crate == "" {
		return nil, atesor.Usage{}, nil
	}
	tmpl := map[string]string{"c": cHarnessPrompt, "cpp": cHarnessPrompt, "go": goHarnessPrompt, "rust": rustHarnessPrompt}[lang]
	prompt, err := renderPrompt(tmpl, sub, validate.SchemaText[atesor.Harness]())
	if err != nil {
		return nil, atesor.Usage{}, err
	}
	var opts []validate.HarnessOption
	if len(sub.Exports) > 0 {
		opts = append(opts, validate.WithExports(sub.Exports))
	}
	if sub.Crate != "" {
		opts = append(opts, validate.WithCrate(sub.Crate))
	}
	out := llm.Call(ctx, a.Client, llm.Request[atesor.Harness]{
		Role: atesor.RoleBuilder, FallbackRole: atesor.RolePlanner, RotateOnTimeout: true,
		WallTimeout: llm.HarnessWallTimeout,
		Messages:    []*schema.Message{schema.UserMessage(prompt)},
		Decode:      validate.Decode[atesor.Harness],
		Validate: func(h *atesor.Harness) error {
			if got := HarnessLanguage(h.Language); got != lang {
				return fmt.Errorf("the harness language is %q; write it in %s, the package's language", h.Language, lang)
			}
			return validate.Harness(h, opts...)
		},
		Validators: a.Validators,
		Label:      AuditLabel, Node: a.node(), Phase: PhaseHarnessPrefix + lang,
	})
	return out.Data, out.Usage, outcomeErr(out.LastErr, out.Data != nil)
}

func (a *Advisor) node() string {
	if a.Node == "" {
		return "optimize"
	}
	return a.Node
}

// outcomeErr turns a failed call into an error for the caller's notes (nil on success).
func outcomeErr(err error, ok bool) error {
	if ok {
		return nil
	}
	if err == nil {
		return fmt.Errorf("no valid answer")
	}
	return err
}

func renderPrompt(text string, sub Subject, shape string) (string, error) {
	t, err := template.New("prompt").Funcs(template.FuncMap{"base": path.Base, "join": strings.Join, "first": first}).Parse(text)
	if err != nil {
		return "", fmt.Errorf("optimize: prompt template: %w", err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, map[string]any{"S": sub, "Shape": shape, "Marker": validate.CheckMarker, "Max": validate.MaxHarnessBytes}); err != nil {
		return "", fmt.Errorf("optimize: prompt: %w", err)
	}
	return b.String(), nil
}

func first(n int, list []string) []string {
	if len(list) > n {
		return list[:n]
	}
	return list
}

const programPrompt = `You choose a workload to measure the speed of the riscv64 build of the package {{.S.Package}}.
Purpose: {{.S.Purpose}}
The built programs (sandbox paths): {{join .S.Programs ", "}}

Choose ONE run of one built program that exercises its hot path for a few seconds at most,
deterministically: the same output on every run, no network, no files that do not exist
in the package directory (the program's own built-in benchmark or self-test mode is best).
The command runs in the package directory. Give the program by its path, then plain
arguments only: no shell syntax, no pipes, no redirections, no variables, no globs.

Answer with JSON only, in this shape:
{{.Shape}}
`

const cHarnessPrompt = `You write a benchmark harness for the library of the package {{.S.Package}}, built for riscv64.
Purpose: {{.S.Purpose}}
Built libraries (sandbox paths): {{join .S.Libraries ", "}}
{{if .S.Headers}}Public headers (repository paths; the package root and include/ are on the include path): {{join (first 20 .S.Headers) ", "}}
{{end}}{{if .S.Exports}}Functions the library exports (call at least one): {{join (first 60 .S.Exports) ", "}}
{{end}}
Write ONE complete {{if eq .S.Language "c++"}}C++{{else}}C{{end}} source file with a main function that:
- calls the library's exported functions on fixed input built by a simple deterministic loop
  (no rand, no time, no files, no network, no processes), enough work for about a second;
- checks the results (for example a compress/uncompress round trip) and exits non-zero on a mismatch;
- prints exactly one line "{{.Marker}} <checksum>" where the checksum is computed from the results,
  so two correct builds print the same line.
The file is at most {{.Max}} bytes; list the library functions it calls in "functions".
Name it atesor_bench.c (atesor_bench.cpp for C++).

Answer with JSON only, in this shape:
{{.Shape}}
`

const goHarnessPrompt = `You write a Go benchmark for the module {{.S.Module}} ({{.S.Package}}), built for riscv64.
Purpose: {{.S.Purpose}}

Write ONE complete _test.go file in the package under test (package clause of that directory)
that defines func BenchmarkAtesor(b *testing.B): it loops b.N times over the package's hot
functions on fixed input (no time, no rand, no network, no processes, no unsafe) and prints one
line "{{.Marker}} <checksum>" with fmt, computed from the results. At most {{.Max}} bytes.
Name it atesor_bench_test.go.

Answer with JSON only, in this shape:
{{.Shape}}
`

const rustHarnessPrompt = `You write a Rust example that benchmarks the crate {{.S.Crate}} ({{.S.Package}}), built for riscv64.
Purpose: {{.S.Purpose}}

Write ONE complete example file with fn main() that uses {{.S.Crate}}'s public API on fixed input
(no time, no rand, no network, no processes), enough work for about a second, checks the
results and prints one line "{{.Marker}} <checksum>" computed from them. At most {{.Max}} bytes.
Name it examples/atesor_bench.rs.

Answer with JSON only, in this shape:
{{.Shape}}
`

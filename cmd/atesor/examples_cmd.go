package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/memory"
	"github.com/eclipse-atesor/atesor-go/validate"
)

var examplesUsage = usage{
	synopsis: "atesor examples list|lint|merge [flags] [arguments]",
	description: "Work with the few-shot example files (<home>/data/examples/ by default, where\n" +
		"<home> is $ATESOR_HOME, else $XDG_DATA_HOME/atesor-ai, else ~/.local/share/atesor-ai).",
	subcommands: [][2]string{
		{"list", "list the examples of each agent"},
		{"lint", "check example files (all files of the examples directory by default)"},
		{"merge", "merge example files or recipe caches: merge DST SRC..."},
	},
}

func runExamples(ctx context.Context, a *app, args []string) int {
	return subcommand(ctx, a, "examples", examplesUsage, args, map[string]func(context.Context, *app, []string) int{
		"list":  examplesList,
		"lint":  examplesLint,
		"merge": examplesMerge,
	})
}

// examplesDir returns the examples directory: dir when given, else the state home's
// (opened once through memory.Open so that the bundled files are installed).
func examplesDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	home, err := memory.Home()
	if err != nil {
		return "", err
	}
	d := memory.ExamplesDir(home)
	if _, err := memory.Open(d); err != nil {
		return "", err
	}
	return d, nil
}

func examplesList(_ context.Context, a *app, args []string) int {
	fs := flagSet("examples list")
	dir := fs.String("dir", "", "examples directory (default: the state home's)")
	agent := fs.String("agent", "", "only this agent: scout, fixer or builder")
	asJSON := fs.Bool("json", false, "print the examples as JSON")
	u := usage{synopsis: "atesor examples list [--dir DIR] [--agent AGENT] [--json]",
		description: "List the examples of each agent: id, source, sandbox, build system and name."}
	pos, code, done := parseOrExit(a, fs, u, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return usageError(a, "examples list", "unexpected argument %q", pos[0])
	}
	d, err := examplesDir(*dir)
	if err != nil {
		fmt.Fprintf(a.stderr, "atesor examples list: %v\n", err)
		return exitUsage
	}
	agents := atesor.Agents()
	if *agent != "" {
		if _, err := memory.FileName(atesor.Agent(*agent)); err != nil {
			return usageError(a, "examples list", "%v", err)
		}
		agents = []atesor.Agent{atesor.Agent(*agent)}
	}
	all := map[atesor.Agent][]atesor.Example{}
	status := exitOK
	for _, ag := range agents {
		name, _ := memory.FileName(ag)
		data, err := os.ReadFile(filepath.Join(d, name))
		if os.IsNotExist(err) {
			continue
		}
		if err == nil {
			var f atesor.ExampleFile
			f, err = memory.ParseExampleFile(data)
			all[ag] = f.Examples
		}
		if err != nil {
			fmt.Fprintf(a.stderr, "atesor examples list: %s: %v\n", filepath.Join(d, name), err)
			status = exitFailed
		}
	}
	if *asJSON {
		out := map[string][]atesor.Example{}
		for ag, exs := range all {
			out[string(ag)] = exs
		}
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(a.stderr, "atesor examples list: %v\n", err)
			return exitFailed
		}
		return status
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tID\tSOURCE\tSANDBOX\tBUILD SYSTEM\tNAME")
	for _, ag := range agents {
		for _, ex := range all[ag] {
			src := ex.Source
			if ex.IsManual() {
				src = atesor.SourceManual
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", ag, ex.ID, src, ex.SandboxOrDefault(), ex.BuildSystem, ex.Name)
		}
	}
	tw.Flush()
	return status
}

func examplesLint(_ context.Context, a *app, args []string) int {
	fs := flagSet("examples lint")
	dir := fs.String("dir", "", "examples directory to lint when no file is given (default: the state home's)")
	asJSON := fs.Bool("json", false, "print the problems as JSON")
	u := usage{synopsis: "atesor examples lint [--dir DIR] [--json] [FILE...]",
		description: "Check example files: no JSON object with a key twice, the v2.0 keys (version,\n" +
			"description, general_guidelines, examples), unique ids, no manual example with an\n" +
			"id of the auto form <agent>-auto-NNN, a sandbox (alpine-riscv64 or debian-riscv64)\n" +
			"whose package manager the commands use, fixer command actions that the fix command\n" +
			"validator accepts, and error patterns that compile. Exit status 1 when a problem\n" +
			"is found."}
	files, code, done := parseOrExit(a, fs, u, args)
	if done {
		return code
	}
	if len(files) == 0 {
		d, err := examplesDir(*dir)
		if err != nil {
			fmt.Fprintf(a.stderr, "atesor examples lint: %v\n", err)
			return exitUsage
		}
		files, err = filepath.Glob(filepath.Join(d, "*_examples.json"))
		if err != nil {
			fmt.Fprintf(a.stderr, "atesor examples lint: %v\n", err)
			return exitUsage
		}
		sort.Strings(files)
		if len(files) == 0 {
			fmt.Fprintf(a.stderr, "atesor examples lint: no *_examples.json files in %s\n", d)
			return exitUsage
		}
	}
	problems := []lintProblem{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(a.stderr, "atesor examples lint: %v\n", err)
			return exitUsage
		}
		problems = append(problems, lintExampleFile(f, data, validate.FixCommand)...)
	}
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(problems)
	} else {
		for _, p := range problems {
			fmt.Fprintln(a.stdout, p)
		}
		fmt.Fprintf(a.stdout, "%d problem(s) in %d file(s)\n", len(problems), len(files))
	}
	if len(problems) > 0 {
		return exitFailed
	}
	return exitOK
}

func examplesMerge(ctx context.Context, a *app, args []string) int {
	fs := flagSet("examples merge")
	u := usage{synopsis: "atesor examples merge DST SRC...",
		description: "Merge the example files SRC... into DST (created when missing), as sharded batch\n" +
			"runs need: by id, a manual example beats an auto one, then the newer timestamp;\n" +
			"two auto examples with one id and different content are both kept. When DST is\n" +
			"a recipe cache (recipe_cache.json), recipe caches are merged instead: the newest\n" +
			"last_built per package and sandbox wins."}
	pos, code, done := parseOrExit(a, fs, u, args)
	if done {
		return code
	}
	if len(pos) < 2 {
		return usageError(a, "examples merge", "want a destination and at least one source file")
	}
	dst, srcs := pos[0], pos[1:]
	var err error
	if strings.HasSuffix(filepath.Base(dst), "recipe_cache.json") {
		err = memory.MergeRecipeCaches(ctx, dst, srcs...)
	} else {
		err = memory.Merge(ctx, dst, srcs...)
	}
	if err != nil {
		fmt.Fprintf(a.stderr, "atesor examples merge: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(a.stdout, "merged %d file(s) into %s\n", len(srcs), dst)
	return exitOK
}

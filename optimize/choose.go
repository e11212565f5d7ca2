package optimize

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// helpTimeout bounds a program's --help run while looking for a benchmark flag.
const helpTimeout = 30 * time.Second

// chooseWorkload tries the workload sources in order until one gives a workload that
// runs on the baseline: the agent's program run, the agent's harness, the package's
// own benchmarks, and its tests. Each source that gives nothing leaves a note.
func (o *Optimizer) chooseWorkload(ctx context.Context, t Target, res *Result) (Workload, error) {
	perf := res.Performance
	note := func(s string) {
		perf.Notes = append(perf.Notes, s)
		o.progress(s)
	}
	sub := o.subject(ctx, t)
	try := func(wl Workload) bool {
		if why := o.trial(ctx, t, wl); why != "" {
			note(fmt.Sprintf("%s workload `%s` not used: %s", wl.Source, wl.Command, why))
			return false
		}
		return true
	}
	if o.Advisor != nil && o.Advisor.Client != nil && o.Advisor.Client.Provider != nil {
		pr, u, err := o.Advisor.ProgramRun(ctx, sub)
		res.Usage = res.Usage.Add(u)
		switch {
		case pr != nil:
			if wl := (Workload{Source: atesor.WorkloadProgram, Command: pr.Command, Mode: CheckDigest}); try(wl) {
				return wl, nil
			}
		case len(sub.Programs) == 0:
			note("the package built no program: no program run")
		default:
			note("the optimizer agent gave no program run: " + err.Error())
		}
		h, u, err := o.Advisor.Harness(ctx, sub)
		res.Usage = res.Usage.Add(u)
		switch {
		case h != nil:
			if wl, why := o.harnessWorkload(ctx, t, h); why != "" {
				note("the harness was not used: " + why)
			} else if try(wl) {
				return wl, nil
			}
		case err != nil:
			note("the optimizer agent gave no harness: " + err.Error())
		default:
			note("no harness fits the package (language " + t.Language + ", no library)")
		}
	} else {
		note("offline: no optimizer agent; using the package's own benchmarks")
	}
	for _, wl := range o.ownBenchmarks(ctx, t, sub.Programs) {
		if try(wl) {
			return wl, nil
		}
	}
	if len(t.TestCommands) > 0 && t.TestsPassed {
		wl := Workload{Source: atesor.WorkloadTests, Command: strings.Join(t.TestCommands, " && "), Mode: CheckExit}
		if try(wl) {
			return wl, nil
		}
	}
	return Workload{}, fmt.Errorf("optimize: no workload: the agent gave none, the package has no benchmark that runs, and its tests do not pass (%s)", strings.Join(perf.Notes, "; "))
}

// trial runs the workload once on the baseline: it must succeed within the run time
// limit, and a harness must print its check line.
func (o *Optimizer) trial(ctx context.Context, t Target, wl Workload) string {
	if wl.Prepare != "" {
		r, err := o.Sandbox.Exec(ctx, atesor.Command{Line: wl.Prepare, Dir: t.RepoDir, Env: t.env(), Timeout: 10 * time.Minute})
		if err != nil {
			return err.Error()
		}
		if !r.OK() {
			return "building it failed: " + lastLine(r.Output)
		}
	}
	r, err := o.Sandbox.Exec(ctx, atesor.Command{Line: wl.Command, Dir: t.RepoDir, Env: t.env(), Timeout: o.MaxRunTime})
	switch {
	case err != nil:
		return err.Error()
	case r.TimedOut:
		return fmt.Sprintf("one run takes longer than %s", o.MaxRunTime)
	case !r.OK():
		return fmt.Sprintf("it exited %d%s: %s", r.ExitCode, sig(r.Signal), lastLine(r.Output))
	case wl.Mode == CheckMarker && markerLines(r.Stdout+r.Stderr) == "":
		return "it printed no " + validate.CheckMarker + " line"
	}
	return ""
}

// harnessWorkload writes the harness into the package directory and returns the
// workload that builds and runs it.
func (o *Optimizer) harnessWorkload(ctx context.Context, t Target, h *atesor.Harness) (Workload, string) {
	lib := ""
	switch HarnessLanguage(h.Language) {
	case "c", "cpp":
		l := harnessLibrary(t.Artifacts)
		if l == "" {
			return Workload{}, "the package built no library to link"
		}
		lib = strings.TrimPrefix(l, t.RepoDir+"/")
	}
	if err := o.Sandbox.WriteFile(ctx, t.RepoDir+"/"+h.Filename, []byte(h.Code), 0o644); err != nil {
		return Workload{}, "writing it: " + err.Error()
	}
	prepare, run := harnessWorkload(h, lib)
	return Workload{Source: atesor.WorkloadHarness, Command: run, Prepare: prepare, Mode: CheckMarker, Harness: h}, ""
}

// harnessLibrary is the library a C/C++ harness links: a static library when the build
// made one (the harness then carries the variant's code), else a shared one.
func harnessLibrary(arts []atesor.Artifact) string {
	var shared string
	for _, a := range arts {
		switch a.Kind {
		case atesor.KindStaticLibrary:
			return a.Path
		case atesor.KindSharedLibrary:
			if shared == "" {
				shared = a.Path
			}
		}
	}
	return shared
}

// ownBenchmarks lists the package's own benchmarks: a built program's benchmark flag
// (from its --help), a bench make target, go test -bench, cargo bench.
func (o *Optimizer) ownBenchmarks(ctx context.Context, t Target, programs []string) []Workload {
	var out []Workload
	for _, p := range programs {
		flag := ""
		for _, h := range []string{"--help", "-h", "-H"} {
			r, err := o.Sandbox.Exec(ctx, atesor.Command{Line: shQuote(p) + " " + h + " </dev/null", Dir: t.RepoDir, Env: t.env(), Timeout: helpTimeout})
			if err != nil {
				break
			}
			if flag = BenchmarkFlag(r.Stdout + "\n" + r.Stderr); flag != "" {
				break
			}
		}
		if flag != "" {
			out = append(out, Workload{Source: atesor.WorkloadBenchmark, Command: relProgram(t.RepoDir, p) + " " + flag, Mode: CheckShape})
		}
	}
	if t.Source != nil {
		if tg := benchTarget(t.Source); tg != "" {
			out = append(out, Workload{Source: atesor.WorkloadBenchmark, Command: "make " + tg, Mode: CheckShape})
		}
	}
	switch strings.ToLower(t.Language) {
	case "go":
		out = append(out, Workload{Source: atesor.WorkloadBenchmark, Command: "go test -run '^$' -bench . -benchtime 1x -count 1 ./...", Mode: CheckShape})
	case "rust":
		out = append(out, Workload{Source: atesor.WorkloadBenchmark, Command: "cargo bench", Mode: CheckShape})
	}
	return out
}

// subject describes the package to the agent: its programs, libraries, their exports
// and the public headers.
func (o *Optimizer) subject(ctx context.Context, t Target) Subject {
	sub := Subject{Package: t.Package, Purpose: t.Purpose, Language: t.Language, Crate: t.Crate, Module: t.Module}
	for _, a := range t.Artifacts {
		switch a.Kind {
		case atesor.KindExecutable:
			sub.Programs = append(sub.Programs, a.Path)
		case atesor.KindSharedLibrary, atesor.KindStaticLibrary:
			sub.Libraries = append(sub.Libraries, a.Path)
		}
	}
	if lib := harnessLibrary(t.Artifacts); lib != "" {
		sub.Exports = o.exports(ctx, lib)
	}
	if t.Source != nil {
		sub.Headers = publicHeaders(t.Source)
	}
	return sub
}

// exports lists the functions a library defines and exports (nm's T symbols).
func (o *Optimizer) exports(ctx context.Context, lib string) []string {
	opt := "-g"
	if strings.Contains(path.Base(lib), ".so") {
		opt = "-D"
	}
	r, err := o.Sandbox.Exec(ctx, atesor.Command{Line: "nm " + opt + " --defined-only " + shQuote(lib), Dir: "/", Timeout: time.Minute})
	if err != nil || !r.OK() {
		return nil
	}
	return ParseExports(r.Stdout)
}

// ParseExports returns the sorted, unique names of the text (function) symbols in nm
// output ("address T name" lines).
func ParseExports(nm string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range strings.Split(nm, "\n") {
		f := strings.Fields(l)
		if len(f) != 3 || f[1] != "T" {
			continue
		}
		name, _, _ := strings.Cut(f[2], "@")
		if name == "" || strings.HasPrefix(name, "_") || seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// publicHeaders lists up to 20 headers at the top two levels of the tree, tests and
// examples left out.
func publicHeaders(tree fs.FS) []string {
	var out []string
	_ = fs.WalkDir(tree, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(out) >= 20 {
			return fs.SkipDir
		}
		if d.IsDir() {
			n := strings.ToLower(d.Name())
			if p != "." && (strings.Count(p, "/") >= 1 || strings.Contains(n, "test") || strings.Contains(n, "example") || strings.HasPrefix(n, ".")) {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".h") || strings.HasSuffix(p, ".hpp") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

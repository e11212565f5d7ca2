package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
)

var (
	// mesonSubprojectMissing are meson's reports of a subproject it cannot get: no
	// subprojects/ directory or wrap file (a repacked tarball strips them), or a wrap
	// that needs a download the offline sandbox cannot make.
	mesonSubprojectMissing = []*regexp.Regexp{
		re(`Neither a subproject directory nor a \S+\.wrap file was found`),
		re(`Subproject directory not found and \S+\.wrap file not found`),
		re(`Subproject exists but has no meson\.build file`),
		re(`could not get \S+ is the internet available`),
		re(`Automatic wrap-based subproject downloading is disabled`),
	}
	mesonErrorAt = re(`(?m)^(\S*meson\.build):(\d+):\d+: ERROR: `)
	mesonSetup   = re(`(^|&&\s*|;\s*)(meson setup|meson)(\s)`)
	mesonDefine  = re(`\s-D([A-Za-z0-9_.:-]+)=(\S*)`)
)

func mesonSubprojectRule() Rule {
	return Rule{
		Name: "meson-missing-subproject",
		Doc: "a meson dependency() fallback or subproject() the tarball or the offline sandbox cannot provide: " +
			"the distro's package of the dependency, else the option that gates it off",
		Signatures: mesonSubprojectMissing,
		Make:       makeMesonSubproject,
	}
}

func makeMesonSubproject(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.ReadFile == nil || env.Plan == nil {
		return nil, "no build files or no plan"
	}
	file, line := mesonErrorFile(env.Files, f.text()+"\n"+f.Message)
	if file == "" {
		return nil, "the output does not say which meson.build asked for the subproject"
	}
	b, err := env.ReadFile(ctx, file)
	if err != nil {
		return nil, "cannot read " + file
	}
	tokens, err := lexMeson(string(b))
	if err != nil {
		return nil, file + ": " + err.Error()
	}
	var call *mesonCall
	for _, c := range mesonCalls(tokens, "dependency", "subproject") {
		if c.Line == line {
			call = &c
			break
		}
	}
	if call == nil || len(call.Args) == 0 {
		return nil, fmt.Sprintf("%s:%d is not a dependency() or subproject() call the reader understands", file, line)
	}
	names := slices.Clone(call.Args)
	if call.Name == "subproject" {
		names = append(names, wrapProvides(ctx, env, path.Dir(file), call.Args[0])...)
	}
	at := fmt.Sprintf("%s:%d", file, line)
	// The distro's package first: it keeps whatever the dependency is for.
	var pkgs, found []string
	for _, n := range names {
		pkg, ok := providerOf(env, Missing{Kind: KindPkgConfig, Name: n})
		if !ok {
			if fw, isFW := frameworkByFind(n); isFW && (env.Platform.PackageManager == "" || env.Platform.PackageManager == "apt-get" || env.Platform.PackageManager == "apt") {
				pkg, ok = fw.packages[0], true
			}
		}
		if ok && !slices.Contains(pkgs, pkg) {
			pkgs = append(pkgs, pkg)
			found = append(found, n+" is in "+pkg)
		}
	}
	if len(pkgs) > 0 {
		plan := withPackages(*env.Plan, env, pkgs)
		if !samePlan(plan, *env.Plan) {
			return &Fix{
				Analysis: fmt.Sprintf("%s asks for %s %s, whose subproject the tarball or the offline sandbox cannot provide; the distro packages it (%s), so meson finds it installed instead.",
					at, call.Name, strings.Join(call.Args, ", "), strings.Join(found, "; ")),
				Strategy: "install " + strings.Join(pkgs, " "),
				Plan:     &plan,
			}, ""
		}
	}
	// Else an option that gates the call off, when it leaves out tests and the like.
	opts := mesonOptions(ctx, env, path.Dir(file))
	for k := len(call.Gates) - 1; k >= 0; k-- {
		g := call.Gates[k]
		if g.Option == "" || purposeOf(g.Option) == "" {
			continue
		}
		val := strconv.FormatBool(!g.Want)
		if g.Feature || opts[g.Option].Type == "feature" {
			val = map[bool]string{true: "enabled", false: "disabled"}[!g.Want]
		}
		plan, ok := withMesonDefine(*env.Plan, f.Phase, g.Option, val)
		if !ok {
			return nil, "no meson setup command in the plan"
		}
		if samePlan(plan, *env.Plan) {
			return nil, "the plan already configures -D" + g.Option + "=" + val
		}
		return &Fix{
			Analysis: fmt.Sprintf("%s asks for %s %s, which neither the tarball nor the distro provides, only when the %s option is %t; the build configures with -D%s=%s. This leaves out the package's %s, so no evidence comes from them.",
				at, call.Name, strings.Join(call.Args, ", "), g.Option, g.Want, g.Option, val, purposeOf(g.Option)),
			Strategy: "configure with -D" + g.Option + "=" + val,
			Plan:     &plan,
		}, ""
	}
	lookup := "no distro package provides"
	if env.Packages == nil && (env.Platform.PackageManager == "" || env.Platform.PackageManager == "apt-get" || env.Platform.PackageManager == "apt") {
		lookup = "no Contents index to look up (and no distro package known to provide)"
	}
	return nil, fmt.Sprintf("%s: %s %s, and no tests/benchmarks/examples/docs option gates it", at, lookup, strings.Join(names, ", "))
}

// mesonErrorFile returns the tree's meson.build and the line of the first of meson's
// "meson.build:line:col: ERROR: " reports in text that names a file of the tree; ""
// when none does.
func mesonErrorFile(files []string, text string) (string, int) {
	for _, m := range mesonErrorAt.FindAllStringSubmatch(text, 16) {
		n, _ := strconv.Atoi(m[2])
		if p, ok := locateFile(files, m[1]); ok {
			return p, n
		}
	}
	return "", 0
}

// locateFile finds the repository file a build or a compiler names, relative to its
// source directory or absolutely: of the tree paths the name ends with, the longest (an
// absolute /workspace/pkg/src/lib/src/x.h is src/lib/src/x.h, not a shorter src/x.h
// elsewhere); else the shortest path in the tree that ends with the name.
func locateFile(files []string, name string) (string, bool) {
	best, within := "", false
	for _, p := range files {
		switch {
		case p == name || strings.HasSuffix(name, "/"+p):
			if !within || len(p) > len(best) {
				best, within = p, true
			}
		case !within && strings.HasSuffix("/"+p, "/"+name):
			if best == "" || len(p) < len(best) {
				best = p
			}
		}
	}
	return best, best != ""
}

// wrapProvides returns the dependency names a subproject's wrap file provides
// ([provide] name = variable, or dependency_names = a, b).
func wrapProvides(ctx context.Context, env Env, dir, name string) []string {
	b, err := env.ReadFile(ctx, path.Join(dir, "subprojects", name+".wrap"))
	if err != nil {
		return nil
	}
	var out []string
	in := false
	for _, l := range strings.Split(excerpt.Head(string(b), 64<<10), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "[") {
			in = l == "[provide]"
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !in || !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "dependency_names" {
			for _, n := range strings.Split(v, ",") {
				if n = strings.TrimSpace(n); n != "" {
					out = append(out, n)
				}
			}
		} else if k != "program_names" {
			out = append(out, k)
		}
		if len(out) >= 16 {
			break
		}
	}
	return out
}

// mesonOption is an option of meson.options or meson_options.txt.
type mesonOption struct {
	Type, Description string
	// Choices are a combo option's values.
	Choices []string
}

// mesonOptions reads the options of meson.options or meson_options.txt in dir.
func mesonOptions(ctx context.Context, env Env, dir string) map[string]mesonOption {
	out := map[string]mesonOption{}
	for _, name := range []string{"meson.options", "meson_options.txt"} {
		b, err := env.ReadFile(ctx, path.Join(dir, name))
		if err != nil {
			continue
		}
		tokens, err := lexMeson(string(b))
		if err != nil {
			continue
		}
		for _, c := range mesonCalls(tokens, "option") {
			if len(c.Args) > 0 {
				var o mesonOption
				if t := c.Kw["type"]; len(t) > 0 && t[0].kind == 's' {
					o.Type = t[0].text
				}
				if d := c.Kw["description"]; len(d) > 0 && d[0].kind == 's' {
					o.Description = d[0].text
				}
				for _, t := range c.Kw["choices"] {
					if t.kind == 's' && len(o.Choices) < 64 {
						o.Choices = append(o.Choices, t.text)
					}
				}
				out[c.Args[0]] = o
			}
		}
		break
	}
	return out
}

// withMesonDefine returns the plan with -Dname=value on the meson setup command of
// the failing phase or the nearest one before it.
func withMesonDefine(plan atesor.BuildPlan, failedPhase, name, value string) (atesor.BuildPlan, bool) {
	phases := slices.Clone(plan.Phases)
	end := len(phases) - 1
	for i, ph := range phases {
		if ph.Name == failedPhase {
			end = i
		}
	}
	def := " -D" + name + "=" + value
	for i := end; i >= 0; i-- {
		for j, line := range phases[i].Commands {
			loc := mesonSetup.FindStringSubmatchIndex(line)
			if loc == nil {
				continue
			}
			replaced := false
			line = mesonDefine.ReplaceAllStringFunc(line, func(m string) string {
				if sm := mesonDefine.FindStringSubmatch(m); sm[1] == name {
					replaced = true
					return def
				}
				return m
			})
			if !replaced {
				line = line[:loc[5]] + def + line[loc[5]:]
			}
			cmds := slices.Clone(phases[i].Commands)
			cmds[j] = line
			phases[i].Commands = cmds
			plan.Phases = phases
			return plan, true
		}
	}
	return plan, false
}

package repair

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// linkCommands are the commands that name another target a build needs.
var linkCommands = []string{"target_link_libraries", "link_libraries", "add_dependencies"}

// dependents returns the decisions that follow from leaving vendored frameworks out:
// a benchmark block that links the vendored gtest must go too (leveldb builds its
// db_bench with gmock and gtest, under LEVELDB_BUILD_BENCHMARKS, while it adds
// googletest under LEVELDB_BUILD_TESTS). Only options that leave out tests,
// benchmarks, examples, docs or fuzzers are turned off.
func (r *subdirReader) dependents(decided []decision, settings map[string]bool) []decision {
	var targets []string
	for _, d := range decided {
		if d.system || d.fw == "" {
			continue
		}
		for _, fw := range frameworks {
			if fw.name == d.fw {
				targets = append(targets, fw.targets...)
			}
		}
	}
	if len(targets) == 0 {
		return nil
	}
	files := make([]string, 0, len(r.scripts))
	for f, s := range r.scripts {
		if s != nil {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	var out []decision
	for _, file := range files {
		s := r.scripts[file]
		known := known(s, settings)
		for i, c := range s.cmds {
			if !slices.Contains(linkCommands, c.Name) {
				continue
			}
			uses := ""
			for _, a := range c.Args {
				if slices.Contains(targets, a.Text) {
					uses = a.Text
					break
				}
			}
			if uses == "" || pathOff(s.guards[i], known) {
				continue
			}
			d, ok := disable(s, s.guards[i], settings)
			if !ok {
				continue
			}
			d.sub = missingSubdir{file: file, line: c.Line, dir: "links " + uses}
			for _, l := range d.settings {
				settings[l.name] = l.want
			}
			out = append(out, d)
		}
	}
	return out
}

// pathOff reports whether one of the guards is known not to hold.
func pathOff(guards []guard, known func(op, name string) tri) bool {
	return slices.ContainsFunc(guards, func(g guard) bool { return g.cond.eval(known) == triOf(!g.want) })
}

// disable finds an option that turns a command's block off as tests, benchmarks,
// examples, docs or fuzzers, innermost block first.
func disable(s *cmakeScript, guards []guard, settings map[string]bool) (decision, bool) {
	for k := len(guards) - 1; k >= max(0, len(guards)-maxGuardsLooked); k-- {
		for _, way := range guards[k].cond.ways(!guards[k].want, s.settable) {
			if len(way) == 0 || slices.ContainsFunc(way, func(l leaf) bool {
				v, set := settings[l.name]
				return (set && v != l.want) || !s.switchesOff(l, "")
			}) {
				continue
			}
			return decision{settings: way, purpose: purposeOf(way[0].name)}, true
		}
	}
	return decision{}, false
}

var cmakeDefine = regexp.MustCompile(`\s-D([A-Za-z_][A-Za-z0-9_.+-]*)(?::[A-Z]+)?=(\S*)`)

// withCMakeDefines returns the plan with -DNAME=VALUE set on the CMake configure
// command of the failing phase or the nearest one before it (a value the line already
// sets is replaced), and whether there was such a command.
func withCMakeDefines(plan atesor.BuildPlan, failedPhase string, defs []leaf) (atesor.BuildPlan, bool) {
	phases := slices.Clone(plan.Phases)
	end := len(phases) - 1
	for i, ph := range phases {
		if ph.Name == failedPhase {
			end = i
		}
	}
	for i := end; i >= 0; i-- {
		cmds := slices.Clone(phases[i].Commands)
		for j, line := range cmds {
			loc := cmakeConfig.FindStringSubmatchIndex(line)
			if loc == nil {
				continue
			}
			insert := ""
			for _, d := range defs {
				def := " -D" + d.name + "=" + d.setting()
				replaced := false
				line = cmakeDefine.ReplaceAllStringFunc(line, func(m string) string {
					if sm := cmakeDefine.FindStringSubmatch(m); sm[1] == d.name {
						replaced = true
						return def
					}
					return m
				})
				if !replaced {
					insert += def
				}
			}
			at := cmakeConfig.FindStringSubmatchIndex(line)[5]
			line = line[:at] + insert + line[at:]
			cmds[j] = line
			phases[i].Commands = cmds
			plan.Phases = phases
			return plan, true
		}
	}
	return plan, false
}

// withPackages returns the plan with packages added to its first install command, or
// a setup phase that installs them first.
func withPackages(plan atesor.BuildPlan, env Env, pkgs []string) atesor.BuildPlan {
	if len(pkgs) == 0 {
		return plan
	}
	install := installCommand(env)
	phases := slices.Clone(plan.Phases)
	for i, ph := range phases {
		for j, c := range ph.Commands {
			if !strings.Contains(c, install) {
				continue
			}
			cmds := slices.Clone(ph.Commands)
			for _, p := range pkgs {
				if !slices.Contains(strings.Fields(c), p) {
					c += " " + p
				}
			}
			cmds[j] = c
			phases[i].Commands = cmds
			plan.Phases = phases
			return plan
		}
	}
	line := install + " " + strings.Join(pkgs, " ")
	if u := strings.TrimSpace(env.Platform.UpdateCommand); u != "" {
		line = u + " && " + line
	}
	plan.Phases = append([]atesor.Phase{{Name: "setup", Commands: []string{line}}}, phases...)
	return plan
}

// subdirFix makes the fix of the decisions: the -D settings on the configure command,
// the packages in the setup phase, and an analysis that says which option and why.
func subdirFix(env Env, failedPhase string, decisions []decision, notes []string) (*Fix, string) {
	var defs []leaf
	var pkgs, why, dropped []string
	var actions []atesor.Action
	system := false
	for _, d := range decisions {
		if d.create != nil {
			actions = append(actions, *d.create)
		}
		if d.patch != nil {
			actions = append(actions, *d.patch)
		}
		for _, l := range d.settings {
			if !slices.Contains(defs, l) {
				defs = append(defs, l)
			}
		}
		for _, p := range d.packages {
			if !slices.Contains(pkgs, p) {
				pkgs = append(pkgs, p)
			}
		}
		why = append(why, describe(d))
		if d.system {
			system = true
		} else if d.purpose != "" && !slices.Contains(dropped, d.purpose) {
			dropped = append(dropped, d.purpose)
		}
	}
	plan := *env.Plan
	var flags []string
	for _, l := range defs {
		flags = append(flags, "-D"+l.name+"="+l.setting())
	}
	if len(defs) > 0 {
		var ok bool
		if plan, ok = withCMakeDefines(plan, failedPhase, defs); !ok {
			return nil, "no cmake configure command in the plan to pass " + strings.Join(flags, " ") + " to"
		}
	}
	plan = withPackages(plan, env, pkgs)
	if samePlan(plan, *env.Plan) && len(actions) == 0 {
		return nil, "the plan already configures " + strings.Join(flags, " ")
	}
	analysis := strings.Join(why, " ")
	if len(dropped) > 0 {
		analysis += fmt.Sprintf(" This leaves out the package's %s, so no evidence comes from them", strings.Join(dropped, " and "))
		switch {
		case system:
			analysis += "; the distro's copy keeps the rest."
		case slices.ContainsFunc(decisions, func(d decision) bool { return d.sub.failed != "" }):
			analysis += "; they do not compile here, and the library and programs do not need them."
		default:
			analysis += "; the build has no switch for a system copy of what it vendors."
		}
	}
	if len(notes) > 0 {
		analysis += " Not handled: " + strings.Join(notes, "; ") + "."
	}
	var strategy []string
	if len(pkgs) > 0 {
		strategy = append(strategy, "install "+strings.Join(pkgs, " "))
	}
	for _, a := range actions {
		if a.Type == atesor.ActionPatch {
			strategy = append(strategy, "comment out "+a.File+"'s call of the missing directory")
			continue
		}
		strategy = append(strategy, "write "+a.Path+" to import it")
	}
	if len(flags) > 0 {
		strategy = append(strategy, "configure with "+strings.Join(flags, " "))
	}
	fix := &Fix{Analysis: analysis, Strategy: strings.Join(strategy, " and "), Actions: actions}
	if !samePlan(plan, *env.Plan) {
		fix.Plan = &plan
	}
	return fix, ""
}

// describe says in a sentence what was missing, what gates it and what the fix sets.
func describe(d decision) string {
	what := cmp.Or(d.sub.rel, d.sub.dir)
	if d.fw != "" && d.inner == nil {
		what += frameworkWords(d.sub.cmd, d.fw)
	}
	var set []string
	for _, l := range d.settings {
		set = append(set, l.name+"="+l.setting())
	}
	at := fmt.Sprintf("%s:%d", d.sub.file, d.sub.line)
	adds, _ := callWords(d.sub.cmd)
	lacks := lacksWords(d.sub)
	switch {
	case d.lib != nil:
		return fmt.Sprintf("%s %s %s, which the tarball lacks: the repacked source stripped its bundled copy of the library %s, "+
			"which the distribution packages as %s, and no option of the build leaves it out; %s imports the installed library under the target names the build links (%s).",
			at, adds, what, d.lib.dir, d.lib.pkg, d.create.Path, strings.Join(d.lib.targets, ", "))
	case d.patch != nil:
		return fmt.Sprintf("%s %s %s, %s (the repacked source has no %s/), and no option of the build leaves it out; the call is commented out, as it only adds the package's %s.",
			at, adds, what, lacks, what, d.purpose)
	case d.create != nil:
		var names []string
		for _, fw := range frameworks {
			if fw.name == d.fw {
				for _, t := range fw.imports {
					names = append(names, t.vendored)
				}
			}
		}
		return fmt.Sprintf("%s %s %s, %s, and no option of the build leaves it out; %s imports the distro's copy (%s) under the vendored build's target names (%s).",
			at, adds, what, lacks, d.create.Path, strings.Join(d.packages, " "), strings.Join(names, ", "))
	case strings.HasPrefix(d.sub.dir, "links "):
		return fmt.Sprintf("%s %s, which is left out, so %s turns that block off too.", at, d.sub.dir, strings.Join(set, " "))
	case d.system && len(set) > 0:
		return fmt.Sprintf("%s %s %s, %s; %s selects the distro's copy (%s) instead.", at, adds, what, lacks, strings.Join(set, " "), strings.Join(d.packages, " "))
	case d.system && d.sub.cmd == "find_package":
		return fmt.Sprintf("%s %s %s, %s; the distro's copy (%s) is installed.", at, adds, what, lacks, strings.Join(d.packages, " "))
	case d.system:
		return fmt.Sprintf("%s %s %s only when find_package() finds no installed copy; the distro's (%s) is installed.", at, adds, what, strings.Join(d.packages, " "))
	}
	if in := d.inner; in != nil {
		missing := cmp.Or(in.rel, in.dir)
		if d.fw != "" {
			missing += frameworkWords(in.cmd, d.fw)
		}
		inAdds, _ := callWords(in.cmd)
		inLacks := lacksWords(*in)
		return fmt.Sprintf("%s:%d %s %s, %s, whenever %s is built; %s adds %s only when %s; the build configures with %s.",
			in.file, in.line, inAdds, missing, inLacks, what, at, what, gateWords(d.settings), strings.Join(set, " "))
	}
	return fmt.Sprintf("%s %s %s, %s, only when %s; the build configures with %s.", at, adds, what, lacks, gateWords(d.settings), strings.Join(set, " "))
}

// frameworkWords say what a call's part is of the framework, for the analysis.
func frameworkWords(cmd, fw string) string {
	switch cmd {
	case "find_package", fetchMakeAvailable, fetchPopulate:
		return ""
	case "file":
		return " (" + fw + "'s)"
	}
	return " (a vendored " + fw + ")"
}

// lacksWords say why a call's part failed: the compile error in a directory that is
// there, else what the command could not find.
func lacksWords(sub missingSubdir) string {
	if sub.failed != "" {
		return "whose build fails (" + sub.failed + ")"
	}
	_, why := callWords(sub.cmd)
	return why
}

// callWords say what a failing call of the command does with its part and why that
// failed, for the analysis.
func callWords(cmd string) (does, why string) {
	switch cmd {
	case "message":
		return "reports that the build could not download", "which the offline sandbox cannot fetch"
	case "find_package":
		return "requires", "which find_package() did not find"
	case "file":
		return "downloads", "which the offline sandbox cannot fetch"
	case fetchMakeAvailable, fetchPopulate:
		return "fetches", "which the offline sandbox cannot download"
	}
	return "adds", "which the tarball lacks"
}

func gateWords(ls []leaf) string {
	var out []string
	for _, l := range ls {
		if l.want {
			out = append(out, l.name+" is off")
		} else {
			out = append(out, l.name+" is on")
		}
	}
	return strings.Join(out, " and ")
}

package repair

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// An old program often ships several front ends built by one top-level Makefile whose
// default goal names them all (dares 0.6.5: "all : qt ncurses", the qt one running
// qmake over a Qt 3 project). When the platform has no package for one front end's
// tool (qmake: "sh: 1: qmake: not found", make's "[Makefile:4: qt] Error 127") and no
// rule installed one, the porter builds the goals that do not need it, as a
// distribution does when it packages one front end: make with the default goal's
// other prerequisites as goals. The front end left out is named in the fix.

var (
	// makeTargetNotFound is top-level make's report that a target's recipe ran a
	// command the shell did not find (exit 127): the Makefile and the target.
	makeTargetNotFound = re(`(?m)^g?make: \*\*\* \[(?:([A-Za-z0-9_.-]+):\d+: )?([A-Za-z0-9_.-]+)\] Error 127$`)
	// shellNotFound is the shell's "not found" for the program a recipe ran.
	shellNotFound = re(`(?m)^(?:/bin/sh: (?:\d+: )?|sh: (?:\d+: )?|/bin/bash: (?:line \d+: )?)([A-Za-z0-9_.+-]+): (?:command )?not found$`)
	// makeRuleOf is a Makefile rule line: its targets and prerequisites.
	makeRuleOf = regexp.MustCompile(`(?m)^([A-Za-z_][A-Za-z0-9_. -]*?)\s*:([^=\n][^\n]*)?$`)
)

func makeGoalRule() Rule {
	return Rule{
		Name: "make-goal-without-tool",
		Doc: "a top-level make whose default goal's prerequisite runs a program the platform lacks (dares' qt front end: qmake not found, " +
			"Error 127) while it has other prerequisites: make those goals, leaving that one out",
		Signatures: []*regexp.Regexp{makeTargetNotFound},
		Make:       makeGoalWithoutTool,
	}
}

// defaultGoal returns a Makefile's first rule's target and prerequisites, special
// .TARGETS and pattern rules aside.
func defaultGoal(text string) (goal string, prereqs []string) {
	for _, m := range makeRuleOf.FindAllStringSubmatch(text, -1) {
		targets := strings.Fields(m[1])
		if len(targets) == 0 || strings.HasPrefix(targets[0], ".") || strings.Contains(m[1], "%") {
			continue
		}
		return targets[0], strings.Fields(strings.SplitN(m[2], ";", 2)[0])
	}
	return "", nil
}

// makefileRule returns the prerequisites of a Makefile's rule for target and whether a
// recipe follows it (a line after it that starts with a tab); ok is false when the
// Makefile has no rule for target.
func makefileRule(text, target string) (prereqs []string, recipe, ok bool) {
	for _, loc := range makeRuleOf.FindAllStringSubmatchIndex(text, -1) {
		if !slices.Contains(strings.Fields(text[loc[2]:loc[3]]), target) {
			continue
		}
		if loc[4] >= 0 {
			prereqs = strings.Fields(strings.SplitN(text[loc[4]:loc[5]], ";", 2)[0])
		}
		return prereqs, strings.HasPrefix(strings.TrimPrefix(text[loc[1]:], "\n"), "\t"), true
	}
	return nil, false, false
}

func makeGoalWithoutTool(ctx context.Context, f Failure, env Env) (*Fix, string) {
	text := f.text() + "\n" + f.Message
	m := makeTargetNotFound.FindStringSubmatch(text)
	if m == nil {
		return nil, "no top-level make target failed for a command not found"
	}
	file, target := m[1], m[2]
	tool := ""
	if t := shellNotFound.FindStringSubmatch(text); t != nil {
		tool = t[1]
	}
	g, why := withoutGoalPrereq(ctx, f, env, file, target)
	if why != "" {
		return nil, why
	}
	missing := "a program the platform does not have"
	if tool != "" {
		missing = tool + ", which the platform does not have"
	}
	return &Fix{
		Analysis: fmt.Sprintf("%s's default goal %s builds %s; %s runs %s (exit 127), and no package rule installed it. "+
			"The other goals build without it; the %s goal is left out of the port.", g.makefile, g.goal, strings.Join(g.prereqs, " and "), target, missing, target),
		Strategy: "run make " + g.goals + " (the default goal's prerequisites but " + target + ")",
		Plan:     &g.plan,
	}, ""
}

// goalEdit is a plan whose make builds the default goal's prerequisites but one.
type goalEdit struct {
	plan           atesor.BuildPlan
	makefile, goal string
	prereqs        []string // the default goal's
	goals          string   // the goals the plan's make now names
}

// withoutGoalPrereq returns the plan with its goal-less make naming the default goal's
// prerequisites but target, or why it cannot: file is the Makefile make named ("" for
// the one make reads by itself).
func withoutGoalPrereq(ctx context.Context, f Failure, env Env, file, target string) (goalEdit, string) {
	if env.Plan == nil || env.ReadFile == nil {
		return goalEdit{}, "no build plan or build files to read"
	}
	names := makeDefaultFiles
	if file != "" {
		names = []string{file}
	}
	var src, name string
	for _, n := range names {
		if b, err := env.ReadFile(ctx, n); err == nil && len(b) <= maxMakefile {
			src, name = string(b), n
			break
		}
	}
	if name == "" {
		return goalEdit{}, "no top-level Makefile to read"
	}
	goal, prereqs := defaultGoal(src)
	for range 3 {
		// A default goal that only names another (bglibs' "DEFAULT: all") is that one.
		if len(prereqs) != 1 || slices.Contains(prereqs, target) {
			break
		}
		if _, recipe, _ := makefileRule(src, goal); recipe {
			break
		}
		next, _, ok := makefileRule(src, prereqs[0])
		if !ok || len(next) == 0 {
			break
		}
		goal, prereqs = prereqs[0], next
	}
	if !slices.Contains(prereqs, target) {
		return goalEdit{}, fmt.Sprintf("%s is not a prerequisite of %s's default goal %s", target, name, goal)
	}
	others := slices.DeleteFunc(slices.Clone(prereqs), func(p string) bool { return p == target })
	if len(others) == 0 {
		return goalEdit{}, fmt.Sprintf("%s's default goal %s has no prerequisite but %s", name, goal, target)
	}
	goals := strings.Join(others, " ")
	plan, _, ok := editPlan(*env.Plan, f.Phase, []planEdit{{where: "make", do: func(line string) (string, bool) {
		if strings.Contains(line, "configure") || strings.Contains(line, "cmake") {
			return line, false
		}
		end, ok := makeWithoutGoal(line)
		if !ok {
			return line, false
		}
		return line[:end] + " " + goals + line[end:], true
	}}})
	if !ok {
		return goalEdit{}, "the plan runs no make without a goal"
	}
	return goalEdit{plan: plan, makefile: name, goal: goal, prereqs: prereqs, goals: goals}, ""
}

// makeWithoutGoal finds a make command on a plan line whose words are only options and
// variable assignments (quoted values kept whole), and returns where its words end.
func makeWithoutGoal(line string) (int, bool) {
	loc := makeCommand.FindStringSubmatchIndex(line)
	if loc == nil {
		return 0, false
	}
	i := loc[5]
	end := i
	for i < len(line) {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) || strings.ContainsRune("&;|", rune(line[i])) {
			break
		}
		start := i
		var quote byte
		for i < len(line) && (quote != 0 || !strings.ContainsRune(" \t&;|", rune(line[i]))) {
			switch {
			case quote != 0 && line[i] == quote:
				quote = 0
			case quote == 0 && (line[i] == '\'' || line[i] == '"'):
				quote = line[i]
			}
			i++
		}
		w := line[start:i]
		if !strings.HasPrefix(w, "-") && !makeAssignWord.MatchString(w) {
			return 0, false // a goal
		}
		end = i
	}
	return end, true
}

// makeAssignWord is a make command-line variable assignment.
var makeAssignWord = re(`^[A-Za-z_][A-Za-z0-9_]*[:+?]?=`)

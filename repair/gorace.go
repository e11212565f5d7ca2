package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// Go's race detector and memory sanitizer exist only on some platforms (the race
// detector on amd64, arm64, ppc64le, s390x and loong64), not on linux/riscv64, and the
// go command refuses the flag before it compiles anything: "-race is not supported on
// linux/riscv64" (Go 1.24 in the sandbox; its -asan builds there). Build files written
// on amd64 often build or test with -race; the program and its tests are the same
// without it (the flag adds instrumentation, never code), so on riscv64 the flag is
// dropped and the drop recorded. The rule drops only the flags the go command said it
// refuses.

// goSanitizerUnsupported is the go command refusing one of those flags.
var goSanitizerUnsupported = re(`-(race|msan|asan) is not supported on [a-z0-9]+/riscv64`)

// goSanitizerWord is the flag as a word of a command line, a GOFLAGS value or a
// Makefile variable: -race, -race=true, --race; the group keeps what follows it.
var goSanitizerWord = re(`(?:^|[\s"'=])(--?(race|msan|asan)(?:=(?:true|1))?)(?:[\s"';)]|$)`)

func goSanitizerRule() Rule {
	return Rule{
		Name: "go-no-race",
		Doc: "Go's -race or -msan (any sanitizer flag the go command says linux/riscv64 lacks), in the plan's go commands or in build files: " +
			"dropped from the plan, overridden in the Makefile's variable or removed from the build file with a recorded edit",
		Signatures: []*regexp.Regexp{goSanitizerUnsupported},
		Make:       makeGoSanitizer,
	}
}

// DropGoSanitizers removes the given flags (names without the dash: race, msan, asan;
// nil is [RISCV64Unsupported]) from a line where they are words, and returns the line
// and the flags it removed, each once.
func DropGoSanitizers(line string, flags []string) (string, []string) {
	if flags == nil {
		flags = RISCV64Unsupported
	}
	var dropped []string
	// Matches are searched from pos on: a flag kept (-asan) must not hide the next one.
	// After an edit pos is where the removed text was; the text there starts with a
	// delimiter or at a place the pattern's own start condition allows.
	for pos := 0; pos <= len(line); {
		loc := goSanitizerWord.FindStringSubmatchIndex(line[pos:])
		if loc == nil {
			break
		}
		start, end, name := pos+loc[2], pos+loc[3], line[pos+loc[4]:pos+loc[5]]
		if !slices.Contains(flags, name) {
			pos = end
			continue
		}
		switch {
		case start > 0 && line[start-1] == ' ':
			start--
		case start > 0 && line[start-1] == '=':
			// GOFLAGS=-race go build: the space starts the next word, not the value.
		case end < len(line) && line[end] == ' ':
			end++
		}
		line, pos = line[:start]+line[end:], start
		if w := "-" + name; !slices.Contains(dropped, w) {
			dropped = append(dropped, w)
		}
	}
	return line, dropped
}

// RISCV64Unsupported are the go command's instrumentation flags (without the dash)
// that it refuses on linux/riscv64, as Go 1.24 in the sandbox does: -race and -msan.
var RISCV64Unsupported = []string{"race", "msan"}

// goSanitizerNames returns the flags a build output says the platform lacks.
func goSanitizerNames(text string) []string {
	var out []string
	for _, m := range goSanitizerUnsupported.FindAllStringSubmatch(text, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// goLine is a line that runs the go command or sets GOFLAGS: the lines of a plan the
// rule edits.
var goLine = re(`(?:^|[\s;&|(])(?:go\s+(?:build|test|install|run|vet|generate)\b|GOFLAGS=)`)

func makeGoSanitizer(ctx context.Context, f Failure, env Env) (*Fix, string) {
	names := goSanitizerNames(f.text() + "\n" + f.Message)
	if len(names) == 0 {
		return nil, "no unsupported Go sanitizer named in the output"
	}
	flags := "-" + strings.Join(names, ", -")
	why := fmt.Sprintf("Go's %s does not exist on linux/riscv64 (the go command refuses it before compiling); "+
		"the program and its tests are the same without the instrumentation.", flags)
	// The plan's own go commands first: the flag is there when the failing line has it.
	if env.Plan != nil {
		plan := *env.Plan
		plan.Phases = slices.Clone(plan.Phases)
		var dropped []string
		for i := range plan.Phases {
			cmds := slices.Clone(plan.Phases[i].Commands)
			for j, c := range cmds {
				if !goLine.MatchString(c) {
					continue
				}
				if n, d := DropGoSanitizers(c, names); len(d) > 0 {
					cmds[j] = n
					dropped = appendNew(dropped, d...)
				}
			}
			plan.Phases[i].Commands = cmds
		}
		if len(dropped) > 0 {
			return &Fix{Analysis: why, Strategy: "drop " + strings.Join(dropped, " ") + " from the plan's go commands", Plan: &plan}, ""
		}
	}
	if env.ReadFile == nil {
		return nil, "the plan's go commands do not pass " + flags + " and the build files cannot be read"
	}
	// Then the build files: a top-level Makefile variable that holds the flag is set
	// without it on make's command line (the file is not changed); the flag written
	// anywhere else in a Makefile or script is removed with a recorded edit.
	top := topMakefile(ctx, env)
	var overrides []string
	var plan *atesor.BuildPlan
	if top != "" && env.Plan != nil {
		if b, err := env.ReadFile(ctx, top); err == nil {
			if overrides = makeVarOverrides(string(b), names); len(overrides) > 0 {
				if plan = withMakeOverrides(*env.Plan, overrides); plan == nil {
					overrides = nil // no make command to set them on: edit the file instead
				}
			}
		}
	}
	var actions []atesor.Action
	var files []string
	for _, p := range env.Files {
		if len(files) == 20 || noiseDir(p) || !goBuildFile(p) {
			continue
		}
		b, err := env.ReadFile(ctx, p)
		if err != nil {
			continue
		}
		overridden := p == top && len(overrides) > 0
		diff, ok := lineDiff(p, string(b), func(line string) (string, bool) {
			if overridden && makeVarLine(line, names) {
				return line, false
			}
			n, d := DropGoSanitizers(line, names)
			return n, len(d) > 0
		})
		if ok {
			actions = append(actions, atesor.Action{Type: atesor.ActionPatch, File: p, Diff: diff})
			files = append(files, p)
		}
	}
	var what []string
	if plan != nil {
		what = append(what, "set "+strings.Join(overrides, " ")+" on make's command line")
	}
	if len(files) > 0 {
		what = append(what, "remove "+flags+" from "+strings.Join(files, ", "))
	}
	if len(what) == 0 {
		return nil, "no " + flags + " found in the plan's go commands or the build files"
	}
	return &Fix{Analysis: why, Strategy: strings.Join(what, "; "), Actions: actions, Plan: plan}, ""
}

// goBuildFile reports whether a repository file is a Makefile or script the rule may
// edit.
func goBuildFile(p string) bool {
	base := path.Base(p)
	return base == "Makefile" || base == "makefile" || base == "GNUmakefile" ||
		strings.HasSuffix(base, ".mk") || strings.HasSuffix(base, ".mak") || strings.HasSuffix(base, ".sh")
}

// topMakefile is the Makefile make reads in the repository's top directory.
func topMakefile(ctx context.Context, env Env) string {
	for _, name := range makeDefaultFiles {
		if slices.Contains(env.Files, name) {
			return name
		}
		if env.Files == nil && env.ReadFile != nil {
			if _, err := env.ReadFile(ctx, name); err == nil {
				return name
			}
		}
	}
	return ""
}

// makeVarAssign is a Makefile variable assignment: NAME = value, :=, ::=, ?=, +=.
var makeVarAssign = re(`^[ \t]*(?:override[ \t]+|export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*(\?|\+|:{1,2}|!)?=[ \t]*(.*)$`)

// makeVarLine reports whether line assigns a Makefile variable whose value holds one of
// the flags.
func makeVarLine(line string, names []string) bool {
	m := makeVarAssign.FindStringSubmatch(line)
	if m == nil || strings.HasSuffix(m[3], `\`) || m[2] == "+" || m[2] == "!" {
		return false
	}
	_, d := DropGoSanitizers(" "+m[3], names)
	return len(d) > 0
}

// makeVarOverrides returns NAME=value (the value without the flags, quoted) for each
// variable a Makefile assigns the flags to. A command line setting beats every
// assignment in the Makefile, so the last assignment's value is the one to keep.
func makeVarOverrides(text string, names []string) []string {
	values := map[string]string{}
	var order []string
	for _, l := range strings.Split(text, "\n") {
		if !makeVarLine(strings.TrimSuffix(l, "\r"), names) {
			continue
		}
		m := makeVarAssign.FindStringSubmatch(strings.TrimSuffix(l, "\r"))
		v, _ := DropGoSanitizers(" "+m[3], names)
		if _, seen := values[m[1]]; !seen {
			order = append(order, m[1])
		}
		values[m[1]] = strings.TrimSpace(v)
	}
	var out []string
	for _, name := range order {
		v := values[name]
		if v == "" || plainArg.MatchString(v) {
			out = append(out, name+"="+v)
		} else {
			out = append(out, name+"="+shellQuote(v))
		}
	}
	return out
}

// withMakeOverrides adds the variable settings to every make command of the plan.
func withMakeOverrides(plan atesor.BuildPlan, overrides []string) *atesor.BuildPlan {
	plan.Phases = slices.Clone(plan.Phases)
	changed := false
	for i := range plan.Phases {
		cmds := slices.Clone(plan.Phases[i].Commands)
		for j, c := range cmds {
			if !makeCommand.MatchString(c) {
				continue
			}
			// A setting the line already has is not the one that failed.
			missing := slices.DeleteFunc(slices.Clone(overrides), func(o string) bool { return strings.Contains(c, " "+o) })
			if len(missing) == 0 {
				continue
			}
			cmds[j] = makeCommand.ReplaceAllString(c, "${1}${2} "+strings.Join(missing, " ")+"${3}")
			changed = true
		}
		plan.Phases[i].Commands = cmds
	}
	if !changed {
		return nil
	}
	return &plan
}

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

// Debian's +dfsg tarballs drop prebuilt binaries they cannot rebuild from the tarball
// alone, even where the build can: picotool 2.1.1+dfsg lacks xip_ram_perms.elf, which
// xip_ram_perms/CMakeLists.txt copies with configure_file() when USE_PRECOMPILED is on
// (its default) and builds from set_perms.c with the Pico SDK when it is off. The
// configure then stops at "File .../xip_ram_perms.elf does not exist.". A porter turns
// the switch off, so the build makes the file from its sources, as the repack expects.

const precompiledRuleName = "precompiled-stripped"

var (
	// fileMissing is CMake's report of a configure_file() or file() input that is not
	// there, with the call's place on the next line. Groups: the file, the CMake file,
	// its line.
	fileMissing = re(`CMake Error: File (/[^\s]+) does not exist\.\s*\nCMake Error at ([^\s:]+):(\d+) \((?:configure_file|file)\)`)
	// prebuiltSwitch is a variable named for using a prebuilt copy.
	prebuiltSwitch = re(`(?i)^[A-Z0-9_]*(?:PRECOMPILED|PREBUILT|PREBUILD)[A-Z0-9_]*$`)
	// buildsSomething are the commands that make a file from sources.
	buildsSomething = []string{"add_executable", "add_library", "add_custom_command", "add_custom_target", "externalproject_add"}
)

func precompiledRule() Rule {
	return Rule{
		Name: precompiledRuleName,
		Doc: "a repacked tarball without a prebuilt file its CMake copies when a PRECOMPILED switch is on (picotool's xip_ram_perms.elf): " +
			"turn the switch off, so that the build makes the file from its sources",
		Categories: []atesor.ErrorCategory{atesor.CategoryConfiguration, atesor.CategoryCompilation, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{fileMissing},
		Make:       makePrecompiledOff,
	}
}

func makePrecompiledOff(ctx context.Context, f Failure, env Env) (*Fix, string) {
	m := fileMissing.FindStringSubmatch(f.text())
	if m == nil {
		return nil, "no missing configure_file() input named"
	}
	if env.Plan == nil || env.ReadFile == nil || env.RepoDir == "" {
		return nil, "no build plan, tree or repository directory to look at"
	}
	rel, ok := strings.CutPrefix(path.Clean(m[1]), path.Clean(env.RepoDir)+"/")
	if !ok {
		return nil, m[1] + " is outside the source tree"
	}
	if slices.Contains(env.Files, rel) {
		return nil, rel + " is in the source tree, so it was not stripped"
	}
	line := 0
	fmt.Sscan(m[3], &line)
	// The error's CMake file is relative to the source directory of the project that
	// failed: a directory of the missing file or one above it (an ExternalProject's).
	var file string
	var cmds []cmakeCommand
	for dir := path.Dir(rel); ; dir = path.Dir(dir) {
		cand := path.Join(dir, m[2])
		if data, err := env.ReadFile(ctx, cand); err == nil {
			if c, err := parseCMake(string(data)); err == nil && callAt(c, line, path.Base(rel)) {
				file, cmds = cand, c
				break
			}
		}
		if dir == "." || dir == "/" {
			break
		}
	}
	if file == "" {
		return nil, fmt.Sprintf("no CMake file of the tree has the call at %s:%d that copies %s", m[2], line, path.Base(rel))
	}
	gate, value, ok := prebuiltGate(cmds, line)
	if !ok {
		return nil, fmt.Sprintf("the call at %s:%d that copies %s is not in a branch of a PRECOMPILED/PREBUILT switch whose other branch builds something", file, line, path.Base(rel))
	}
	kind, configures := planConfigureKind(*env.Plan, f.Phase)
	if !configures || kind.name != cmakeKind.name {
		return nil, "no cmake configure command in the plan to set " + gate + " on"
	}
	if file != "CMakeLists.txt" {
		// A subproject's switch reaches it only through the top level (picotool's
		// ExternalProject_Add passes -DUSE_PRECOMPILED:BOOL=${USE_PRECOMPILED}).
		top, err := env.ReadFile(ctx, "CMakeLists.txt")
		if err != nil || !containsWord(string(top), gate) {
			return nil, gate + " is a switch of " + file + " that the top-level CMakeLists.txt does not name, so the configure command cannot set it"
		}
	}
	sw := "-D" + gate + "=" + value
	plan, _ := withSwitches(*env.Plan, f.Phase, kind.command, []string{sw})
	if samePlan(plan, *env.Plan) {
		return nil, "the plan already configures with " + sw
	}
	return &Fix{
		Analysis: fmt.Sprintf("The tarball lacks %s, a prebuilt file that %s:%d copies when %s selects the prebuilt copy (a repack drops such binaries); "+
			"the other branch of that if() builds it from the tree's sources, so the port configures with %s.", rel, file, line, gate, sw),
		Strategy: "configure with " + sw + ", so that the build makes " + path.Base(rel) + " from its sources",
		Plan:     &plan,
	}, ""
}

// callAt reports whether the command at line is a configure_file() or file() call that
// names base.
func callAt(cmds []cmakeCommand, line int, base string) bool {
	for _, c := range cmds {
		if c.Line == line && (c.Name == "configure_file" || c.Name == "file") {
			return slices.ContainsFunc(c.Args, func(a cmakeArg) bool { return path.Base(a.Text) == base })
		}
	}
	return false
}

// ifBlock is an if() of a CMake file: the indexes of its if(), else() (-1: none) and
// endif() commands, and whether it has an elseif().
type ifBlock struct {
	at, elseAt, end int
	elseif          bool
}

// ifBlocks are the file's complete if() blocks.
func ifBlocks(cmds []cmakeCommand) []ifBlock {
	var open, done []ifBlock
	for i, c := range cmds {
		switch c.Name {
		case "if":
			open = append(open, ifBlock{at: i, elseAt: -1})
		case "elseif":
			if len(open) > 0 {
				open[len(open)-1].elseif = true
			}
		case "else":
			if len(open) > 0 {
				open[len(open)-1].elseAt = i
			}
		case "endif":
			if len(open) > 0 {
				b := open[len(open)-1]
				b.end, open = i, open[:len(open)-1]
				done = append(done, b)
			}
		}
	}
	return done
}

// prebuiltGate finds the innermost if() around the command at line whose condition
// is a prebuilt switch alone (VAR or NOT VAR), with an if and an else branch, the
// other of which builds something; it returns the switch and the value that takes
// that other branch.
func prebuiltGate(cmds []cmakeCommand, line int) (string, string, bool) {
	call := slices.IndexFunc(cmds, func(c cmakeCommand) bool { return c.Line == line })
	if call < 0 {
		return "", "", false
	}
	blocks := ifBlocks(cmds)
	// Innermost first: the block that starts last before the call.
	slices.SortFunc(blocks, func(a, b ifBlock) int { return b.at - a.at })
	for _, b := range blocks {
		if b.at >= call || b.end <= call || b.elseif || b.elseAt < 0 {
			continue
		}
		gate, negated, ok := switchCond(cmds[b.at].Args)
		if !ok {
			continue
		}
		inElse := call > b.elseAt
		from, to := b.elseAt+1, b.end // the other branch: the else branch ...
		if inElse {
			from, to = b.at+1, b.elseAt // ... or the if branch
		}
		if !slices.ContainsFunc(cmds[from:to], func(c cmakeCommand) bool { return slices.Contains(buildsSomething, c.Name) }) {
			return "", "", false
		}
		// The if branch is taken when the condition holds; NOT flips the switch.
		on := inElse != negated
		if on {
			return gate, "ON", true
		}
		return gate, "OFF", true
	}
	return "", "", false
}

// switchCond reads an if() condition that is a prebuilt switch alone: VAR or NOT VAR.
func switchCond(args []cmakeArg) (string, bool, bool) {
	words := slices.Clone(args)
	negated := false
	if len(words) == 2 && !words[0].Quoted && words[0].Text == "NOT" {
		negated, words = true, words[1:]
	}
	if len(words) != 1 || words[0].Quoted || !prebuiltSwitch.MatchString(words[0].Text) {
		return "", false, false
	}
	return words[0].Text, negated, true
}

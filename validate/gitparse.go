package validate

import (
	"strings"
	"sync"
)

// This file reads git command lines the way git itself does. git parses its options with
// its own code, not getopt: the options before the subcommand are matched exactly
// (git.c), while most subcommands use parse-options, which accepts any unambiguous
// prefix of a long option (--upload-pa for --upload-pack), the negation --no-<opt> and
// its prefixes, a value attached to a short option (-ccore.x=y), and options after
// operands up to "--". Rules then look only at canonical option names.

// gitKind says whether a git option takes a value.
type gitKind uint8

const (
	gitFlag     gitKind = iota
	gitValue            // --opt value, --opt=value, -ovalue, -o value
	gitOptional         // --opt=value or -ovalue only
)

type gitOption struct {
	name  string
	kind  gitKind
	noNeg bool
}

type gitShort struct {
	kind gitKind
	long string // the long option it stands for, "" when it has none
}

// gitTable is one subcommand's option table.
type gitTable struct {
	long  []gitOption
	short map[byte]gitShort
	subs  map[string]bool
	// exact is true for subcommands (shell scripts) that match options exactly.
	exact bool
}

// gitTableText is the compact form of a gitTable in gitTables.
type gitTableText struct {
	long, short, subs string
	exact             bool
}

var (
	gitTablesOnce sync.Once
	gitParsed     map[string]*gitTable
)

func parseGitTable(t gitTableText) *gitTable {
	g := &gitTable{short: map[byte]gitShort{}, subs: map[string]bool{}, exact: t.exact}
	for _, tok := range strings.Fields(t.long) {
		o := gitOption{}
		if strings.HasSuffix(tok, "!") {
			o.noNeg = true
			tok = strings.TrimSuffix(tok, "!")
		}
		switch {
		case strings.HasSuffix(tok, "="):
			o.kind = gitValue
		case strings.HasSuffix(tok, "?"):
			o.kind = gitOptional
		}
		o.name = strings.TrimRight(tok, "=?")
		g.long = append(g.long, o)
	}
	for _, tok := range strings.Fields(t.short) {
		if len(tok) < 2 {
			continue
		}
		s := gitShort{long: tok[2:]}
		switch tok[1] {
		case '=':
			s.kind = gitValue
		case '?':
			s.kind = gitOptional
		}
		g.short[tok[0]] = s
	}
	for _, s := range strings.Fields(t.subs) {
		g.subs[s] = true
	}
	return g
}

// gitTableFor returns the option table of a git subcommand; an unknown subcommand (an
// external git-<name> program) gets an empty table, whose options all count as flags.
func gitTableFor(sub string) *gitTable {
	gitTablesOnce.Do(func() {
		gitParsed = make(map[string]*gitTable, len(gitTables))
		for name, t := range gitTables {
			gitParsed[name] = parseGitTable(t)
		}
	})
	if t, ok := gitParsed[sub]; ok {
		return t
	}
	return &gitTable{short: map[byte]gitShort{}, subs: map[string]bool{}, exact: true}
}

// gitCandidate is one option a long option word may stand for.
type gitCandidate struct {
	opt   gitOption
	unset bool
}

// key is the canonical spelling of what the option means: "--upload-pack" when set,
// "--no-upload-pack" when negated (and "--checkout" for the negation of --no-checkout).
func (c gitCandidate) key() string {
	name := c.opt.name
	if c.unset {
		if rest, ok := strings.CutPrefix(name, "no-"); ok {
			return "--" + rest
		}
		return "--no-" + name
	}
	return "--" + name
}

// resolve finds the options a long option word (without the leading "--" and without
// "=value") stands for, with the rules of git's parse_long_opt: an exact match wins;
// otherwise every option it abbreviates, negated or not. More than one candidate means
// git refuses the word as ambiguous; the rules then treat it as each of them.
func (t *gitTable) resolve(word string) []gitCandidate {
	argStart, unsetWord, noNo := word, false, false
	if rest, ok := strings.CutPrefix(argStart, "no-"); ok {
		argStart = rest
		if rest2, ok := strings.CutPrefix(rest, "no-"); ok {
			argStart, noNo = rest2, true
		} else {
			unsetWord = true
		}
	}
	var abbrev []gitCandidate
	for _, o := range t.long {
		name, optUnset := o.name, false
		if rest, ok := strings.CutPrefix(name, "no-"); ok {
			name, optUnset = rest, true
		} else if noNo {
			continue
		}
		if unsetWord != optUnset && o.noNeg {
			continue
		}
		if argStart == name {
			return []gitCandidate{{opt: o, unset: unsetWord != optUnset}}
		}
		if t.exact {
			continue
		}
		if strings.HasPrefix(name, argStart) {
			abbrev = append(abbrev, gitCandidate{opt: o, unset: unsetWord != optUnset})
		}
		// "--n" and "--no" abbreviate the negation of every negatable option.
		if !o.noNeg && strings.HasPrefix("no-", word) {
			abbrev = append(abbrev, gitCandidate{opt: o, unset: !optUnset})
		}
	}
	return abbrev
}

// gitArgs are the options and operands of a git subcommand.
type gitArgs struct {
	// opts maps canonical option names (gitCandidate.key, "-x" for a short option
	// without a long name) to their values; a flag has one empty value.
	opts map[string][]arg
	// operands are the arguments that are not options, in order, including those
	// after "--".
	operands []arg
	// dynamicOption is an option word whose name is only known at run time.
	dynamicOption string
}

func (g gitArgs) has(names ...string) bool {
	for _, n := range names {
		if _, ok := g.opts[n]; ok {
			return true
		}
	}
	return false
}

func (g gitArgs) values(names ...string) []arg {
	var out []arg
	for _, n := range names {
		for _, v := range g.opts[n] {
			if v.val() != "" || v.dynamic {
				out = append(out, v)
			}
		}
	}
	return out
}

// parseGitArgs splits a subcommand's arguments with git's parse-options rules. Options
// may follow operands; "--" and "--end-of-options" end them.
func parseGitArgs(args []arg, t *gitTable) gitArgs {
	g := gitArgs{opts: map[string][]arg{}}
	add := func(k string, v arg) { g.opts[k] = append(g.opts[k], v) }
	flag := arg{alts: []string{""}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.val()
		switch {
		case v == "--" || v == "--end-of-options":
			g.operands = append(g.operands, args[i+1:]...)
			return g
		case strings.HasPrefix(v, dyn) || strings.HasPrefix(v, "-"+dyn) || strings.HasPrefix(v, "--") && strings.Contains(strings.SplitN(v, "=", 2)[0], dyn):
			// The word may be any option at run time.
			if g.dynamicOption == "" {
				g.dynamicOption = v
			}
			g.operands = append(g.operands, a)
		case strings.HasPrefix(v, "--") && len(v) > 2:
			name, val, hasVal := strings.Cut(v[2:], "=")
			cands := t.resolve(name)
			if len(cands) == 0 {
				// Not an option of the table: git refuses it, or it is a revision
				// or pass-through option read by exact match; a flag either way.
				add("--"+name, flag)
				continue
			}
			var value arg
			switch {
			case hasVal:
				value = arg{alts: []string{val}, dynamic: a.dynamic}
				for _, alt := range a.alts[1:] {
					if _, v2, ok := strings.Cut(alt, "="); ok {
						value.alts = append(value.alts, v2)
					}
				}
			case takesValue(cands) && i+1 < len(args):
				i++
				value = args[i]
			default:
				value = flag
			}
			for _, c := range cands {
				add(c.key(), value)
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			group := v[1:]
			if isDigits(group) {
				add("-"+group, flag) // -NUM, as in git log -3
				continue
			}
			for j := 0; j < len(group); j++ {
				s := t.short[group[j]]
				k := "-" + string(group[j])
				if s.long != "" {
					k = "--" + s.long
				}
				switch {
				case s.kind == gitFlag:
					add(k, flag)
					continue
				case j+1 < len(group):
					add(k, arg{alts: []string{group[j+1:]}, dynamic: a.dynamic})
				case s.kind == gitValue && i+1 < len(args):
					i++
					add(k, args[i])
				default:
					add(k, flag)
				}
				break
			}
		default:
			g.operands = append(g.operands, a)
		}
	}
	return g
}

func takesValue(cands []gitCandidate) bool {
	for _, c := range cands {
		if c.opt.kind == gitValue && !c.unset {
			return true
		}
	}
	return false
}

// gitTop are the options git.c reads before the subcommand, matched exactly.
var (
	gitTopValue = map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
		"--config-env": true, "--shallow-file": true, "--attr-source": true}
	gitTopAttached = []string{"--git-dir=", "--work-tree=", "--namespace=", "--config-env=", "--attr-source=", "--exec-path=", "--list-cmds="}
	gitTopFlag     = map[string]bool{"-p": true, "--paginate": true, "-P": true, "--no-pager": true, "--no-lazy-fetch": true,
		"--no-replace-objects": true, "--bare": true, "--literal-pathspecs": true, "--no-literal-pathspecs": true,
		"--glob-pathspecs": true, "--noglob-pathspecs": true, "--icase-pathspecs": true, "--no-optional-locks": true,
		"--no-advice": true, "--html-path": true, "--man-path": true, "--info-path": true}
)

// gitLine is a git command line: the options before the subcommand, the subcommand and
// its parsed arguments.
type gitLine struct {
	// top maps each option before the subcommand to its values, in order.
	top map[string][]arg
	// unknownTop is a top-level option git does not have (git refuses the line).
	unknownTop string
	sub        arg
	hasSub     bool
	args       gitArgs
}

// parseGit reads the arguments of git (without the program name).
func parseGit(args []arg) gitLine {
	l := gitLine{top: map[string][]arg{}}
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		v := a.val()
		if !strings.HasPrefix(v, "-") || a.dynamic && strings.HasPrefix(v, dyn) {
			break
		}
		switch {
		case v == "--help" || v == "-h":
			l.sub, l.hasSub = arg{alts: []string{"help"}}, true
			l.args = parseGitArgs(args[i+1:], gitTableFor("help"))
			return l
		case v == "--version" || v == "-v":
			l.sub, l.hasSub = arg{alts: []string{"version"}}, true
			l.args = parseGitArgs(args[i+1:], gitTableFor("version"))
			return l
		case gitTopValue[v]:
			if i+1 < len(args) {
				i++
				l.top[v] = append(l.top[v], args[i])
			} else {
				l.top[v] = append(l.top[v], arg{alts: []string{""}})
			}
			continue
		case gitTopFlag[v]:
			l.top[v] = append(l.top[v], arg{alts: []string{""}})
			continue
		case strings.HasPrefix(v, "--exec-path") && !strings.HasPrefix(v, "--exec-path="):
			// git prints its exec path and exits.
			l.top["--exec-path"] = append(l.top["--exec-path"], arg{alts: []string{""}})
			return l
		}
		matched := false
		for _, p := range gitTopAttached {
			if strings.HasPrefix(v, p) {
				name := strings.TrimSuffix(p, "=")
				val := arg{alts: []string{strings.TrimPrefix(v, p)}, dynamic: a.dynamic}
				for _, alt := range a.alts[1:] {
					val.alts = append(val.alts, strings.TrimPrefix(alt, p))
				}
				l.top[name] = append(l.top[name], val)
				matched = true
				break
			}
		}
		if !matched {
			l.unknownTop = v
			return l
		}
	}
	if i < len(args) {
		l.sub, l.hasSub = args[i], true
		l.args = parseGitArgs(args[i+1:], gitTableFor(args[i].val()))
	}
	return l
}

package validate

import (
	"slices"
	"sort"
	"strings"
)

// optSpec describes the options of a program the way its own parser reads them. Programs
// that use GNU getopt_long accept any unambiguous prefix of a long option (--ev for
// --eval), "--opt value" and "--opt=value", clustered short options (-xvf) and short
// options with an attached value (-CDIR); parseArgs resolves all of these, so rules
// look at canonical names only.
type optSpec struct {
	// short options (without "-") that take a value, as in "-t DIR" or "-tDIR".
	short string
	// long options (with "--") that take a value, as in "--target DIR" or "--target=DIR".
	long []string
	// flags are long options without a value. They are listed so that an abbreviation
	// resolves to the right option (--dir is --directory, not --dirty).
	flags []string
	// optLong are long options with an optional value, given only as --opt=value.
	optLong []string
	// optShort are short options with an optional value, given only attached (-i.bak).
	optShort string
	// exact is true for programs that do not accept abbreviated long options.
	exact bool
	// shortFlags are the short options without a value.
	shortFlags string
	// closed is true when the spec lists every option of the program: any other option
	// is recorded in parsedArgs.unknown (the program would refuse it, or the rules
	// cannot tell which words are values and which the command).
	closed bool
}

// resolveLong returns the canonical names a long option written as name stands for:
// itself when it is known exactly or unknown, the one option it abbreviates, or every
// option it abbreviates when it is ambiguous (the program then refuses it, so rules may
// treat it as any of them).
func (s optSpec) resolveLong(name string) []string {
	if s.known(name) || s.exact || len(name) <= 2 {
		return []string{name}
	}
	var out []string
	for _, list := range [][]string{s.long, s.flags, s.optLong} {
		for _, l := range list {
			if strings.HasPrefix(l, name) {
				out = append(out, l)
			}
		}
	}
	if len(out) == 0 {
		return []string{name}
	}
	sort.Strings(out)
	return out
}

func (s optSpec) known(name string) bool {
	return slices.Contains(s.long, name) || slices.Contains(s.flags, name) || slices.Contains(s.optLong, name)
}

// parsedArgs are the options and operands of a command line.
type parsedArgs struct {
	// opts maps an option ("-t", "--target") to its values ("" for a flag).
	opts map[string][]arg
	// flags holds every short flag letter seen and every long flag name.
	flags map[string]bool
	// operands are the arguments that are not options, in order.
	operands []arg
	// unknown holds options that are not in the spec (long ones, with "--").
	unknown []string
}

func (p parsedArgs) has(names ...string) bool {
	for _, n := range names {
		if p.flags[n] {
			return true
		}
		if _, ok := p.opts[n]; ok {
			return true
		}
	}
	return false
}

func (p parsedArgs) values(names ...string) []arg {
	var out []arg
	for _, n := range names {
		out = append(out, p.opts[n]...)
	}
	return out
}

// parseArgs splits GNU-style arguments. With stopAtOperand, everything after the first
// operand is an operand (programs such as sudo, env or git whose operand starts a new
// command line).
func parseArgs(args []arg, spec optSpec, stopAtOperand bool) parsedArgs {
	p := parsedArgs{opts: map[string][]arg{}, flags: map[string]bool{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.val()
		if len(p.operands) > 0 && stopAtOperand {
			p.operands = append(p.operands, a)
			continue
		}
		switch {
		case v == "--":
			p.operands = append(p.operands, args[i+1:]...)
			return p
		case strings.HasPrefix(v, "--") && len(v) > 2 && !strings.HasPrefix(v, "--"+dyn):
			name, val, hasVal := strings.Cut(v, "=")
			names := spec.resolveLong(name)
			if len(names) == 1 && !spec.known(names[0]) {
				p.unknown = append(p.unknown, names[0])
			}
			takes := false
			for _, n := range names {
				if slices.Contains(spec.long, n) {
					takes = true
				}
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
			case takes && i+1 < len(args):
				value = args[i+1]
				i++
			default:
				for _, n := range names {
					p.flags[n] = true
				}
				continue
			}
			for _, n := range names {
				p.opts[n] = append(p.opts[n], value)
			}
		case strings.HasPrefix(v, "-") && len(v) > 1 && !strings.HasPrefix(v, "-"+dyn):
			group := v[1:]
			for j := 0; j < len(group); j++ {
				ch := string(group[j])
				if strings.Contains(spec.short, ch) {
					if j+1 < len(group) {
						p.opts["-"+ch] = append(p.opts["-"+ch], arg{alts: []string{group[j+1:]}, dynamic: a.dynamic})
					} else if i+1 < len(args) {
						p.opts["-"+ch] = append(p.opts["-"+ch], args[i+1])
						i++
					} else {
						p.opts["-"+ch] = append(p.opts["-"+ch], arg{alts: []string{""}})
					}
					break
				}
				if spec.closed && !strings.Contains(spec.shortFlags, ch) && !strings.Contains(spec.optShort, ch) {
					p.unknown = append(p.unknown, "-"+ch)
				}
				if strings.Contains(spec.optShort, ch) {
					p.flags[ch] = true
					if j+1 < len(group) {
						p.opts["-"+ch] = append(p.opts["-"+ch], arg{alts: []string{group[j+1:]}, dynamic: a.dynamic})
					}
					break
				}
				p.flags[ch] = true
			}
		default:
			p.operands = append(p.operands, a)
		}
	}
	return p
}

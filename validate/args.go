package validate

import "strings"

// optSpec describes the options of a program: which take a separate value.
type optSpec struct {
	// short options (without "-") that take a value, as in "-t DIR" or "-tDIR".
	short string
	// long options (with "--") that take a value, as in "--target DIR" or "--target=DIR".
	long []string
}

func (s optSpec) longTakes(name string) bool {
	for _, l := range s.long {
		if l == name {
			return true
		}
	}
	return false
}

// parsedArgs are the options and operands of a command line.
type parsedArgs struct {
	// opts maps an option ("-t", "--target") to its values ("" for a flag).
	opts map[string][]arg
	// flags holds every short flag letter seen and every long flag name.
	flags map[string]bool
	// operands are the arguments that are not options, in order.
	operands []arg
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
		case strings.HasPrefix(v, "--") && !a.dynamic:
			name, val, hasVal := strings.Cut(v, "=")
			switch {
			case hasVal:
				p.opts[name] = append(p.opts[name], arg{alts: []string{val}})
			case spec.longTakes(name) && i+1 < len(args):
				p.opts[name] = append(p.opts[name], args[i+1])
				i++
			default:
				p.flags[name] = true
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
				p.flags[ch] = true
			}
		default:
			p.operands = append(p.operands, a)
		}
	}
	return p
}

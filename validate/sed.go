package validate

import "strings"

// sedCall is what a sed command line does.
type sedCall struct {
	scripts    []arg
	scriptFile bool
	inPlace    bool
	files      []arg
}

func parseSed(args []arg) sedCall {
	var s sedCall
	var operands []arg
	haveScript := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.val()
		switch {
		case v == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(v, "--"):
			name, val, hasVal := strings.Cut(v, "=")
			switch name {
			case "--expression", "--file":
				if !hasVal && i+1 < len(args) {
					i++
					val = args[i].val()
				}
				haveScript = true
				if name == "--file" {
					s.scriptFile = true
				} else {
					s.scripts = append(s.scripts, arg{alts: []string{val}, dynamic: a.dynamic})
				}
			case "--in-place":
				s.inPlace = true
			case "--line-length":
				if !hasVal {
					i++
				}
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			group := v[1:]
			for j := 0; j < len(group); j++ {
				ch := group[j]
				if ch == 'i' {
					s.inPlace = true
					break
				}
				if ch == 'e' || ch == 'f' || ch == 'l' {
					val := group[j+1:]
					dynamic := a.dynamic
					if val == "" && i+1 < len(args) {
						i++
						val = args[i].val()
						dynamic = args[i].dynamic
					}
					if ch != 'l' {
						haveScript = true
					}
					if ch == 'e' {
						s.scripts = append(s.scripts, arg{alts: []string{val}, dynamic: dynamic})
					}
					if ch == 'f' {
						s.scriptFile = true
					}
					break
				}
			}
		default:
			operands = append(operands, a)
		}
	}
	if !haveScript && len(operands) > 0 {
		s.scripts = append(s.scripts, operands[0])
		operands = operands[1:]
	}
	s.files = operands
	return s
}

// sedScriptProblem scans a sed script for commands that run programs (e, s///e) and
// returns the files it writes (w, W, s///w). A script it cannot read is a problem.
func sedScriptProblem(script string) (execs bool, writes []string, bad string) {
	s := script
	i := 0
	skipSpace := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ';' || s[i] == '\n') {
			i++
		}
	}
	readDelimited := func(delim byte) bool {
		for i < len(s) {
			switch s[i] {
			case '\\':
				i += 2
				continue
			case delim:
				i++
				return true
			case '\n':
				if delim != '\n' {
					return false
				}
			}
			i++
		}
		return false
	}
	restOfLine := func() string {
		start := i
		for i < len(s) && s[i] != '\n' {
			i++
		}
		return strings.TrimSpace(s[start:i])
	}
	for guard := 0; guard < 10000; guard++ {
		skipSpace()
		if i >= len(s) {
			return execs, writes, ""
		}
		// Addresses.
		for k := 0; k < 2 && i < len(s); k++ {
			switch {
			case s[i] >= '0' && s[i] <= '9':
				for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
					i++
				}
			case s[i] == '$':
				i++
			case s[i] == '/':
				i++
				if !readDelimited('/') {
					return execs, writes, "an unterminated address"
				}
			case s[i] == '\\' && i+1 < len(s):
				d := s[i+1]
				i += 2
				if !readDelimited(d) {
					return execs, writes, "an unterminated address"
				}
			}
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
			if i < len(s) && (s[i] == ',' || s[i] == '+' || s[i] == '~') && k == 0 {
				i++
				continue
			}
			break
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '!') {
			i++
		}
		if i >= len(s) {
			return execs, writes, "an address without a command"
		}
		cmd := s[i]
		i++
		switch cmd {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'l', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'q', 'Q', 'L':
			for i < len(s) && (s[i] == ' ' || s[i] >= '0' && s[i] <= '9') {
				i++
			}
		case ':', 'b', 't', 'T':
			for i < len(s) && s[i] != ';' && s[i] != '\n' {
				i++
			}
		case 'a', 'i', 'c':
			for i < len(s) && s[i] != '\n' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		case 'r', 'R':
			restOfLine()
		case 'w', 'W':
			writes = append(writes, restOfLine())
		case 'e':
			execs = true
			restOfLine()
		case 's', 'y':
			if i >= len(s) || s[i] == '\n' || s[i] == '\\' {
				return execs, writes, "a bad delimiter"
			}
			d := s[i]
			i++
			if !readDelimited(d) || !readDelimited(d) {
				return execs, writes, "an unterminated " + string(cmd) + " command"
			}
			if cmd == 'y' {
				continue
			}
			for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
				switch f := s[i]; {
				case f == 'e':
					execs = true
					i++
				case f == 'w':
					i++
					writes = append(writes, restOfLine())
				case f == 'g' || f == 'p' || f == 'i' || f == 'I' || f == 'm' || f == 'M' || f == ' ' || f >= '0' && f <= '9':
					i++
				default:
					return execs, writes, "an unknown s flag " + string(f)
				}
			}
		case '#':
			restOfLine()
		default:
			return execs, writes, "an unknown command " + string(cmd)
		}
	}
	return execs, writes, "a script too long to check"
}

func denySed(c call, args []arg, strict bool) error {
	sc := parseSed(args)
	for _, scr := range sc.scripts {
		if scr.dynamic {
			if strict {
				return reject(ruleArgs, c.text(), "the sed script is only known at run time", "write the sed script literally in single quotes")
			}
			continue
		}
		execs, writes, bad := sedScriptProblem(scr.val())
		if execs {
			return reject(ruleDenied, c.text(), "the sed script runs a shell command (e)", "edit text only, without the e command or flag")
		}
		if bad != "" && strict {
			return reject(ruleArgs, c.text(), "the sed script has "+bad, "write a simple s/old/new/ script in single quotes")
		}
		for _, w := range writes {
			if strict && w != "/dev/stdout" {
				return reject(ruleArgs, c.text(), "the sed script writes a file (w)", "use sed -i on the file itself")
			}
			if isSystemPath(w, strict) {
				return reject(ruleSystemWrite, c.text(), "the sed script writes to "+w, insteadSystem)
			}
		}
	}
	if sc.inPlace {
		return checkWrites(c, sc.files, strict)
	}
	return nil
}

package validate

import "strings"

// sedCall is what a sed command line does.
type sedCall struct {
	scripts    []arg
	scriptFile bool
	inPlace    bool
	files      []arg
	// unknown is an option GNU sed does not have (sed then refuses to run).
	unknown string
}

// sedSpec is GNU sed's option table (sed --help).
var sedSpec = optSpec{
	short:      "efl",
	long:       []string{"--expression", "--file", "--line-length"},
	optShort:   "i",
	optLong:    []string{"--in-place"},
	shortFlags: "nrszuEb",
	closed:     true,
	flags: []string{"--quiet", "--silent", "--debug", "--posix", "--regexp-extended", "--separate",
		"--sandbox", "--unbuffered", "--null-data", "--zero-terminated", "--follow-symlinks",
		"--binary", "--help", "--version"},
}

func parseSed(args []arg) sedCall {
	var s sedCall
	pa := parseArgs(args, sedSpec, false)
	if len(pa.unknown) > 0 {
		s.unknown = pa.unknown[0]
	}
	s.scripts = pa.values("-e", "--expression")
	s.scriptFile = pa.has("-f", "--file")
	s.inPlace = pa.has("i", "--in-place")
	ops := pa.operands
	if len(s.scripts) == 0 && !s.scriptFile && len(ops) > 0 {
		s.scripts = append(s.scripts, ops[0])
		ops = ops[1:]
	}
	s.files = ops
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
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'q', 'Q', 'L', 'l':
			for i < len(s) && (s[i] == ' ' || s[i] >= '0' && s[i] <= '9') {
				i++
			}
		case ':', 'b', 't', 'T', 'v':
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
			// Two delimited parts follow: the pattern, then the replacement (or, for y,
			// the second character list).
			if pattern := readDelimited(d); !pattern || !readDelimited(d) {
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
	if sc.unknown != "" {
		return reject(ruleArgs, c.text(), "sed has no option "+sc.unknown, "use sed -i -e 's/old/new/' <file>")
	}
	for _, scr := range sc.scripts {
		if !scr.static() {
			return reject(ruleArgs, c.text(), "the sed script is only known at run time, so what it runs or writes cannot be checked", "write the sed script literally in single quotes")
		}
		execs, writes, bad := sedScriptProblem(scr.val())
		if execs {
			return reject(ruleDenied, c.text(), "the sed script runs a shell command (e)", "edit text only, without the e command or flag")
		}
		if bad != "" {
			return reject(ruleArgs, c.text(), "the sed script has "+bad+", which the rules cannot read", "write a simple s/old/new/ script in single quotes")
		}
		for _, w := range writes {
			if strict && w != "/dev/stdout" {
				return reject(ruleArgs, c.text(), "the sed script writes a file (w)", "use sed -i on the file itself")
			}
			if isSystemPath(w, strict) {
				return reject(ruleSystemWrite, c.text(), "the sed script writes to "+w, insteadSystem)
			}
			c.recordWrite(w)
		}
	}
	if sc.inPlace {
		return checkWrites(c, sc.files, strict)
	}
	return nil
}

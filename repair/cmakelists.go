package repair

import (
	"errors"
	"fmt"
	"strings"
)

// Bounds of the CMake reader. A CMakeLists.txt comes from the package, so it is
// untrusted text: real ones are under 200 KiB with a few thousand commands and ifs
// nested a few levels deep; anything far beyond is refused rather than read.
const (
	maxCMakeBytes    = 2 << 20
	maxCMakeCommands = 50000
	maxCMakeArgs     = 200000  // all commands' arguments together
	maxCMakeNesting  = 64      // if() blocks, and parentheses inside one command
	maxCMakeBranches = 256     // elseif()s of one if()
	maxCMakeGuards   = 1 << 19 // the guards of all commands together
	// maxGuardsLooked bounds the enclosing blocks, innermost first, in which a gating
	// option is looked for: real gates are a few levels up.
	maxGuardsLooked = 32
)

// errCMakeBounds is a CMake file beyond the reader's bounds.
var errCMakeBounds = errors.New("CMake file beyond the reader's bounds")

// cmakeArg is one argument of a CMake command as written: the text without quotes or
// brackets (escapes of quoted arguments resolved, variable references kept), and
// whether it was quoted or bracketed, which makes it one argument that never names a
// variable in an if().
type cmakeArg struct {
	Text   string
	Quoted bool
}

// cmakeCommand is one command invocation: its name in lower case (CMake's command
// names are case-insensitive), its arguments, and the line it starts on.
type cmakeCommand struct {
	Name string
	Args []cmakeArg
	Line int
}

// parseCMake reads the command invocations of a CMake file: line and bracket comments
// skipped, quoted, bracket and unquoted arguments, and the parentheses nested inside
// an argument list kept as "(" and ")" arguments (an if() groups with them). It reads
// the language's syntax, not its meaning: nothing is evaluated. Text that is not a
// command (stray bytes, an unterminated argument at the end) ends the file there; the
// commands before it are returned.
func parseCMake(src string) ([]cmakeCommand, error) {
	if len(src) > maxCMakeBytes {
		return nil, fmt.Errorf("%w: %d bytes (at most %d)", errCMakeBounds, len(src), maxCMakeBytes)
	}
	p := cmakeParser{src: src, line: 1}
	var out []cmakeCommand
	nargs := 0
	for {
		p.skipSpaceAndComments()
		if p.pos >= len(p.src) {
			return out, nil
		}
		cmd, ok := p.command()
		if !ok {
			return out, nil
		}
		nargs += len(cmd.Args)
		if len(out) == maxCMakeCommands || nargs > maxCMakeArgs || p.tooDeep {
			return nil, fmt.Errorf("%w: more than %d commands, %d arguments or %d nested parentheses",
				errCMakeBounds, maxCMakeCommands, maxCMakeArgs, maxCMakeNesting)
		}
		out = append(out, cmd)
	}
}

type cmakeParser struct {
	src     string
	pos     int
	line    int
	tooDeep bool
	// unclosed[n] is the earliest offset from which no closing bracket with n equals
	// signs follows: a search that failed is not repeated for every later "[[", which
	// would make a file of unclosed brackets quadratic.
	unclosed map[int]int
}

func (p *cmakeParser) advance(n int) {
	p.line += strings.Count(p.src[p.pos:p.pos+n], "\n")
	p.pos += n
}

// skipSpaceAndComments skips whitespace, line comments and bracket comments.
func (p *cmakeParser) skipSpaceAndComments() {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			p.advance(1)
		case c == '#':
			if n, ok := p.bracketLen(p.pos + 1); ok {
				p.advance(1 + n)
				continue
			}
			end := strings.IndexByte(p.src[p.pos:], '\n')
			if end < 0 {
				end = len(p.src) - p.pos
			}
			p.advance(end)
		default:
			return
		}
	}
}

// bracketLen returns the length of a bracket construct [==[ ... ]==] at offset at,
// and false when none starts there or it is not closed.
func (p *cmakeParser) bracketLen(at int) (int, bool) {
	s := p.src[at:]
	if !strings.HasPrefix(s, "[") {
		return 0, false
	}
	eq := 0
	for 1+eq < len(s) && s[1+eq] == '=' {
		eq++
	}
	if 1+eq >= len(s) || s[1+eq] != '[' {
		return 0, false
	}
	body := at + 2 + eq
	if from, ok := p.unclosed[eq]; ok && body >= from {
		return 0, false
	}
	closing := "]" + strings.Repeat("=", eq) + "]"
	end := strings.Index(p.src[body:], closing)
	if end < 0 {
		if p.unclosed == nil {
			p.unclosed = map[int]int{}
		}
		p.unclosed[eq] = body
		return 0, false
	}
	return 2 + eq + end + len(closing), true
}

func isIdentByte(c byte, first bool) bool {
	return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (!first && c >= '0' && c <= '9')
}

// command reads one command invocation at p.pos.
func (p *cmakeParser) command() (cmakeCommand, bool) {
	start := p.pos
	for p.pos < len(p.src) && isIdentByte(p.src[p.pos], p.pos == start) {
		p.pos++
	}
	if p.pos == start {
		return cmakeCommand{}, false
	}
	cmd := cmakeCommand{Name: strings.ToLower(p.src[start:p.pos]), Line: p.line}
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
	if p.pos >= len(p.src) || p.src[p.pos] != '(' {
		return cmakeCommand{}, false
	}
	p.advance(1)
	depth := 0
	for {
		p.skipSpaceAndComments()
		if p.pos >= len(p.src) {
			return cmakeCommand{}, false
		}
		switch c := p.src[p.pos]; c {
		case ')':
			p.advance(1)
			if depth == 0 {
				return cmd, true
			}
			depth--
			cmd.Args = append(cmd.Args, cmakeArg{Text: ")"})
		case '(':
			p.advance(1)
			if depth++; depth > maxCMakeNesting {
				p.tooDeep = true
				return cmd, true
			}
			cmd.Args = append(cmd.Args, cmakeArg{Text: "("})
		case '"':
			text, ok := p.quoted()
			if !ok {
				return cmakeCommand{}, false
			}
			cmd.Args = append(cmd.Args, cmakeArg{Text: text, Quoted: true})
		case '[':
			if n, ok := p.bracketLen(p.pos); ok {
				body := p.src[p.pos : p.pos+n]
				open := strings.IndexByte(body[1:], '[') + 2
				text := body[open : n-open]
				text = strings.TrimPrefix(strings.TrimPrefix(text, "\r"), "\n")
				p.advance(n)
				cmd.Args = append(cmd.Args, cmakeArg{Text: text, Quoted: true})
				continue
			}
			cmd.Args = append(cmd.Args, cmakeArg{Text: p.unquoted()})
		default:
			cmd.Args = append(cmd.Args, cmakeArg{Text: p.unquoted()})
		}
	}
}

// quoted reads a quoted argument: \" \\ \n \t \r and \; escapes resolved, a backslash
// before a newline continues the line, other escapes kept as written.
func (p *cmakeParser) quoted() (string, bool) {
	var b strings.Builder
	i := p.pos + 1
	for i < len(p.src) {
		c := p.src[i]
		switch {
		case c == '"':
			p.advance(i + 1 - p.pos)
			return b.String(), true
		case c == '\\' && i+1 < len(p.src):
			switch n := p.src[i+1]; n {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '\n':
			case '"', '\\', ';', '$', '@', '(', ')', '#', ' ':
				b.WriteByte(n)
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", false
}

// unquoted reads an unquoted argument: up to whitespace, a parenthesis, a quote or a
// comment, with backslash escapes kept as written. It always consumes at least one
// byte, so stray bytes cannot stall the reader.
func (p *cmakeParser) unquoted() string {
	start := p.pos
	i := p.pos
	for i < len(p.src) {
		c := p.src[i]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '(' || c == ')' || c == '#' || (c == '"' && i > start) {
			break
		}
		if c == '\\' && i+1 < len(p.src) {
			i += 2
			continue
		}
		i++
	}
	if i == start {
		i++
	}
	p.advance(i - start)
	return p.src[start:i]
}

package repair

import (
	"fmt"
	"slices"
	"strings"
)

// defineLine is a template's #cmakedefine, #cmakedefine01 or #mesondefine line: the
// text before the keyword, the keyword, the variable and the rest of the line.
var defineLine = re(`^([ \t]*#[ \t]*)(cmakedefine01|cmakedefine|mesondefine)[ \t]+([A-Za-z_][A-Za-z0-9_]*)(.*)$`)

// The lexical states of C text that decide whether an empty substitution is harmless.
const (
	cCode = iota
	cString
	cChar
	cLineComment
	cBlockComment
)

// renderTemplate does configure_file's substitutions on a header template: @VAR@, and
// ${VAR} too when cmake is true (meson's configure_file leaves ${...} alone);
// #cmakedefine VAR becomes #define VAR when VAR is true and /* #undef VAR */ otherwise,
// #cmakedefine01 VAR #define VAR 1 or 0, #mesondefine VAR #define VAR value or
// /* #undef VAR */. A variable missing from vals is empty, which is harmless inside a
// string literal or a comment; outside them it is refused: an empty token there would
// not compile or would change what the code means. used are the variables the template
// refers to, first use first; why says why no header is made.
func renderTemplate(file, src string, vals map[string]string, cmake bool) (out string, used []string, why string) {
	use := func(n string) {
		if !slices.Contains(used, n) {
			used = append(used, n)
		}
	}
	var b strings.Builder
	inBlock := false
	for i, line := range strings.SplitAfter(src, "\n") {
		body := strings.TrimRight(line, "\r\n")
		eol := line[len(body):]
		if m := defineLine.FindStringSubmatch(body); m != nil && !inBlock {
			name := m[3]
			use(name)
			v, known := vals[name]
			switch m[2] {
			case "cmakedefine01":
				d := "0"
				if known && cmakeTrue(v) {
					d = "1"
				}
				b.WriteString(m[1] + "define " + name + " " + d + eol)
				continue
			case "mesondefine":
				if known {
					b.WriteString(m[1] + "define " + name + " " + v + eol)
				} else {
					b.WriteString("/* #undef " + name + " */" + eol)
				}
				continue
			}
			if !known || !cmakeTrue(v) {
				b.WriteString("/* #undef " + name + " */" + eol)
				continue
			}
			rest, _, why := substLine(file, i+1, m[4], false, vals, cmake, use)
			if why != "" {
				return "", nil, why
			}
			b.WriteString(m[1] + "define " + name + rest + eol)
			continue
		}
		s, block, why := substLine(file, i+1, body, inBlock, vals, cmake, use)
		if why != "" {
			return "", nil, why
		}
		inBlock = block
		b.WriteString(s + eol)
	}
	return b.String(), used, ""
}

// cmakeTrue is if(VAR)'s truth of a variable's value: anything but CMake's false
// constants.
func cmakeTrue(v string) bool {
	val, ok := cmakeConst(v)
	return !ok || val
}

// substLine substitutes one line of C text that starts inside a block comment when
// inBlock is true, and reports whether it ends inside one.
func substLine(file string, n int, line string, inBlock bool, vals map[string]string, cmake bool, use func(string)) (string, bool, string) {
	state := cCode
	if inBlock {
		state = cBlockComment
	}
	var b strings.Builder
	for i := 0; i < len(line); {
		if tok, name := substToken(line[i:], cmake); tok != "" {
			use(name)
			v, known := vals[name]
			if !known && (state == cCode || state == cChar) {
				return "", false, fmt.Sprintf("%s:%d: %s sits outside a string literal and has no value a tarball build knows (empty, it would not compile or would change the code's meaning)", file, n, tok)
			}
			b.WriteString(v)
			i += len(tok)
			continue
		}
		c := line[i]
		two := ""
		if i+1 < len(line) {
			two = line[i : i+2]
		}
		switch {
		case state == cCode && c == '"':
			state = cString
		case state == cCode && c == '\'':
			state = cChar
		case state == cCode && two == "//":
			state = cLineComment
		case state == cCode && two == "/*":
			state = cBlockComment
			b.WriteString(two)
			i += 2
			continue
		case state == cBlockComment && two == "*/":
			state = cCode
			b.WriteString(two)
			i += 2
			continue
		case (state == cString || state == cChar) && c == '\\' && two != "":
			b.WriteString(two)
			i += 2
			continue
		case state == cString && c == '"', state == cChar && c == '\'':
			state = cCode
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), state == cBlockComment, ""
}

// substToken is the substitution s starts with, @VAR@ or (cmake) ${VAR}, and its
// variable; "" when it starts with none.
func substToken(s string, cmake bool) (tok, name string) {
	switch {
	case strings.HasPrefix(s, "@"):
		end := 1
		for end < len(s) && (s[end] == '_' || s[end] >= 'A' && s[end] <= 'Z' || s[end] >= 'a' && s[end] <= 'z' || end > 1 && s[end] >= '0' && s[end] <= '9') {
			end++
		}
		if end > 1 && end < len(s) && s[end] == '@' {
			return s[:end+1], s[1:end]
		}
	case cmake && strings.HasPrefix(s, "${"):
		if end := strings.IndexByte(s, '}'); end > 2 && cmakeVarName.MatchString(s[2:end]) {
			return s[:end+1], s[2:end]
		}
	}
	return "", ""
}

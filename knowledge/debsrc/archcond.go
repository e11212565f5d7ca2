package debsrc

import "strings"

// debian/rules often sets switches for one architecture only (highway's
// -DHWY_CMAKE_ARM7:BOOL=ON inside "ifeq ($(DEB_HOST_ARCH),$(filter $(DEB_HOST_ARCH),armhf))").
// Reading every branch hands such a switch to a riscv64 build, which then passes
// ARM-only compiler flags. The conditionals that test only the architecture are
// therefore evaluated with the facts of the port's target, a native riscv64 build;
// every other conditional (DEB_BUILD_OPTIONS, ifdef, a variable of the file's own) is
// still read in all its branches.

// targetArch are dpkg-architecture's values on the port's target: a native Debian
// riscv64 build, so the build machine's values are the host's.
var targetArch = func() map[string]string {
	host := map[string]string{
		"ARCH": "riscv64", "ARCH_CPU": "riscv64", "ARCH_BITS": "64", "ARCH_ENDIAN": "little",
		"ARCH_OS": "linux", "ARCH_ABI": "base", "ARCH_LIBC": "gnu",
		"GNU_CPU": "riscv64", "GNU_SYSTEM": "linux-gnu", "GNU_TYPE": "riscv64-linux-gnu",
		"MULTIARCH": "riscv64-linux-gnu",
	}
	out := map[string]string{}
	for k, v := range host {
		out["DEB_HOST_"+k], out["DEB_BUILD_"+k], out["DEB_TARGET_"+k] = v, v, v
	}
	return out
}()

// maxCondDepth bounds the nesting of conditionals followed, and maxCondSteps the
// function calls one condition's evaluation takes.
const (
	maxCondDepth = 32
	maxCondSteps = 32
)

// condFrame is one open conditional: whether its enclosing text is read, and whether
// a branch already known true was seen (later branches are then not read); unknown
// says a branch's condition could not be evaluated, so every later one is read too.
type condFrame struct {
	parent, taken, unknown, active bool
}

// activeLines reports, for each logical line, whether it lies in a branch a riscv64
// build reads. Directive lines themselves are reported inactive: they assign nothing.
func activeLines(lines []string) []bool {
	out := make([]bool, len(lines))
	var stack []condFrame
	active := true
	for i, l := range lines {
		if strings.HasPrefix(l, "\t") {
			out[i] = active
			continue
		}
		t := strings.TrimSpace(stripComment(l))
		kw, rest, _ := strings.Cut(t, " ")
		switch kw {
		case "ifeq", "ifneq", "ifdef", "ifndef":
			if len(stack) >= maxCondDepth {
				return out // too deep to follow: what is left is not read
			}
			f := condFrame{parent: active}
			f.open(kw, rest)
			stack = append(stack, f)
			active = f.active
		case "else":
			if len(stack) == 0 {
				continue
			}
			f := &stack[len(stack)-1]
			kw2, rest2, _ := strings.Cut(strings.TrimSpace(rest), " ")
			f.next(kw2, rest2)
			active = f.active
		case "endif":
			if len(stack) == 0 {
				continue
			}
			active = stack[len(stack)-1].parent
			stack = stack[:len(stack)-1]
		default:
			out[i] = active
		}
	}
	return out
}

// open starts a conditional with its first branch.
func (f *condFrame) open(kw, cond string) {
	v, known := evalCond(kw, cond)
	f.unknown = !known
	f.taken = known && v
	f.active = f.parent && (!known || v)
}

// next moves to an else branch, "else" alone (kw empty) or "else ifeq ...".
func (f *condFrame) next(kw, cond string) {
	switch {
	case f.taken:
		f.active = false
	case kw == "":
		f.active = f.parent
		f.taken = !f.unknown
	default:
		v, known := evalCond(kw, cond)
		f.active = f.parent && (f.unknown || !known || v)
		f.taken = !f.unknown && known && v
		f.unknown = f.unknown || !known
	}
}

// evalCond evaluates an ifeq or ifneq condition, "(a,b)", "'a' 'b'" or "\"a\" \"b\"",
// when both sides expand with the target's architecture facts alone.
func evalCond(kw, cond string) (value, known bool) {
	if kw != "ifeq" && kw != "ifneq" {
		return false, false
	}
	a, b, ok := condArgs(strings.TrimSpace(cond))
	if !ok {
		return false, false
	}
	ea, oka := evalArch(a)
	eb, okb := evalArch(b)
	if !oka || !okb {
		return false, false
	}
	eq := strings.TrimSpace(ea) == strings.TrimSpace(eb)
	return eq == (kw == "ifeq"), true
}

// condArgs splits a condition's two arguments.
func condArgs(c string) (a, b string, ok bool) {
	if strings.HasPrefix(c, "(") && strings.HasSuffix(c, ")") {
		in := c[1 : len(c)-1]
		depth := 0
		for i := 0; i < len(in); i++ {
			switch in[i] {
			case '(':
				depth++
			case ')':
				depth--
			case ',':
				if depth == 0 {
					return in[:i], in[i+1:], true
				}
			}
		}
		return "", "", false
	}
	var args []string
	for len(c) > 0 && len(args) < 3 {
		q := c[0]
		if q != '"' && q != '\'' {
			return "", "", false
		}
		end := strings.IndexByte(c[1:], q)
		if end < 0 {
			return "", "", false
		}
		args = append(args, c[1:1+end])
		c = strings.TrimSpace(c[2+end:])
	}
	if len(args) != 2 {
		return "", "", false
	}
	return args[0], args[1], true
}

// evalArch expands s when every reference in it is an architecture variable or a
// filter, filter-out, findstring or strip call over such text; false otherwise.
func evalArch(s string) (string, bool) {
	s = varRef.ReplaceAllStringFunc(s, func(ref string) string {
		if v, ok := targetArch[varRef.FindStringSubmatch(ref)[1]]; ok {
			return v
		}
		return ref
	})
	for range maxCondSteps {
		i := strings.LastIndex(s, "$(")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], ')')
		if j < 0 {
			return "", false
		}
		v, ok := makeFunc(s[i+2 : i+j])
		if !ok {
			return "", false
		}
		s = s[:i] + v + s[i+j+1:]
	}
	if strings.Contains(s, "$") {
		return "", false
	}
	return s, true
}

// makeFunc evaluates the text functions an architecture test uses.
func makeFunc(call string) (string, bool) {
	name, args, _ := strings.Cut(call, " ")
	first, second, two := strings.Cut(args, ",")
	switch name {
	case "strip":
		return strings.Join(strings.Fields(args), " "), true
	case "findstring":
		if !two {
			return "", false
		}
		if strings.Contains(second, strings.TrimSpace(first)) {
			return strings.TrimSpace(first), true
		}
		return "", true
	case "filter", "filter-out":
		if !two {
			return "", false
		}
		var out []string
		for _, w := range strings.Fields(second) {
			match := false
			for _, p := range strings.Fields(first) {
				match = match || patternMatch(p, w)
			}
			if match == (name == "filter") {
				out = append(out, w)
			}
		}
		return strings.Join(out, " "), true
	}
	return "", false
}

// patternMatch is make's % pattern: one % matches any text, none is equality.
func patternMatch(p, w string) bool {
	pre, suf, ok := strings.Cut(p, "%")
	if !ok {
		return p == w
	}
	return len(w) >= len(pre)+len(suf) && strings.HasPrefix(w, pre) && strings.HasSuffix(w, suf)
}

package repair

import (
	"regexp"
	"slices"
	"strings"
)

// maxCondArgs bounds the arguments of one if() the reader looks into; real conditions
// have a few, and a longer one is unknown rather than a deep tree.
const maxCondArgs = 64

// condExpr is an if() condition read into a tree: enough of CMake's grammar (NOT, AND,
// OR, parentheses, unary and binary tests) to tell which variables decide it. Tests the
// reader does not evaluate (EXISTS, STREQUAL, MATCHES, VERSION_LESS, ...) are unknown.
type condExpr struct {
	op   string // "var", "const", "target", "unknown", "not", "and", "or"
	name string // the variable or target of a var or target leaf
	val  bool   // a const leaf's value
	kids []*condExpr
}

// tri is a three-valued truth: a condition whose variables are not all known is unknown.
type tri int8

const (
	triUnknown tri = iota
	triFalse
	triTrue
)

func triOf(b bool) tri {
	if b {
		return triTrue
	}
	return triFalse
}

var (
	cmakeVarRef  = regexp.MustCompile(`^\$\{([A-Za-z0-9_.+-]+)\}$`)
	cmakeVarName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.+-]*$`)
	cmakeUnary   = map[string]bool{"EXISTS": true, "COMMAND": true, "DEFINED": true, "POLICY": true, "IS_DIRECTORY": true,
		"IS_SYMLINK": true, "IS_ABSOLUTE": true, "IS_READABLE": true, "IS_WRITABLE": true, "IS_EXECUTABLE": true, "TEST": true}
	cmakeBinary = map[string]bool{"STREQUAL": true, "STRLESS": true, "STRGREATER": true, "STRLESS_EQUAL": true,
		"STRGREATER_EQUAL": true, "EQUAL": true, "LESS": true, "GREATER": true, "LESS_EQUAL": true, "GREATER_EQUAL": true,
		"MATCHES": true, "VERSION_EQUAL": true, "VERSION_LESS": true, "VERSION_GREATER": true, "VERSION_LESS_EQUAL": true,
		"VERSION_GREATER_EQUAL": true, "IN_LIST": true, "IS_NEWER_THAN": true, "PATH_EQUAL": true}
)

// cmakeConst reports whether s is one of CMake's constants and its value.
func cmakeConst(s string) (val, ok bool) {
	u := strings.ToUpper(s)
	switch u {
	case "ON", "YES", "TRUE", "Y":
		return true, true
	case "OFF", "NO", "FALSE", "N", "IGNORE", "NOTFOUND", "":
		return false, true
	}
	if strings.HasSuffix(u, "-NOTFOUND") {
		return false, true
	}
	if s != "" && strings.Trim(s, "0123456789.") == "" {
		return strings.Trim(s, "0.") != "", true
	}
	return false, false
}

// parseCond reads an if() condition. It never fails: what it cannot read is unknown.
func parseCond(args []cmakeArg) *condExpr {
	if len(args) > maxCondArgs {
		return &condExpr{op: "unknown"}
	}
	c := condParser{args: args}
	e := c.or(0)
	if c.pos != len(c.args) {
		return &condExpr{op: "unknown"}
	}
	return e
}

type condParser struct {
	args []cmakeArg
	pos  int
}

func (c *condParser) peek(word string) bool {
	return c.pos < len(c.args) && !c.args[c.pos].Quoted && c.args[c.pos].Text == word
}

func (c *condParser) or(depth int) *condExpr {
	e := c.and(depth)
	for c.peek("OR") {
		c.pos++
		e = &condExpr{op: "or", kids: []*condExpr{e, c.and(depth)}}
	}
	return e
}

func (c *condParser) and(depth int) *condExpr {
	e := c.not(depth)
	for c.peek("AND") {
		c.pos++
		e = &condExpr{op: "and", kids: []*condExpr{e, c.not(depth)}}
	}
	return e
}

func (c *condParser) not(depth int) *condExpr {
	if c.peek("NOT") {
		c.pos++
		if depth > maxCMakeNesting {
			return &condExpr{op: "unknown"}
		}
		return &condExpr{op: "not", kids: []*condExpr{c.not(depth + 1)}}
	}
	return c.primary(depth)
}

func (c *condParser) primary(depth int) *condExpr {
	if c.pos >= len(c.args) {
		return &condExpr{op: "unknown"}
	}
	if c.peek("(") {
		c.pos++
		if depth > maxCMakeNesting {
			c.pos = len(c.args)
			return &condExpr{op: "unknown"}
		}
		e := c.or(depth + 1)
		if !c.peek(")") {
			c.pos = len(c.args)
			return &condExpr{op: "unknown"}
		}
		c.pos++
		return e
	}
	a := c.args[c.pos]
	if !a.Quoted && cmakeUnary[a.Text] {
		c.pos += 2
		c.pos = min(c.pos, len(c.args))
		return &condExpr{op: "unknown"}
	}
	if !a.Quoted && a.Text == "TARGET" && c.pos+1 < len(c.args) {
		c.pos += 2
		return &condExpr{op: "target", name: c.args[c.pos-1].Text}
	}
	c.pos++
	if c.pos < len(c.args) && !c.args[c.pos].Quoted && cmakeBinary[c.args[c.pos].Text] {
		c.pos = min(c.pos+2, len(c.args))
		return &condExpr{op: "unknown"}
	}
	if v, ok := cmakeConst(a.Text); ok {
		return &condExpr{op: "const", val: v}
	}
	if m := cmakeVarRef.FindStringSubmatch(a.Text); m != nil && !a.Quoted {
		return &condExpr{op: "var", name: m[1]}
	}
	if !a.Quoted && cmakeVarName.MatchString(a.Text) {
		return &condExpr{op: "var", name: a.Text}
	}
	return &condExpr{op: "unknown"}
}

// eval evaluates the condition with the values known (variables and found targets);
// anything else is unknown.
func (e *condExpr) eval(known func(op, name string) tri) tri {
	switch e.op {
	case "const":
		return triOf(e.val)
	case "var", "target":
		return known(e.op, e.name)
	case "not":
		switch e.kids[0].eval(known) {
		case triTrue:
			return triFalse
		case triFalse:
			return triTrue
		}
	case "and", "or":
		stop := triFalse
		if e.op == "or" {
			stop = triTrue
		}
		all := true
		for _, k := range e.kids {
			switch k.eval(known) {
			case stop:
				return stop
			case triUnknown:
				all = false
			}
		}
		if all {
			return 3 - stop // the other of triTrue and triFalse
		}
	}
	return triUnknown
}

// leaf is a variable or target a condition depends on, with the value it must take.
type leaf struct {
	op, name string
	want     bool
	value    string // a -D setting's value other than ON or OFF (a path, a mode)
}

// ways returns the ways to make the condition evaluate to want: each a set of leaf
// values that suffices, the smallest first. ok(leaf) says which leaves can be set at
// all (an option, a cache variable, a package that can be installed). At most a few
// ways are kept, so a hostile condition cannot make the search explode.
func (e *condExpr) ways(want bool, ok func(leaf) bool) [][]leaf {
	const maxWays = 16
	switch e.op {
	case "var", "target":
		l := leaf{op: e.op, name: e.name, want: want}
		if ok(l) {
			return [][]leaf{{l}}
		}
	case "const":
		if e.val == want {
			return [][]leaf{{}}
		}
	case "not":
		return e.kids[0].ways(!want, ok)
	case "and", "or":
		// want true of an AND (false of an OR) needs every child; the other needs one.
		every := (e.op == "and") == want
		if !every {
			var out [][]leaf
			for _, k := range e.kids {
				out = append(out, k.ways(want, ok)...)
			}
			return shortestFirst(out, maxWays)
		}
		out := [][]leaf{{}}
		for _, k := range e.kids {
			kw := k.ways(want, ok)
			var next [][]leaf
			for _, a := range out {
				for _, b := range kw {
					if len(next) < maxWays {
						next = append(next, append(append([]leaf{}, a...), b...))
					}
				}
			}
			out = next
		}
		return shortestFirst(out, maxWays)
	}
	return nil
}

func shortestFirst(ways [][]leaf, limit int) [][]leaf {
	slices.SortStableFunc(ways, func(a, b []leaf) int { return len(a) - len(b) })
	if len(ways) > limit {
		ways = ways[:limit]
	}
	return ways
}

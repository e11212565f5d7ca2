package repair

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// guard is one if()/elseif()/else() branch a command sits in: the branch's condition
// and the value it must have for the command to run.
type guard struct {
	cond *condExpr
	want bool
	line int
}

// cmakeOption is a variable the user can set with -D: an option(), a
// cmake_dependent_option() or a set(... CACHE ...) without FORCE.
type cmakeOption struct {
	Name, Doc string
	Default   tri
}

// cmakeScript is what the rule reads of one CMakeLists.txt: its commands, the branches
// each runs in, the variables a user can set, the packages it looks for and the plain
// variables its paths use.
type cmakeScript struct {
	file    string // repository-relative path of the CMakeLists.txt
	cmds    []cmakeCommand
	guards  [][]guard
	options map[string]cmakeOption
	// findPackage holds the find_package() names, lower case.
	findPackage map[string]bool
	vars        map[string]string
}

// readCMakeScript reads a CMakeLists.txt (repository-relative path file) into a script.
func readCMakeScript(file, src string) (*cmakeScript, error) {
	cmds, err := parseCMake(src)
	if err != nil {
		return nil, err
	}
	s := &cmakeScript{file: file, cmds: cmds, guards: make([][]guard, len(cmds)),
		options: map[string]cmakeOption{}, findPackage: map[string]bool{}, vars: map[string]string{}}
	type frame struct {
		seen []*condExpr // the if's and elseifs' conditions so far
		cur  []guard
		line int
	}
	var stack []frame
	var active []guard
	total := 0
	rebuild := func() {
		active = nil
		for _, f := range stack {
			active = append(active, f.cur...)
		}
	}
	for i, c := range cmds {
		switch c.Name {
		case "if":
			if len(stack) == maxCMakeNesting {
				return nil, fmt.Errorf("%w: if() blocks nested more than %d deep (line %d)", errCMakeBounds, maxCMakeNesting, c.Line)
			}
			e := parseCond(c.Args)
			stack = append(stack, frame{seen: []*condExpr{e}, cur: []guard{{cond: e, want: true, line: c.Line}}, line: c.Line})
			rebuild()
		case "elseif", "else":
			if len(stack) == 0 {
				break
			}
			f := &stack[len(stack)-1]
			f.cur = nil
			for _, prev := range f.seen {
				f.cur = append(f.cur, guard{cond: prev, want: false, line: f.line})
			}
			if c.Name == "elseif" {
				if len(f.seen) == maxCMakeBranches {
					return nil, fmt.Errorf("%w: more than %d elseif() branches (line %d)", errCMakeBounds, maxCMakeBranches, c.Line)
				}
				e := parseCond(c.Args)
				f.seen = append(f.seen, e)
				f.cur = append(f.cur, guard{cond: e, want: true, line: c.Line})
			}
			rebuild()
		case "endif":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
				rebuild()
			}
		}
		// Every command's guards count: the rule evaluates them per command.
		if total += len(active); total > maxCMakeGuards {
			return nil, fmt.Errorf("%w: more than %d branch conditions along the commands", errCMakeBounds, maxCMakeGuards)
		}
		s.guards[i] = active
		s.note(c)
	}
	return s, nil
}

// note records the options, packages and plain variables a command defines.
func (s *cmakeScript) note(c cmakeCommand) {
	arg := func(i int) string {
		if i < len(c.Args) {
			return c.Args[i].Text
		}
		return ""
	}
	switch c.Name {
	case "option":
		def := triFalse // option()'s default is OFF
		if len(c.Args) >= 3 {
			def = constTri(arg(2))
		}
		s.addOption(cmakeOption{Name: arg(0), Doc: arg(1), Default: def})
	case "cmake_dependent_option":
		s.addOption(cmakeOption{Name: arg(0), Doc: arg(1), Default: constTri(arg(2))})
	case "set":
		for k, a := range c.Args {
			if !a.Quoted && a.Text == "CACHE" {
				forced := false
				for _, b := range c.Args[k:] {
					forced = forced || (!b.Quoted && b.Text == "FORCE")
				}
				if !forced && k >= 1 {
					doc := ""
					if k+2 < len(c.Args) {
						doc = c.Args[k+2].Text
					}
					s.addOption(cmakeOption{Name: arg(0), Doc: doc, Default: constTri(arg(1))})
				}
				return
			}
		}
		if len(c.Args) == 2 {
			s.vars[arg(0)] = arg(1)
		}
	case "find_package":
		if n := arg(0); n != "" {
			s.findPackage[strings.ToLower(n)] = true
		}
	}
}

func (s *cmakeScript) addOption(o cmakeOption) {
	if o.Name == "" || !cmakeVarName.MatchString(o.Name) {
		return
	}
	if _, dup := s.options[o.Name]; !dup {
		s.options[o.Name] = o
	}
}

func constTri(s string) tri {
	if v, ok := cmakeConst(s); ok {
		return triOf(v)
	}
	return triUnknown
}

// at returns the index of the command named name that starts on line, or -1.
func (s *cmakeScript) at(name string, line int) int {
	for i, c := range s.cmds {
		if c.Line == line && c.Name == name {
			return i
		}
	}
	return -1
}

var cmakeRef = regexp.MustCompile(`\$\{([A-Za-z0-9_.+-]+)\}`)

// subdir resolves the directory of an add_subdirectory() command, repository-relative,
// with the source-directory variables and the file's plain set() variables expanded.
// False when it names a variable the reader does not know or leaves the repository.
func (s *cmakeScript) subdir(c cmakeCommand, sourceRoot string) (string, bool) {
	if len(c.Args) == 0 {
		return "", false
	}
	here := path.Dir(s.file)
	dir := c.Args[0].Text
	for range 8 {
		unknown := false
		dir = cmakeRef.ReplaceAllStringFunc(dir, func(ref string) string {
			name := ref[2 : len(ref)-1]
			switch {
			case name == "CMAKE_CURRENT_SOURCE_DIR" || name == "CMAKE_CURRENT_LIST_DIR":
				return "/" + here
			case name == "CMAKE_SOURCE_DIR" || name == "PROJECT_SOURCE_DIR" || strings.HasSuffix(name, "_SOURCE_DIR"):
				return "/" + sourceRoot
			}
			if v, ok := s.vars[name]; ok {
				return v
			}
			unknown = true
			return ref
		})
		if unknown || len(dir) > maxExpanded {
			return "", false
		}
		if !strings.Contains(dir, "${") {
			break
		}
	}
	if strings.Contains(dir, "${") {
		return "", false
	}
	var p string
	if strings.HasPrefix(dir, "/") {
		p = path.Clean(dir)
	} else {
		p = path.Clean("/" + here + "/" + dir)
	}
	p = strings.TrimPrefix(p, "/")
	if p == "" || strings.HasPrefix(p, "..") {
		return "", false
	}
	return p, true
}

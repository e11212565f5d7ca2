package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
)

// A release tarball lacks the headers its build generates only in a version-control
// checkout: anomaly 1.1.0's CMakeLists.txt configures commit.h from commit.h.in inside
// if (EXISTS ${CMAKE_SOURCE_DIR}/.git/index), so the tarball's build stops at "fatal
// error: commit.h: No such file or directory" although the template sits in the tree.
// The rule generates the header from its template the way configure_file would with
// what a tarball build knows (the top-level project() call and the plain set()s that
// always run), everything else empty, and records it as a created file the recipe
// replays.

const templateHeaderRuleName = "template-header"

// Bounds: a template is the package's text, so untrusted; real ones are a few KiB.
const (
	maxTemplateBytes   = 256 << 10
	maxTemplateBuildRd = 64 // build files read to find the command that configures the template
)

// templateNames are the names a header's template has beside it, as the build
// systems spell them: X.in (configure_file, meson, make rules), X.cmake.in and X.cmake
// (CMake projects), and X.in.h (the stem's .in before the extension); then the example
// configurations a package ships for its user to copy (exampleSuffixes).
func templateNames(base string) []string {
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	out := []string{base + ".in", base + ".cmake.in", base + ".cmake"}
	if ext != "" {
		out = append(out, stem+".in"+ext)
	}
	for _, sfx := range exampleSuffixes {
		out = append(out, base+sfx)
	}
	return out
}

// exampleSuffixes end the names of a configuration header a package ships as an
// example for its user to copy and edit (lwip's contrib/examples/example_app/lwipcfg.h.example,
// which its CMake build tells the user to copy to lwipcfg.h): no build generates the
// header, and the example's values are the package's defaults.
var exampleSuffixes = []string{".example", ".sample", ".dist", ".default"}

// exampleConfig reports whether a template is an example configuration to copy.
func exampleConfig(template string) bool {
	return slices.ContainsFunc(exampleSuffixes, func(sfx string) bool { return strings.HasSuffix(template, sfx) })
}

func templateHeaderRule() Rule {
	return Rule{
		Name: templateHeaderRuleName,
		Doc: "a header the build generates from a template in the tree only in a git checkout (commit.h from commit.h.in under if (EXISTS .git/index)): " +
			"the header created beside its template with configure_file's substitutions, the project() version and name known, everything else empty; " +
			"refused for an autoheader config.h.in and for an unknown value outside a string literal",
		Categories: []atesor.ErrorCategory{atesor.CategoryDependency, atesor.CategoryCompilation,
			atesor.CategoryConfiguration, atesor.CategoryUnknown},
		Signatures: includeMissing,
		Make:       makeTemplateHeader,
	}
}

// headerTemplate is one missing include and the template that generates it.
type headerTemplate struct {
	name     string // the include as the source wrote it
	template string // repository-relative path of the template
	out      string // repository-relative path of the header to create
	// beside is the include's path beside the file that includes it with quotes, which
	// the compiler searches first; "" for an <> include or an unknown includer.
	beside string
	// loose is a template found by its base name only, away from the include's
	// directory.
	loose bool
}

func makeTemplateHeader(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.ReadFile == nil {
		return nil, "the sources cannot be read"
	}
	text := f.Message + "\n" + f.Output
	return firstIncludeFix(text, func(name string) (*Fix, string) {
		t, why := findTemplate(env.Files, text, name)
		if t == nil {
			return nil, why
		}
		return templateFix(ctx, env, *t)
	})
}

// findTemplate finds the template of a missing include the way the compiler looks for
// the header: beside the file that includes it first (a quoted include), then anywhere
// in the tree whose path ends with the include's path.
func findTemplate(files []string, text, name string) (*headerTemplate, string) {
	if p, ok := locateFile(files, name); ok && strings.HasSuffix("/"+p, "/"+name) {
		return nil, fmt.Sprintf("%s is in the tree at %s: its include directory, not a template, is what the compiler misses", name, p)
	}
	var dirs []string
	beside := ""
	includer := regexp.MustCompile(`(?m)^(\S+?):\d+(?::\d+)?: fatal error: ` + regexp.QuoteMeta(name) + `: No such file or directory`)
	if m := includer.FindStringSubmatch(text); m != nil {
		if rel, ok := locateFile(files, m[1]); ok {
			dirs = append(dirs, path.Dir(rel))
			if regexp.MustCompile(`#[ \t]*include[ \t]*"` + regexp.QuoteMeta(name) + `"`).MatchString(text) {
				beside = path.Join(path.Dir(rel), name)
			}
		}
	}
	dir, base := path.Dir(name), path.Base(name)
	for _, d := range dirs {
		for _, tn := range templateNames(base) {
			if p := path.Join(d, dir, tn); slices.Contains(files, p) {
				return &headerTemplate{name: name, template: p, out: path.Join(path.Dir(p), base), beside: beside}, ""
			}
		}
	}
	for _, tn := range templateNames(base) {
		want := path.Join(dir, tn)
		if p, ok := locateFile(files, want); ok && strings.HasSuffix("/"+p, "/"+want) {
			return &headerTemplate{name: name, template: p, out: path.Join(path.Dir(p), base), beside: beside}, ""
		}
	}
	if dir != "." {
		// An include with a directory whose template sits elsewhere under its base
		// name (cmake/version.h.in for p/version.h): taken only when a build file
		// configures that template into the include's path.
		for _, tn := range templateNames(base) {
			if p, ok := locateFile(files, tn); ok && path.Base(p) == tn {
				return &headerTemplate{name: name, template: p, out: path.Join(path.Dir(p), base), beside: beside, loose: true}, ""
			}
		}
	}
	return nil, fmt.Sprintf("no template of %s (%s) in the tree", name, strings.Join(templateNames(base), ", "))
}

func templateFix(ctx context.Context, env Env, t headerTemplate) (*Fix, string) {
	if exampleConfig(t.template) {
		return exampleFix(ctx, env, t)
	}
	if conf := autoconfOutput(ctx, env, t.template); conf != "" {
		return nil, conf + " generates " + strings.TrimSuffix(t.template, ".in") + " from " + t.template + " with its own values: run the package's configure instead"
	}
	gen := configuringCommand(ctx, env, t)
	if gen.always {
		return nil, gen.said + ": the build generates " + t.name + " itself, so it is missing for another reason (the directory it goes to is not on the include path)"
	}
	// Where the build looks for the header: the configure_file()'s own output in the
	// source tree, else beside the file that includes it with quotes, else beside
	// its template.
	where := "beside its template"
	switch {
	case gen.out != "":
		t.out, where = gen.out, "where the configure_file() writes it"
	case t.beside != "" && t.beside != t.out:
		t.out, where = t.beside, "beside the file that includes it with quotes, which the compiler searches first"
	}
	if t.loose && gen.out == "" && t.beside == "" {
		return nil, fmt.Sprintf("%s has the base name of %s's template, but no configure_file() of the tree writes it to a path that include finds", t.template, t.name)
	}
	if slices.Contains(env.Files, t.out) {
		return nil, t.out + " already exists"
	}
	b, err := env.ReadFile(ctx, t.template)
	if err != nil {
		return nil, fmt.Sprintf("%s: %v", t.template, err)
	}
	if len(b) > maxTemplateBytes {
		return nil, fmt.Sprintf("%s is %d bytes, more than a header template's %d", t.template, len(b), maxTemplateBytes)
	}
	src := string(b)
	if isAutoheader(src) {
		return nil, t.template + " is an autoheader template (#undef lines that configure turns into the system's facts): run the package's configure instead"
	}
	vals, origin := templateValues(ctx, env)
	cmake := !gen.atOnly && (!slices.Contains(env.Files, "meson.build") || slices.Contains(env.Files, "CMakeLists.txt"))
	content, used, why := renderTemplate(t.template, src, vals, cmake)
	if why != "" {
		return nil, why
	}
	var said []string
	known := false
	for _, u := range used {
		if v, ok := vals[u]; ok {
			said = append(said, fmt.Sprintf("%s=%q", u, v))
			known = true
		} else {
			said = append(said, u+" empty")
		}
	}
	analysis := fmt.Sprintf("The compiler could not find %s; the tree has its template %s", t.name, t.template)
	if gen.said != "" {
		analysis += ", which " + gen.said
	}
	analysis += ". " + t.out + " is created from it, " + where + ", the way configure_file would in a tarball build"
	if len(said) > 0 {
		analysis += ": " + strings.Join(said, ", ")
		switch {
		case known && len(said) > 1:
			analysis += " (the values from " + origin + "; the others are unknown outside a checkout and left empty)"
		case known:
			analysis += " (from " + origin + ")"
		default:
			analysis += " (unknown outside a checkout, and inside string literals or comments only)"
		}
	}
	analysis += "."
	return &Fix{
		Analysis: analysis,
		Strategy: "create " + t.out + " from " + t.template,
		Actions:  []atesor.Action{{Type: atesor.ActionCreateFile, Path: t.out, Content: content}},
	}, ""
}

// exampleFix copies an example configuration header to the name the sources include,
// unchanged, where the compiler looks for it (beside the file that includes it with
// quotes, else beside the example). Not for a loose match: an example found only by
// its base name elsewhere in the tree may configure something else.
func exampleFix(ctx context.Context, env Env, t headerTemplate) (*Fix, string) {
	if t.loose {
		return nil, fmt.Sprintf("%s has the base name of %s's example configuration, but not in the include's directory", t.template, t.name)
	}
	where := "beside the example"
	if t.beside != "" && t.beside != t.out {
		t.out, where = t.beside, "beside the file that includes it with quotes, which the compiler searches first"
	}
	if slices.Contains(env.Files, t.out) {
		return nil, t.out + " already exists"
	}
	b, err := env.ReadFile(ctx, t.template)
	if err != nil {
		return nil, fmt.Sprintf("%s: %v", t.template, err)
	}
	if len(b) > maxTemplateBytes {
		return nil, fmt.Sprintf("%s is %d bytes, more than a configuration header's %d", t.template, len(b), maxTemplateBytes)
	}
	return &Fix{
		Analysis: fmt.Sprintf("The compiler could not find %s; the tree ships %s, an example configuration for its user to copy, and no build file generates the header. "+
			"%s is created as its copy, %s, with the package's example values.", t.name, t.template, t.out, where),
		Strategy: "copy " + t.template + " to " + t.out,
		Actions:  []atesor.Action{{Type: atesor.ActionCreateFile, Path: t.out, Content: string(b)}},
	}, ""
}

var (
	undefLine   = re(`(?m)^[ \t]*#[ \t]*undef[ \t]+[A-Za-z_]\w*[ \t]*$`)
	substMarker = re(`#[ \t]*(?:cmakedefine|mesondefine)\b|\$\{[A-Za-z0-9_./+-]+\}|@[A-Za-z_][A-Za-z0-9_]*@`)
)

// isAutoheader tells autoheader's config.h.in: #undef lines for configure to turn into
// #defines, and none of CMake's or meson's substitutions. Filling it with nothing
// would leave every feature the system has undefined.
func isAutoheader(src string) bool {
	return undefLine.MatchString(src) && !substMarker.MatchString(src)
}

// templateValues are the variables a tarball build knows when it configures a template:
// the top-level CMakeLists.txt's project() call and its plain set()s that run in every
// configuration, or the top-level meson.build's project() name and version. origin says
// where they come from ("" when nothing is known).
func templateValues(ctx context.Context, env Env) (map[string]string, string) {
	vals := map[string]string{}
	if slices.Contains(env.Files, "CMakeLists.txt") {
		if b, err := env.ReadFile(ctx, "CMakeLists.txt"); err == nil {
			if s, err := readCMakeScript("CMakeLists.txt", string(b)); err == nil {
				cmakeProjectValues(s, vals)
				if len(vals) > 0 {
					return vals, "CMakeLists.txt's project() and set()"
				}
			}
		}
	}
	if slices.Contains(env.Files, "meson.build") {
		if b, err := env.ReadFile(ctx, "meson.build"); err == nil {
			if toks, err := lexMeson(string(b)); err == nil {
				if calls := mesonCalls(toks, "project"); len(calls) > 0 {
					c := calls[0]
					if len(c.Args) > 0 && fitsDefine(c.Args[0]) {
						vals["PROJECT_NAME"] = c.Args[0]
					}
					if v := c.Kw["version"]; len(v) == 1 && v[0].kind == 's' && fitsDefine(v[0].text) {
						// vcs_tag() falls back to the project's version outside a checkout.
						vals["PROJECT_VERSION"], vals["VCS_TAG"] = v[0].text, v[0].text
					}
				}
				if len(vals) > 0 {
					return vals, "meson.build's project()"
				}
			}
		}
	}
	return vals, ""
}

// cmakeProjectValues sets what project() defines (PROJECT_NAME, PROJECT_VERSION and its
// components, the same under the project's name) and the values of the file's plain
// set(NAME value) commands outside any if(), in order, where every reference they make
// is known: what configure_file sees in every configuration of the tree.
func cmakeProjectValues(s *cmakeScript, vals map[string]string) {
	project := false
	for i, c := range s.cmds {
		if len(s.guards[i]) > 0 {
			continue
		}
		switch {
		case c.Name == "project" && !project && len(c.Args) > 0:
			project = true
			name := c.Args[0].Text
			if !fitsDefine(name) || !cmakeVarName.MatchString(name) {
				return
			}
			vals["PROJECT_NAME"], vals["CMAKE_PROJECT_NAME"] = name, name
			for k := 1; k+1 < len(c.Args); k++ {
				key := c.Args[k].Text
				if c.Args[k].Quoted || (key != "VERSION" && key != "DESCRIPTION" && key != "HOMEPAGE_URL") {
					continue
				}
				v := c.Args[k+1].Text
				if !fitsDefine(v) {
					continue
				}
				if key == "DESCRIPTION" || key == "HOMEPAGE_URL" {
					vals["PROJECT_"+key] = v
					continue
				}
				for _, p := range []string{"PROJECT", name, "CMAKE_PROJECT"} {
					vals[p+"_VERSION"] = v
					for j, part := range strings.SplitN(v, ".", 4) {
						vals[p+"_VERSION_"+[]string{"MAJOR", "MINOR", "PATCH", "TWEAK"}[j]] = part
					}
				}
			}
		case c.Name == "set" && len(c.Args) == 2 && cmakeVarName.MatchString(c.Args[0].Text):
			if v, ok := expandKnown(c.Args[1].Text, vals); ok {
				vals[c.Args[0].Text] = v
			}
		}
	}
}

// expandKnown expands ${NAME} references with vals; false when one is unknown or the
// value would not fit on a #define line.
func expandKnown(v string, vals map[string]string) (string, bool) {
	ok := true
	out := cmakeRef.ReplaceAllStringFunc(v, func(ref string) string {
		x, known := vals[ref[2:len(ref)-1]]
		ok = ok && known
		return x
	})
	return out, ok && fitsDefine(out)
}

// fitsDefine reports whether a value fits on one #define line.
func fitsDefine(v string) bool {
	return !strings.ContainsAny(v, "\n\r") && len(v) <= maxExpanded
}

// gitCondition is an if() that holds only in a git checkout: a test of the .git
// directory, of git's presence, or of git's output.
var gitCondition = re(`(?i)\.git\b|\bgit_(?:found|executable)\b|\bgit_found\b`)

// configuring is what the build files say of a template.
type configuring struct {
	// said names the command that configures the template and, when its if() shows
	// it, that it runs only in a git checkout; "" when no CMakeLists.txt or
	// meson.build of the tree names the template.
	said string
	// always is true for a configure_file() outside any if(), which a tarball build
	// runs too.
	always bool
	// out is the configure_file()'s output when it names a source-tree path the
	// include resolves to.
	out string
	// atOnly is configure_file()'s @ONLY: ${VAR} is left as written.
	atOnly bool
}

// configuringCommand reads the tree's build files for the command that configures the
// template.
func configuringCommand(ctx context.Context, env Env, t headerTemplate) configuring {
	base := path.Base(t.template)
	read := 0
	for _, p := range env.Files {
		if read == maxTemplateBuildRd {
			break
		}
		name := path.Base(p)
		if name != "CMakeLists.txt" && name != "meson.build" {
			continue
		}
		read++
		b, err := env.ReadFile(ctx, p)
		if err != nil {
			continue
		}
		if name == "meson.build" {
			for i, l := range strings.Split(excerpt.Head(string(b), maxMesonBytes), "\n") {
				if strings.Contains(l, base) {
					return configuring{said: fmt.Sprintf("%s:%d names it (%s)", p, i+1, strings.TrimSpace(l))}
				}
			}
			continue
		}
		s, err := readCMakeScript(p, string(b))
		if err != nil {
			continue
		}
		for i, c := range s.cmds {
			if c.Name != "configure_file" || len(c.Args) < 2 || path.Base(c.Args[0].Text) != base {
				continue
			}
			r := configuring{said: fmt.Sprintf("%s:%d configures into %s", p, c.Line, c.Args[1].Text)}
			for _, a := range c.Args[2:] {
				r.atOnly = r.atOnly || (!a.Quoted && a.Text == "@ONLY")
			}
			if o := c.Args[1].Text; strings.Contains(o, "SOURCE_DIR}") || strings.Contains(o, "LIST_DIR}") {
				if out, ok := s.subdir(cmakeCommand{Args: []cmakeArg{{Text: o}}}, ""); ok && strings.HasSuffix("/"+out, "/"+t.name) {
					r.out = out
				}
			}
			for _, g := range s.guards[i] {
				if cond := s.condText(g.line); gitCondition.MatchString(cond) {
					r.said += fmt.Sprintf(" only under if (%s) at line %d, that is only in a git checkout, which a release tarball is not", cond, g.line)
					return r
				}
			}
			if len(s.guards[i]) == 0 {
				r.said += " in every configuration"
				r.always = true
				return r
			}
			r.said += fmt.Sprintf(" only when its if() at line %d holds", s.guards[i][len(s.guards[i])-1].line)
			return r
		}
	}
	return configuring{}
}

// autoconfOutput names the configure.ac (or configure.in) that lists the template's
// output among its AC_CONFIG_FILES, AC_CONFIG_HEADERS or AC_OUTPUT: configure fills
// that template with values only it knows; "" when none does.
func autoconfOutput(ctx context.Context, env Env, template string) string {
	out := strings.TrimSuffix(template, ".in")
	if out == template {
		return ""
	}
	for _, conf := range []string{"configure.ac", "configure.in"} {
		if !slices.Contains(env.Files, conf) {
			continue
		}
		b, err := env.ReadFile(ctx, conf)
		if err != nil {
			continue
		}
		listed := regexp.MustCompile(`AC_(?:CONFIG_FILES|CONFIG_HEADERS?|OUTPUT)\(\s*\[?[^)]*?(?:^|[\s\[,(])` + regexp.QuoteMeta(out) + `(?:[\s\]:,)]|$)`)
		if listed.MatchString(excerpt.Head(string(b), maxCMakeBytes)) {
			return conf
		}
	}
	return ""
}

// condText is the condition of the if() or elseif() on a line, as written.
func (s *cmakeScript) condText(line int) string {
	for _, c := range s.cmds {
		if c.Line == line && (c.Name == "if" || c.Name == "elseif") {
			words := make([]string, len(c.Args))
			for i, a := range c.Args {
				words[i] = a.Text
			}
			return strings.Join(words, " ")
		}
	}
	return ""
}

package repair

import (
	"context"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// mesonFileMissing is meson's report of a source file files() or a target names that
// the tree does not have: a repacked tarball stripped it.
var mesonFileMissing = re(`ERROR: File (\S+) does not exist\.`)

// Bounds of the search for a missing file's mentions through subdir().
const maxMesonSubdirFiles = 256

func mesonMissingFileRule() Rule {
	return Rule{
		Name: "meson-missing-file",
		Doc: "a source file meson cannot find (a repacked tarball stripped it) that the meson.build names only under a switchable option: " +
			"the option that leaves that feature out",
		Signatures: []*regexp.Regexp{mesonFileMissing},
		Make:       makeMesonMissingFile,
	}
}

// mesonMention is a string of a meson.build that names the missing file, with the
// gates of the if blocks around it.
type mesonMention struct {
	File  string
	Line  int
	Gates []mesonGate
}

func makeMesonMissingFile(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.ReadFile == nil || env.Plan == nil {
		return nil, "no build files or no plan"
	}
	text := f.text() + "\n" + f.Message
	loc := mesonFileMissing.FindStringSubmatchIndex(text)
	if loc == nil {
		return nil, "no missing file in the output"
	}
	name := text[loc[2]:loc[3]]
	// The report's own line says which meson.build stopped.
	report := text[strings.LastIndexByte(text[:loc[0]], '\n')+1 : loc[1]]
	file, line := mesonErrorFile(env.Files, report)
	if file == "" {
		return nil, "the output does not say which meson.build stopped at " + name
	}
	at := fmt.Sprintf("%s:%d", file, line)
	dir := path.Dir(file)
	if path.IsAbs(name) || strings.HasPrefix(path.Clean(name), "..") {
		return nil, fmt.Sprintf("%s stops at %s, outside the source tree", at, name)
	}
	if rel := path.Join(dir, name); slices.Contains(env.Files, rel) {
		return nil, fmt.Sprintf("%s stops at %s, but the tree has %s: not a file the tarball left out", at, name, rel)
	}
	mentions, why := mesonMentions(ctx, env, file, name)
	if len(mentions) == 0 {
		return nil, fmt.Sprintf("%s stops at %s, which %s", at, name, why)
	}
	var gate mesonGate
	var where []string
	for i, m := range mentions {
		mat := fmt.Sprintf("%s:%d", m.File, m.Line)
		where = append(where, mat)
		g, ok := innermostGate(m.Gates)
		switch {
		case !ok && len(m.Gates) == 0:
			return nil, fmt.Sprintf("%s names %s outside any if block: the build needs the file, which the tarball does not have", mat, name)
		case !ok:
			return nil, fmt.Sprintf("%s names %s only under a condition the rule cannot switch (not a plain get_option() or found() of an option's dependency)", mat, name)
		case i > 0 && (g.Option != gate.Option || g.Want != gate.Want):
			return nil, fmt.Sprintf("%s names %s under option %s, %s under option %s: no one option leaves the file out", where[0], name, gate.Option, mat, g.Option)
		}
		gate = g
	}
	opts := mesonOptions(ctx, env, mesonProjectDir(env.Files, dir))
	opt, declared := opts[gate.Option]
	if !declared {
		return nil, fmt.Sprintf("%s names %s under option %s, which the project's meson options do not declare", where[0], name, gate.Option)
	}
	var val string
	switch {
	case gate.Feature || opt.Type == "feature":
		val = map[bool]string{true: "enabled", false: "disabled"}[!gate.Want]
	case opt.Type == "boolean":
		val = strconv.FormatBool(!gate.Want)
	default:
		return nil, fmt.Sprintf("%s names %s under option %s of type %q, which the rule switches only as a boolean or a feature", where[0], name, gate.Option, opt.Type)
	}
	plan, ok := withMesonDefine(*env.Plan, f.Phase, gate.Option, val)
	if !ok {
		return nil, "no meson setup command in the plan"
	}
	if samePlan(plan, *env.Plan) {
		return nil, "the plan already configures -D" + gate.Option + "=" + val
	}
	var cond string
	switch {
	case gate.Dep != "":
		cond = fmt.Sprintf("%s is %sfound (%s:%d looks it up with required: get_option('%s'))",
			gate.Dep, map[bool]string{true: "", false: "not "}[gate.Want], gate.File, gate.Line, gate.Option)
	case gate.Feature || opt.Type == "feature":
		cond = fmt.Sprintf("the %s option is %s", gate.Option, map[bool]string{true: "enabled", false: "disabled"}[gate.Want])
	default:
		cond = fmt.Sprintf("the %s option is %t", gate.Option, gate.Want)
	}
	// A setup that stops in the interpreter writes no meson-private/coredata.dat (meson
	// writes it only once the whole meson.build has run), so the plan's same meson
	// setup builddir configures afresh with the option: no --reconfigure or --wipe.
	return &Fix{
		Analysis: fmt.Sprintf("%s stops at %s, which the tarball does not have (a repacked source strips it); %s names it only when %s, so the build configures with -D%s=%s. This leaves out %s, whose source file %s the tarball does not have.",
			at, name, strings.Join(where, ", "), cond, gate.Option, val, featureOf(gate.Option, opt.Description), name),
		Strategy: "configure with -D" + gate.Option + "=" + val,
		Plan:     &plan,
	}, ""
}

// mesonMentions returns the strings that name the missing file (name, relative to the
// directory of file) in file, or, when it names none, in the meson.build files its
// subdir() calls read, level by level; with none, a reason. Each mention's gates
// start with those of the subdir() calls that lead from the project's meson.build to
// its file.
func mesonMentions(ctx context.Context, env Env, file, name string) ([]mesonMention, string) {
	base := path.Dir(file)
	want := path.Clean(name)
	type entry struct {
		file  string
		scope mesonScope
	}
	start := mesonScopeOf(ctx, env, path.Join(mesonProjectDir(env.Files, base), "meson.build"), file)
	queue, seen := []entry{{file, start}}, map[string]bool{file: true}
	var out []mesonMention
	for k := 0; k < len(queue) && k < maxMesonSubdirFiles; k++ {
		cur := queue[k]
		tokens, err := readMeson(ctx, env, cur.file)
		if err != nil {
			if k == 0 {
				return nil, "is named in " + err.Error()
			}
			continue
		}
		rel := relDir(base, path.Dir(cur.file))
		var subs []entry
		mesonWalkIn(tokens, cur.scope, func(i int, s mesonScope) {
			t := tokens[i]
			if t.kind == 's' && (t.text == name || path.Join(rel, t.text) == want) {
				out = append(out, mesonMention{File: cur.file, Line: t.line, Gates: slices.Clone(s.Gates)})
			}
			if sub, ok := subdirCall(env, tokens, i, cur.file); ok && !seen[sub] {
				seen[sub] = true
				subs = append(subs, entry{sub, mesonScope{File: sub, Gates: slices.Clone(s.Gates), Found: maps.Clone(s.Found)}})
			}
		})
		if k == 0 && len(out) > 0 {
			return out, ""
		}
		queue = append(queue, subs...)
	}
	if len(out) == 0 {
		return nil, "no meson.build of " + base + " or its subdir()s names as a string"
	}
	return out, ""
}

// mesonScopeOf is the scope target runs in: the gates and found() variables at the
// subdir() calls that lead to it from root (the project's meson.build); an empty scope
// when target is root or no subdir() chain reaches it.
func mesonScopeOf(ctx context.Context, env Env, root, target string) mesonScope {
	type entry struct {
		file  string
		scope mesonScope
	}
	queue, seen := []entry{{root, mesonScope{File: root}}}, map[string]bool{root: true}
	for k := 0; k < len(queue) && k < maxMesonSubdirFiles; k++ {
		cur := queue[k]
		if cur.file == target {
			return cur.scope
		}
		tokens, err := readMeson(ctx, env, cur.file)
		if err != nil {
			continue
		}
		mesonWalkIn(tokens, cur.scope, func(i int, s mesonScope) {
			if sub, ok := subdirCall(env, tokens, i, cur.file); ok && !seen[sub] {
				seen[sub] = true
				queue = append(queue, entry{sub, mesonScope{File: sub, Gates: slices.Clone(s.Gates), Found: maps.Clone(s.Found)}})
			}
		})
	}
	return mesonScope{File: target}
}

// subdirCall reports the meson.build of the tree that a subdir('x') call at tokens[i]
// of file reads.
func subdirCall(env Env, tokens []mesonToken, i int, file string) (string, bool) {
	if tokens[i].kind != 'i' || tokens[i].text != "subdir" || i+2 >= len(tokens) || tokens[i+1].text != "(" || tokens[i+2].kind != 's' {
		return "", false
	}
	sub := path.Join(path.Dir(file), tokens[i+2].text, "meson.build")
	return sub, slices.Contains(env.Files, sub)
}

// readMeson reads and lexes a meson.build of the tree.
func readMeson(ctx context.Context, env Env, file string) ([]mesonToken, error) {
	b, err := env.ReadFile(ctx, file)
	if err != nil {
		return nil, fmt.Errorf("%s, which cannot be read: %w", file, err)
	}
	tokens, err := lexMeson(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return tokens, nil
}

// relDir is dir relative to base (both slash paths of the tree, dir at or below base).
func relDir(base, dir string) string {
	if base == "." {
		return dir
	}
	if dir == base {
		return "."
	}
	return strings.TrimPrefix(dir, base+"/")
}

// innermostGate is the innermost gate the rule can switch.
func innermostGate(gates []mesonGate) (mesonGate, bool) {
	for k := len(gates) - 1; k >= 0; k-- {
		if gates[k].Option != "" {
			return gates[k], true
		}
	}
	return mesonGate{}, false
}

// mesonProjectDir is the nearest directory at or above dir that holds the project's
// meson.options or meson_options.txt (a subdir() reads its project's options); dir
// itself when none does.
func mesonProjectDir(files []string, dir string) string {
	for d := dir; ; d = path.Dir(d) {
		if slices.Contains(files, path.Join(d, "meson.options")) || slices.Contains(files, path.Join(d, "meson_options.txt")) {
			return d
		}
		if d == "." || d == "/" {
			return dir
		}
	}
}

// featureOf names what an option turns on, from its description ("Enable JPEG
// support": the package's JPEG support (option jpeg)).
func featureOf(option, desc string) string {
	d := strings.TrimSuffix(strings.TrimSpace(desc), ".")
	for _, verb := range []string{"Enable ", "enable ", "Build ", "build ", "Use ", "use ", "Compile ", "compile "} {
		if rest, ok := strings.CutPrefix(d, verb); ok && rest != "" {
			rest = strings.TrimPrefix(strings.TrimPrefix(rest, "the "), "The ")
			return fmt.Sprintf("the package's %s (option %s)", rest, option)
		}
	}
	if d != "" {
		return fmt.Sprintf("what option %s turns on (%q)", option, d)
	}
	return "what option " + option + " turns on"
}

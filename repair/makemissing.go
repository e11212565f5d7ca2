package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// make's report of a prerequisite that is neither a file nor a target it can make:
// "make: *** No rule to make target 'X', needed by 'Y'.  Stop." The two rules below
// answer the forms a porter fixes mechanically; a stripped source file no build file
// can do without is left to a model (inventing it would be a stub).
var (
	// makeNoRuleDoc is the form whose missing file is documentation: a Texinfo manual
	// (adplug 2.3.3+dfsg: Debian's repack strips doc/libadplug.texi, a GFDL manual, and
	// Debian's own patch drops info_TEXINFOS) or a man page.
	makeNoRuleDoc = re("No rule to make target [`'‘]([^'’`\\s]+\\.(?:texi|texinfo|txi|[1-9][a-z]{0,4}))['’], needed by [`'‘]")
	// makeNoRuleBare is the form whose missing file is a bare name, no directory: a
	// makefile that expects its sources in the directory make runs in (unace 1.2b's
	// unix/makefile, whose readme says to copy it beside the sources; Debian runs it as
	// make -f unix/makefile from the top).
	makeNoRuleBare = re("No rule to make target [`'‘]([^'’`\\s/]+)['’], needed by [`'‘]")
)

// docPrimary is an automake variable that lists documentation the all target builds:
// info_TEXINFOS (and noinst_, html_ ...) and the man pages (man_MANS, dist_man1_MANS).
var docPrimary = regexp.MustCompile(`^(?:[A-Za-z0-9_]+_)?(TEXINFOS|MANS)$`)

// maxAMFiles bounds the Makefile.am files one fix reads, maxListingFiles the CMake
// and meson files.
const (
	maxAMFiles      = 256
	maxListingFiles = 256
)

func automakeMissingDocRule() Rule {
	return Rule{
		Name: "automake-missing-doc",
		Doc: "make has no rule for a Texinfo manual or man page a Makefile.am lists and the tarball lacks (a repack strips non-free documentation): " +
			"drop it from info_TEXINFOS or *_MANS, as Debian's patch does, then autoreconf",
		Signatures: []*regexp.Regexp{makeNoRuleDoc},
		Make:       makeAutomakeMissingDoc,
	}
}

// canonical is automake's canonical name of a file for its per-target variables
// (doc/libadplug for doc_libadplug_TEXINFOS): every character but letters, digits, _
// and @ becomes _.
func canonical(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '@' {
			return r
		}
		return '_'
	}, name)
}

// docDrop is what one Makefile.am loses: the words that name missing documentation,
// and the assignments that lose every word (blanked whole, so no variable is left
// naming a manual that is gone).
type docDrop struct {
	words  []span
	blank  [][2]int // first and last line of each assignment to blank
	where  []string
	manual []string
}

// assignLines is the first and last physical line of an assignment of src.
func assignLines(src string, a amAssign) [2]int {
	last := a.line
	if n := len(a.words); n > 0 {
		last = strings.Count(src[:a.words[n-1].at.end], "\n") + 1
	}
	return [2]int{a.line, last}
}

// missingDocWords finds, in one Makefile.am (in directory dir of the tree), the words
// of its documentation variables that name a file of missing the tree lacks, and for a
// dropped Texinfo manual its per-manual include list (doc_libadplug_TEXINFOS).
func missingDocWords(src, am, dir string, missing []string, files []string) docDrop {
	var d docDrop
	assigns := amAssignments(src)
	dropped := map[string]bool{}
	for _, a := range assigns {
		m := docPrimary.FindStringSubmatch(a.name)
		if m == nil {
			continue
		}
		kept, gone := 0, 0
		for _, w := range a.words {
			p := path.Clean(path.Join(dir, w.text))
			if !strings.Contains(w.text, "$") && slices.Contains(missing, path.Clean(w.text)) && !slices.Contains(files, p) {
				d.words = append(d.words, w.at)
				d.where = append(d.where, fmt.Sprintf("%s:%d %s lists %s", am, a.line, a.name, w.text))
				if m[1] == "TEXINFOS" {
					dropped[canonical(strings.TrimSuffix(w.text, path.Ext(w.text)))+"_TEXINFOS"] = true
					d.manual = append(d.manual, w.text)
				}
				gone++
				continue
			}
			kept++
		}
		if kept == 0 && gone > 0 {
			d.blank = append(d.blank, assignLines(src, a))
		}
	}
	// The manual's own include list goes with it: automake refuses a per-target
	// variable whose target no longer exists.
	for _, a := range assigns {
		if dropped[a.name] {
			d.blank = append(d.blank, assignLines(src, a))
			d.where = append(d.where, fmt.Sprintf("%s:%d %s goes with it", am, a.line, a.name))
		}
	}
	return d
}

// blankLines empties the physical lines of each range (an assignment's name, value and
// continuation lines), keeping the newlines so the file keeps its lines.
func blankLines(src string, ranges [][2]int) string {
	lines := strings.SplitAfter(src, "\n")
	for _, r := range ranges {
		for l := r[0]; l <= r[1] && l <= len(lines); l++ {
			if strings.HasSuffix(lines[l-1], "\n") {
				lines[l-1] = "\n"
			} else {
				lines[l-1] = ""
			}
		}
	}
	return strings.Join(lines, "")
}

func makeAutomakeMissingDoc(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.ReadFile == nil || env.Plan == nil || len(env.Files) == 0 || len(env.Files) >= 20000 {
		return nil, "no build files, no file list or no plan"
	}
	root, ok := autoconfDir(env.Files)
	if !ok {
		return nil, "the tree has no configure.ac or configure.in: not an automake build"
	}
	var missing []string
	for _, m := range makeNoRuleDoc.FindAllStringSubmatch(f.text()+"\n"+f.Message, 32) {
		if p := path.Clean(m[1]); !slices.Contains(missing, p) {
			missing = append(missing, p)
		}
	}
	var actions []atesor.Action
	var where, manuals []string
	read := 0
	for _, am := range env.Files {
		if path.Base(am) != "Makefile.am" || noiseDir(am) || root != "." && !under(am, root) {
			continue
		}
		if read++; read > maxAMFiles {
			break
		}
		b, err := env.ReadFile(ctx, am)
		if err != nil || len(b) > maxAutotoolsFile {
			continue
		}
		src := string(b)
		d := missingDocWords(src, am, path.Dir(am), missing, env.Files)
		if len(d.words) == 0 {
			continue
		}
		next := blankLines(dropSpans(src, d.words), d.blank)
		if diff, ok := changedLinesDiff(am, src, next); ok {
			actions = append(actions, atesor.Action{Type: atesor.ActionPatch, File: am, Diff: diff})
			where = append(where, d.where...)
			manuals = append(manuals, d.manual...)
		}
	}
	if len(actions) == 0 {
		return nil, fmt.Sprintf("no Makefile.am lists %s in info_TEXINFOS or a *_MANS variable while the tree lacks it", strings.Join(missing, ", "))
	}
	plan, regen, ok := withAutoreconf(*env.Plan, f.Phase, env)
	if !ok {
		return nil, "no ./configure command in the plan to regenerate before"
	}
	left := "the port installs no such page"
	if len(manuals) > 0 {
		left = "the port builds and installs no info manual (" + strings.Join(manuals, ", ") + ")"
	}
	fix := &Fix{
		Analysis: fmt.Sprintf("make has no rule for %s: the tarball lacks it (a repacked source strips documentation whose licence the distribution does not accept, a GFDL manual most often), "+
			"yet the build still lists it: %s. The build drops those entries, as the distribution's own patch does, and regenerates the Makefile.in files; %s, and no program or library changes.",
			strings.Join(missing, ", "), strings.Join(where, "; "), left),
		Strategy: "drop " + strings.Join(missing, ", ") + " from " + strings.Join(patchedFiles(actions), " and "),
		Actions:  actions,
	}
	if regen {
		fix.Strategy += ", and run autoreconf -fi before ./configure"
		fix.Plan = &plan
	}
	return fix, ""
}

func makeSubdirMakefileRule() Rule {
	return Rule{
		Name: "make-subdir-makefile",
		Doc: "make -C DIR stops on a source file the makefile in DIR names but that sits in the directory above (the makefile expects to be run beside the sources): " +
			"make -f DIR/makefile from that directory",
		Signatures: []*regexp.Regexp{makeNoRuleBare},
		Make:       makeSubdirMakefile,
	}
}

var (
	// makeDirArg is a make command's -C DIR (or -CDIR, --directory=DIR), with the
	// argument in the last group.
	makeDirArg = regexp.MustCompile(`(?:^|&&\s*|;\s*|\|\|\s*)(?:\S+=\S*\s+)*make\b[^&|;]*?\s(-C\s*|--directory=)([^\s&|;'"]+)`)
	// makeFileArg is a -f FILE of the rest of that make command (up to its &&, ; or |).
	makeFileArg = regexp.MustCompile(`^[^&|;]*?(\s(?:-f\s*|--file=|--makefile=)([^\s&|;'"]+))`)
	// makeSourceWord is a word of a makefile that names a C or C++ source file.
	makeSourceWord = regexp.MustCompile(`(?:^|[\s:=])([\w+-][\w.+-]*\.(?:c|cc|cpp|cxx|C))\b`)
)

// makeDefaultFiles are the names make reads by itself when no -f names one, in its order.
var makeDefaultFiles = []string{"GNUmakefile", "makefile", "Makefile"}

// makefileIn is the makefile GNU make reads in dir (its order: GNUmakefile, makefile,
// Makefile), and whether dir has one.
func makefileIn(files []string, dir string) (string, bool) {
	for _, n := range makeDefaultFiles {
		if p := path.Join(dir, n); slices.Contains(files, p) {
			return p, true
		}
	}
	return "", false
}

func makeSubdirMakefile(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.ReadFile == nil || env.Plan == nil || len(env.Files) == 0 {
		return nil, "no build files, no file list or no plan"
	}
	m := makeNoRuleBare.FindStringSubmatch(f.Message)
	if m == nil {
		m = makeNoRuleBare.FindStringSubmatch(f.text())
	}
	if m == nil {
		return nil, "no missing file named"
	}
	target := m[1]
	// The make -C DIR of the failed command (else of the plan's phase that failed).
	var dir, fileArg string
	for _, line := range append([]string{f.Command}, commandsBefore(*env.Plan, f.Phase)...) {
		if loc := makeDirArg.FindStringSubmatchIndex(line); loc != nil {
			dir = path.Clean(strings.TrimPrefix(line[loc[4]:loc[5]], "./"))
			// A platform makefile the plan names (make -C DIR -f makefile.unix).
			if fm := makeFileArg.FindStringSubmatch(line[loc[5]:]); fm != nil {
				fileArg = fm[2]
			}
			break
		}
	}
	if dir == "" || dir == "." || path.IsAbs(dir) || strings.HasPrefix(dir, "..") {
		return nil, "the failed make runs in the top directory (no make -C DIR inside the tree)"
	}
	if slices.Contains(env.Files, path.Join(dir, target)) {
		return nil, fmt.Sprintf("%s is in %s: make lacks a rule, not the file", target, dir)
	}
	mk, ok := makefileIn(env.Files, dir)
	if fileArg != "" {
		mk, ok = path.Join(dir, fileArg), slices.Contains(env.Files, path.Join(dir, fileArg))
	}
	if !ok {
		return nil, fmt.Sprintf("%s has no makefile of its own", dir)
	}
	top := ""
	for up := path.Dir(dir); ; up = path.Dir(up) {
		if slices.Contains(env.Files, path.Join(up, target)) {
			top = up
			break
		}
		if up == "." {
			break
		}
	}
	if top == "" {
		return nil, fmt.Sprintf("the tree has no %s in a directory above %s (a file the tarball lacks)", target, dir)
	}
	// The makefile's other sources must be there too: the makefile is written for that
	// directory, not for one of its own that a file is missing from.
	b, err := env.ReadFile(ctx, mk)
	if err != nil || len(b) > maxMakefile {
		return nil, fmt.Sprintf("cannot read %s", mk)
	}
	above, beside := 0, 0
	var named []string
	for _, w := range makeSourceWord.FindAllStringSubmatch(string(b), 512) {
		if slices.Contains(named, w[1]) {
			continue
		}
		named = append(named, w[1])
		if slices.Contains(env.Files, path.Join(top, w[1])) {
			above++
		}
		if slices.Contains(env.Files, path.Join(dir, w[1])) {
			beside++
		}
	}
	if above <= beside {
		return nil, fmt.Sprintf("%s names %d sources of %s and %d beside it: it is written for its own directory", mk, above, top, beside)
	}
	rel := strings.TrimPrefix(mk, top+"/")
	repl := "-f " + rel
	if top != "." {
		repl = "-C " + top + " -f " + rel
	}
	plan, _, ok := editPlan(*env.Plan, "", []planEdit{{where: "make", all: true, do: func(line string) (string, bool) {
		// Every make -C DIR of the line (the build and its check), the last first so
		// the earlier offsets hold.
		locs := makeDirArg.FindAllStringSubmatchIndex(line, 16)
		changed := false
		for k := len(locs) - 1; k >= 0; k-- {
			loc := locs[k]
			if path.Clean(strings.TrimPrefix(line[loc[4]:loc[5]], "./")) != dir {
				continue
			}
			rest := line[loc[5]:]
			if fm := makeFileArg.FindStringSubmatchIndex(rest); fm != nil {
				// The makefile's own -f goes: repl names it from the new directory.
				rest = rest[:fm[2]] + rest[fm[3]:]
			}
			line, changed = line[:loc[2]]+repl+rest, true
		}
		return line, changed
	}}})
	if !ok {
		return nil, "the plan runs no make -C " + dir
	}
	where := "the top directory"
	if top != "." {
		where = top
	}
	return &Fix{
		Analysis: fmt.Sprintf("make -C %s reads %s, whose prerequisites are files of %s: %s is there, not in %s (%d of the %d sources %s names are in %s). "+
			"The makefile is written to run beside the sources, so the build runs it from there with -f, as the distribution's build does.",
			dir, mk, where, target, dir, above, len(named), mk, where),
		Strategy: "run make " + repl + " instead of make -C " + dir,
		Plan:     &plan,
	}, ""
}

// commandsBefore lists the plan's commands from the failed phase back to the first.
func commandsBefore(plan atesor.BuildPlan, failedPhase string) []string {
	var out []string
	for i := phaseEnd(plan, failedPhase); i >= 0; i-- {
		cmds := plan.Phases[i].Commands
		for j := len(cmds) - 1; j >= 0; j-- {
			out = append(out, cmds[j])
		}
	}
	return out
}

// makeNoRuleSource is the form whose missing file is a C or C++ source an object needs
// (bzrtp 5.3.105: src/Makefile.am still lists cryptoUtils.c, which upstream renamed
// cryptoUtils.cc when it moved to CMake).
var makeNoRuleSource = re("No rule to make target [`'‘]([^'’`\\s]+\\.(?:c|cc|cpp|cxx|C|c\\+\\+))['’], needed by [`'‘][^'’`\\s]+\\.(?:o|lo|obj)['’]")

// sourceExts are the extensions a renamed C or C++ source takes.
var sourceExts = []string{".c", ".cc", ".cpp", ".cxx", ".C", ".c++"}

func automakeStaleSourcesRule() Rule {
	return Rule{
		Name: "automake-stale-sources",
		Doc: "a Makefile.am lists a source the tree has only under another extension (renamed when upstream moved to CMake or meson, whose build files list the new name): " +
			"the autotools files are stale, so build with that system, keeping the packages installed so far",
		Signatures: []*regexp.Regexp{makeNoRuleSource},
		Make:       makeAutomakeStaleSources,
	}
}

// renamedSource finds the Makefile.am that lists missing (as make named it, relative to
// the Makefile.am's directory) in a _SOURCES variable while the tree lacks it, and the
// file of the same stem and another source extension the tree has instead.
func renamedSource(ctx context.Context, env Env, missing string) (am, renamed string, line int) {
	read := 0
	for _, p := range env.Files {
		if path.Base(p) != "Makefile.am" || noiseDir(p) {
			continue
		}
		if read++; read > maxAMFiles {
			break
		}
		dir := path.Dir(p)
		if slices.Contains(env.Files, path.Join(dir, missing)) {
			continue
		}
		stem := strings.TrimSuffix(path.Join(dir, missing), path.Ext(missing))
		var other string
		for _, ext := range sourceExts {
			if c := stem + ext; c != path.Join(dir, missing) && slices.Contains(env.Files, c) {
				other = c
				break
			}
		}
		if other == "" {
			continue
		}
		b, err := env.ReadFile(ctx, p)
		if err != nil || len(b) > maxAutotoolsFile {
			continue
		}
		for _, a := range amAssignments(string(b)) {
			if !strings.HasSuffix(a.name, "_SOURCES") {
				continue
			}
			for _, w := range a.words {
				if path.Clean(w.text) == path.Clean(missing) {
					return p, other, a.line
				}
			}
		}
	}
	return "", "", 0
}

// listedBy returns the first CMake or meson file of the tree that names file (by its
// path relative to that build file's directory, or its base name as a word).
func listedBy(ctx context.Context, env Env, system atesor.BuildSystem, file string) (string, bool) {
	names := map[atesor.BuildSystem][]string{atesor.BuildCMake: {"CMakeLists.txt"}, atesor.BuildMeson: {"meson.build"}}[system]
	read := 0
	for _, p := range env.Files {
		if !slices.Contains(names, path.Base(p)) || noiseDir(p) {
			continue
		}
		if read++; read > maxListingFiles {
			break
		}
		dir := path.Dir(p)
		if dir != "." && !strings.HasPrefix(file, dir+"/") {
			continue
		}
		b, err := env.ReadFile(ctx, p)
		if err != nil || len(b) > maxMakefile {
			continue
		}
		rel := strings.TrimPrefix(file, dir+"/")
		word := regexp.MustCompile(`(?:^|[\s("'/])` + regexp.QuoteMeta(rel) + `(?:$|[\s)"'])`)
		if word.Match(b) {
			return p, true
		}
	}
	return "", false
}

func makeAutomakeStaleSources(ctx context.Context, f Failure, env Env) (*Fix, string) {
	det := env.Detection
	if env.ReadFile == nil || env.Plan == nil || len(env.Files) == 0 || det == nil {
		return nil, "no build files, no file list, no detection or no plan"
	}
	if kind, ok := planConfigureKind(*env.Plan, f.Phase); !ok || kind.name != autotoolsKind.name {
		return nil, "the plan does not build with the autotools"
	}
	m := makeNoRuleSource.FindStringSubmatch(f.Message)
	if m == nil {
		m = makeNoRuleSource.FindStringSubmatch(f.text())
	}
	if m == nil {
		return nil, "no missing source named"
	}
	am, renamed, line := renamedSource(ctx, env, m[1])
	if am == "" {
		return nil, fmt.Sprintf("no Makefile.am lists %s in a _SOURCES variable while the tree has it under another extension", m[1])
	}
	candidates := append([]atesor.BuildCandidate{{BuildSystem: det.BuildSystem, Evidence: det.Evidence, Confidence: det.Confidence}}, det.Alternatives...)
	for _, alt := range candidates {
		if alt.BuildSystem != atesor.BuildCMake && alt.BuildSystem != atesor.BuildMeson {
			continue
		}
		if _, ok := secondaryDir(alt.Evidence); ok {
			continue
		}
		by, ok := listedBy(ctx, env, alt.BuildSystem, renamed)
		if !ok {
			continue
		}
		next := detectionFor(det, alt)
		plan, _, err := knowledge.DefaultPlan(&next, env.Platform)
		if err != nil || len(plan.Phases) == 0 {
			continue
		}
		// What the run installed for this source is still needed (its libraries do not
		// depend on the build system): the default plan keeps the packages.
		plan = withPackages(plan, env, planInstalls(*env.Plan, installCommand(env)))
		if samePlan(plan, *env.Plan) {
			continue
		}
		return &Fix{
			Analysis: fmt.Sprintf("make has no rule for %s: %s:%d lists it, but the tree has %s instead, which %s lists. "+
				"The autotools files are stale (upstream renamed the source when it moved to %s and stopped keeping Makefile.am in step), "+
				"so the build uses the %s build the tree maintains, with the packages installed so far.",
				m[1], am, line, renamed, by, alt.BuildSystem, alt.BuildSystem),
			Strategy: fmt.Sprintf("switch to the default %s plan (%s), keeping the installed packages", alt.BuildSystem, alt.Evidence),
			Plan:     &plan,
		}, ""
	}
	return nil, fmt.Sprintf("the tree has %s for %s, but no CMake or meson build of it lists %s", renamed, m[1], renamed)
}

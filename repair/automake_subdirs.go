package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// automakeMissing are the autotools' reports of a file or directory the tree lacks,
// with the path in the last group: config.status of an input file
// (AC_CONFIG_FILES([tests/Makefile]) with tests/ stripped), automake of a Makefile.in
// it must generate and of a SUBDIRS directory. Paths are relative to the directory of
// configure.ac. Whether the directory is really missing is checked against the tree:
// automake's "required file './compile' not found" is the autoreconf rule's.
var automakeMissing = []*regexp.Regexp{
	re("config\\.status: error: cannot find input file: [`'‘]([^'’`\\s]+)['’]"),
	re(`(?m)^\S+:\d+: error: required file '([^'\s]+)' not found`),
	re(`(?m)^\S*Makefile\.am:\d+: error: required directory (\S+) does not exist`),
}

// automakeMissingDir says which of automakeMissing name the directory itself rather
// than a file in it.
var automakeMissingDir = []bool{false, false, true}

// maxMissingDirs bounds the missing directories one fix drops.
const maxMissingDirs = 8

func automakeSubdirRule() Rule {
	return Rule{
		Name: "automake-missing-subdir",
		Doc: "configure.ac and Makefile.am name a directory the tarball lacks (a repack strips tests/ or a vendored copy): " +
			"drop it from AC_CONFIG_FILES, AC_CONFIG_SUBDIRS and SUBDIRS, then autoreconf",
		Signatures: automakeMissing,
		Make:       makeAutomakeSubdir,
	}
}

// autoconfDir is the directory of the tree's configure.ac (or configure.in) nearest the
// top, the one the build runs.
func autoconfDir(files []string) (string, bool) {
	dir, found := "", false
	for _, p := range files {
		if b := path.Base(p); (b == "configure.ac" || b == "configure.in") && !noiseDir(p) {
			if d := path.Dir(p); !found || strings.Count(d, "/") < strings.Count(dir, "/") || d == "." {
				dir, found = d, true
			}
		}
	}
	return dir, found
}

// autoconfPackages are the packages autoreconf -fi needs.
func autoconfPackages(env Env) []string {
	if env.Platform.PackageManager == "apk" {
		return []string{"autoconf", "automake", "libtool", "gettext-dev", "pkgconf"}
	}
	return []string{"autoconf", "automake", "libtool", "autopoint", "pkg-config"}
}

// missingDirOf returns the first directory of rel (relative to root) that holds no
// file of the tree, and whether there is one. A path outside the tree, or deeper than
// the file list reaches, has none.
func missingDirOf(files []string, root, rel string, isDir bool) (string, bool) {
	rel = path.Clean(strings.TrimPrefix(rel, "./"))
	if rel == "." || path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	dir := rel
	if !isDir {
		dir = path.Dir(rel)
	}
	if dir == "." || strings.Count(path.Join(root, dir), "/") >= 6 {
		return "", false
	}
	parts := strings.Split(dir, "/")
	for i := range parts {
		d := strings.Join(parts[:i+1], "/")
		full := path.Join(root, d) + "/"
		if !slices.ContainsFunc(files, func(f string) bool { return strings.HasPrefix(f, full) }) {
			return d, true
		}
	}
	return "", false
}

func makeAutomakeSubdir(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.ReadFile == nil || env.Plan == nil || len(env.Files) == 0 || len(env.Files) >= 20000 {
		return nil, "no build files, no file list or no plan"
	}
	root, ok := autoconfDir(env.Files)
	if !ok {
		return nil, "the tree has no configure.ac or configure.in"
	}
	var missing, named []string
	text := f.text() + "\n" + f.Message
	for k, sig := range automakeMissing {
		for _, m := range sig.FindAllStringSubmatch(text, 32) {
			p := m[len(m)-1]
			if d, ok := missingDirOf(env.Files, root, p, automakeMissingDir[k]); ok {
				if !slices.Contains(missing, d) && len(missing) < maxMissingDirs {
					missing = append(missing, d)
				}
			} else if !slices.Contains(named, p) {
				named = append(named, p)
			}
		}
	}
	if len(missing) == 0 {
		return nil, fmt.Sprintf("the directories of %s are in the tree (a missing file, not a missing directory)", strings.Join(named, ", "))
	}
	slices.Sort(missing)
	var actions []atesor.Action
	var where []string
	// configure.ac: the files config.status creates there and the configure it runs there.
	acFile := ""
	for _, name := range []string{"configure.ac", "configure.in"} {
		if slices.Contains(env.Files, path.Join(root, name)) {
			acFile = path.Join(root, name)
			break
		}
	}
	if b, err := env.ReadFile(ctx, acFile); err == nil && len(b) <= maxAutotoolsFile {
		src := string(b)
		var drop []span
		for _, mac := range m4ListMacros(src) {
			for _, w := range mac.words {
				for _, d := range missing {
					if mac.name == "AC_CONFIG_SUBDIRS" && path.Clean(w.text) == d || mac.name != "AC_CONFIG_SUBDIRS" && configFileUnder(w.text, d) {
						drop = append(drop, w.at)
						where = append(where, fmt.Sprintf("%s:%d %s lists %s", acFile, mac.line, mac.name, w.text))
						break
					}
				}
			}
		}
		if diff, ok := changedLinesDiff(acFile, src, dropSpans(src, drop)); ok {
			actions = append(actions, atesor.Action{Type: atesor.ActionPatch, File: acFile, Diff: diff})
		}
	}
	// Makefile.am: the SUBDIRS of each directory above a missing one.
	edits := map[string][]span{}
	var amFiles []string
	for _, d := range missing {
		for up := path.Dir(d); ; up = path.Dir(up) {
			am := path.Join(root, up, "Makefile.am")
			rel := strings.TrimPrefix(d, up+"/")
			if up == "." {
				rel = d
			}
			if b, err := env.ReadFile(ctx, am); err == nil && len(b) <= maxAutotoolsFile && slices.Contains(env.Files, am) {
				spans, vars := subdirWords(string(b), rel)
				if len(spans) > 0 {
					if !slices.Contains(amFiles, am) {
						amFiles = append(amFiles, am)
					}
					edits[am] = append(edits[am], spans...)
					where = append(where, fmt.Sprintf("%s's %s names %s", am, strings.Join(vars, " and "), rel))
				}
			}
			if up == "." {
				break
			}
		}
	}
	for _, am := range amFiles {
		b, err := env.ReadFile(ctx, am)
		if err != nil {
			continue
		}
		if diff, ok := changedLinesDiff(am, string(b), dropSpans(string(b), edits[am])); ok {
			actions = append(actions, atesor.Action{Type: atesor.ActionPatch, File: am, Diff: diff})
		}
	}
	dirs := strings.Join(missing, ", ")
	if len(actions) == 0 {
		return nil, fmt.Sprintf("the tree lacks %s, but no AC_CONFIG_FILES, AC_CONFIG_SUBDIRS or SUBDIRS entry the rule can edit names it", dirs)
	}
	plan, regen, ok := withAutoreconf(*env.Plan, f.Phase, env)
	if !ok {
		return nil, "no ./configure command in the plan to regenerate before"
	}
	left := "whatever they held is not built; a build or verification that needed it fails on its own error"
	purposes := []string{}
	for _, d := range missing {
		if p := purposeOf(d); p != "" && !slices.Contains(purposes, p) {
			purposes = append(purposes, p)
		}
	}
	if len(purposes) == len(missing) {
		left = "this leaves out the package's " + strings.Join(purposes, " and ") + ", so no evidence comes from them"
	}
	analysis := fmt.Sprintf("The tarball lacks %s (a repacked source strips such directories), yet the build still names it: %s. "+
		"The build drops those entries and regenerates configure and the Makefile.in files; %s.", dirs, strings.Join(where, "; "), left)
	strategy := "drop " + dirs + " from " + strings.Join(patchedFiles(actions), " and ")
	if regen {
		strategy += ", and run autoreconf -fi before ./configure"
	}
	fix := &Fix{Analysis: analysis, Strategy: strategy, Actions: actions}
	if regen {
		fix.Plan = &plan
	}
	return fix, ""
}

func patchedFiles(actions []atesor.Action) []string {
	var out []string
	for _, a := range actions {
		out = append(out, a.File)
	}
	return out
}

// configureRun is a plan line's ./configure command.
var configureRun = re(`(^|&&\s*|;\s*|\|\|\s*)\./configure(\s|$)`)

// withAutoreconf returns the plan with autoreconf -fi before the ./configure that
// builds (the failing phase's or the nearest before it) and the autotools in its setup,
// and whether the plan changed; a plan that already runs autoreconf there is returned
// as is. ok is false when the plan runs no ./configure.
func withAutoreconf(plan atesor.BuildPlan, failedPhase string, env Env) (atesor.BuildPlan, bool, bool) {
	end := phaseEnd(plan, failedPhase)
	for i := end; i >= 0; i-- {
		for j, line := range plan.Phases[i].Commands {
			loc := configureRun.FindStringSubmatchIndex(line)
			if loc == nil {
				continue
			}
			if strings.Contains(line[:loc[3]], "autoreconf") || phasesRun(plan, i, j, "autoreconf") {
				return plan, false, true
			}
			phases := slices.Clone(plan.Phases)
			cmds := slices.Clone(phases[i].Commands)
			cmds[j] = line[:loc[3]] + "autoreconf -fi && " + line[loc[3]:]
			phases[i].Commands = cmds
			plan.Phases = phases
			return withPackages(plan, env, autoconfPackages(env)), true, true
		}
	}
	return plan, false, false
}

// phasesRun reports whether a command before plan.Phases[i].Commands[j] runs word.
func phasesRun(plan atesor.BuildPlan, i, j int, word string) bool {
	for pi := 0; pi <= i; pi++ {
		for cj, c := range plan.Phases[pi].Commands {
			if pi == i && cj >= j {
				break
			}
			if strings.Contains(c, word) {
				return true
			}
		}
	}
	return false
}

package repair

import (
	"context"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// noBuildFile is the discovery plan's report that the tree has no build file it knows.
var noBuildFile = re(`no standard build file \([^)]*\) at the top level`)

// maxBareSources bounds the source files of a tree built without a build system: more
// is a project whose build files are missing, not a program in a handful of files.
const maxBareSources = 64

// maxBarePrograms bounds the programs one such tree makes.
const maxBarePrograms = 8

// mainDefinition is a line that defines main (int main(int argc, char **argv) {, or K&R's
// "main(argc, argv)" under its "int" line); a prototype ends in a semicolon.
var mainDefinition = regexp.MustCompile(`(?m)^[ \t]*(?:(?:static[ \t]+)?(?:int|void|signed)[ \t*]+)?main[ \t]*\([^;{]*(?:\{|$)`)

// buildFileNames are the files that make a tree's build something other than bare
// sources: a build system of some directory, which the other rules answer.
var buildFileNames = regexp.MustCompile(`(?i)^(?:(?:GNU)?makefile(?:[._-].*)?|.*\.mk|.*\.mak|CMakeLists\.txt|meson\.build|configure(?:\.ac|\.in)?|Makefile\.(?:am|in)|SConstruct|wscript|build\.ninja|.*\.pro|BUILD(?:\.bazel)?|Cargo\.toml|go\.mod|setup\.py|Makefile\.PL|Build\.PL)$`)

func bareSourcesRule() Rule {
	return Rule{
		Name: "bare-sources-program",
		Doc: "a tree with C or C++ sources in one directory and no build file at all (morsegen's one morsegen.c, which Debian's rules compile with " +
			"gcc -o morsegen *.c): each file that defines main is compiled with the directory's other sources into the program named after it",
		Signatures: []*regexp.Regexp{noBuildFile},
		Make:       makeBareSources,
	}
}

// bareSources are a tree's sources when it is one directory of C or C++ files and
// nothing that builds them: the directory, the files and the compiler driver.
type bareSources struct {
	dir      string
	files    []string
	compiler string // cc or c++
}

// findBareSources returns the tree's bare sources, or why it is not such a tree.
func findBareSources(files []string) (bareSources, string) {
	byDir := map[string][]string{}
	cxx := false
	for _, p := range files {
		if noiseDir(p) {
			continue
		}
		b := path.Base(p)
		if buildFileNames.MatchString(b) {
			return bareSources{}, "the tree has a build file (" + p + "): its build system is the one to repair"
		}
		switch strings.ToLower(path.Ext(b)) {
		case ".c":
			byDir[path.Dir(p)] = append(byDir[path.Dir(p)], p)
		case ".cc", ".cpp", ".cxx", ".c++":
			byDir[path.Dir(p)] = append(byDir[path.Dir(p)], p)
			cxx = true
		}
	}
	if len(byDir) == 0 {
		return bareSources{}, "the tree has no C or C++ sources"
	}
	if len(byDir) > 1 {
		dirs := slices.Sorted(maps.Keys(byDir))
		return bareSources{}, "the sources are in several directories (" + strings.Join(dirs, ", ") + "): which make one program is not mechanical"
	}
	var bs bareSources
	for d, fs := range byDir {
		bs.dir, bs.files = d, fs
	}
	if len(bs.files) > maxBareSources {
		return bareSources{}, fmt.Sprintf("%d source files and no build file: the build files are missing, not unneeded", len(bs.files))
	}
	slices.Sort(bs.files)
	bs.compiler = "cc"
	if cxx {
		for _, f := range bs.files {
			if strings.EqualFold(path.Ext(f), ".c") {
				return bareSources{}, "C and C++ sources side by side: which compiler builds which is not mechanical"
			}
		}
		bs.compiler = "c++"
	}
	return bs, ""
}

func makeBareSources(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.ReadFile == nil || env.Plan == nil || len(env.Files) == 0 {
		return nil, "no file list, no reader or no plan"
	}
	bs, why := findBareSources(env.Files)
	if why != "" {
		return nil, why
	}
	var mains, rest []string
	for _, p := range bs.files {
		b, err := env.ReadFile(ctx, p)
		if err != nil || len(b) > maxAutotoolsFile {
			return nil, "cannot read " + p
		}
		if mainDefinition.Match(b) {
			mains = append(mains, p)
		} else {
			rest = append(rest, p)
		}
	}
	if len(mains) == 0 {
		return nil, "no source defines main: a library without its build files"
	}
	if len(mains) > maxBarePrograms {
		return nil, fmt.Sprintf("%d sources define main", len(mains))
	}
	var cmds, programs []string
	for _, m := range mains {
		name := strings.TrimSuffix(path.Base(m), path.Ext(m))
		if !plainArg.MatchString(name) {
			return nil, "a program name that needs quoting: " + name
		}
		out := name
		if bs.dir != "." {
			out = path.Join(bs.dir, name)
		}
		args := []string{bs.compiler, "-O2", "-g", "-o", out, quoteArg(m)}
		for _, r := range rest {
			args = append(args, quoteArg(r))
		}
		cmds = append(cmds, strings.Join(args, " "))
		programs = append(programs, out)
	}
	plan := atesor.BuildPlan{Reasoning: "The tree is " + bs.compiler + " sources with no build file; each one that defines main is a program."}
	for _, ph := range env.Plan.Phases {
		if ph.Name == "setup" {
			plan.Phases = append(plan.Phases, ph)
		}
	}
	plan = withPackages(plan, env, []string{"build-essential"})
	plan.Phases = append(plan.Phases, atesor.Phase{Name: "build", Commands: []string{strings.Join(cmds, " && ")}})
	verb := "defines"
	if len(mains) > 1 {
		verb = "define"
	}
	return &Fix{
		Analysis: fmt.Sprintf("The tree has no build file: %d %s source file(s) in %s, of which %s %s main. Such a program is built the way its "+
			"distribution's packaging does (compile and link the sources in one command), each main with the sources that do not define one.",
			len(bs.files), map[string]string{"cc": "C", "c++": "C++"}[bs.compiler], displayDir(bs.dir), strings.Join(mains, ", "), verb),
		Strategy: "build " + strings.Join(programs, ", ") + " with " + bs.compiler + " -O2 -g",
		Plan:     &plan,
	}, ""
}

// displayDir shows the top directory as "the top level".
func displayDir(d string) string {
	if d == "." {
		return "the top level"
	}
	return d + "/"
}

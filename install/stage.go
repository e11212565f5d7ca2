package install

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/gotool"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
	"github.com/eclipse-atesor/atesor-go/knowledge"
)

// stageDirName is the staging directory of the install step, inside the repository so
// that every backend can read it (and the fixes never write there).
const stageDirName = ".atesor-stage"

// installTimeout bounds one install command.
const installTimeout = 15 * time.Minute

// StageDir is the sandbox path of a package's install staging directory.
func StageDir(repoDir string) string { return repoDir + "/" + stageDirName }

// InStage reports whether a sandbox path lies in the staging directory, so that a scan
// of the build tree leaves the staged copies out.
func InStage(repoDir, p string) bool {
	return strings.HasPrefix(p, StageDir(repoDir)+"/")
}

// Execer runs a command in the sandbox; it is all of the sandbox the install step's
// own commands (finding the build directory, listing the staged files) use.
type Execer interface {
	Exec(ctx context.Context, cmd atesor.Command) (atesor.CommandResult, error)
}

// Every sandbox is an Execer.
var _ Execer = atesor.Sandbox(nil)

// Package is what the install step reads of a built package.
type Package struct {
	// RepoDir is the repository's sandbox path; the stage is below it.
	RepoDir string
	// Detection is the scripted detection (build system, build and module directory,
	// a shipped configure script); nil when there was none.
	Detection *atesor.Detection
	// BuildSystem is the analysis' build system when it chose one; it wins over the
	// detection's ("" or unknown: the detection's).
	BuildSystem atesor.BuildSystem
	// Plan is the build plan (its go commands' build tags are the install's too).
	Plan *atesor.BuildPlan
	// GoToolchain is the Go toolchain the build used (nil: the suite's).
	GoToolchain *atesor.GoToolchain
	// CargoWorkspacePrograms are the programs of a virtual cargo workspace (a root
	// Cargo.toml without a package of its own), which cargo install cannot install:
	// the install step copies each one cargo build --release built instead.
	CargoWorkspacePrograms []string
}

// Stager runs the install step.
type Stager struct {
	// Sandbox runs the step's own commands.
	Sandbox Execer
	// Run runs one install line as the build runs a plan command (the safety rules,
	// live output, the build's environment, the recipe's record), within timeout.
	// failed reports a line that ran and failed; err a line that could not run.
	Run func(ctx context.Context, line string, timeout time.Duration) (res atesor.CommandResult, failed bool, err error)
	// Emit reports progress (nil: none). Events carry Phase "install" and no node name:
	// the caller adds its own.
	Emit func(atesor.Event)
}

// Stage runs the build system's install step into the staging directory after a
// successful build and lists what it installed. A failed or missing install step is
// recorded in the result (Error), not returned: the curator rules then choose the
// primary artifacts alone.
func (st Stager) Stage(ctx context.Context, pkg Package) *atesor.Install {
	emit := st.Emit
	if emit == nil {
		emit = func(atesor.Event) {}
	}
	inst := &atesor.Install{StageDir: StageDir(pkg.RepoDir)}
	method, lines, err := commands(ctx, st.Sandbox, pkg)
	inst.Method = method
	if err != nil {
		inst.Error = err.Error()
		emit(atesor.Event{Kind: atesor.EventInfo, Phase: "install", Line: "no install step: " + inst.Error})
		return inst
	}
	emit(atesor.Event{Kind: atesor.EventPhase, Phase: "install"})
	for _, line := range lines {
		res, failed, err := st.Run(ctx, line, installTimeout)
		if err != nil {
			inst.Error = err.Error()
			return inst
		}
		if failed {
			inst.Error = fmt.Sprintf("`%s` failed (exit %d): %s", line, res.ExitCode, excerpt.Tail(strings.TrimSpace(res.Output), 600))
			emit(atesor.Event{Kind: atesor.EventInfo, Phase: "install", Line: "install step failed: the curator rules choose the artifacts", Err: excerpt.FirstLine(inst.Error)})
			return inst
		}
		inst.Commands = append(inst.Commands, line)
	}
	if line, n := fixPermsLine(ctx, st.Sandbox, inst.StageDir); line != "" {
		// Recorded as an install line, so the recipe's install does it too.
		if _, failed, err := st.Run(ctx, line, installTimeout); err == nil && !failed {
			inst.Commands = append(inst.Commands, line)
			emit(atesor.Event{Kind: atesor.EventInfo, Phase: "install", Line: fmt.Sprintf("made %s in a bin directory executable, as Debian's dh_fixperms does", count(n, "staged file", "staged files"))})
		}
	}
	files, err := listStaged(ctx, st.Sandbox, inst.StageDir)
	if err != nil {
		inst.Error = err.Error()
		return inst
	}
	inst.OK = true
	inst.Files = files
	for _, f := range files {
		if isDevFile(f) {
			inst.DevFiles = append(inst.DevFiles, f)
		}
	}
	emit(atesor.Event{Kind: atesor.EventInfo, Phase: "install", Line: fmt.Sprintf("staged %s (%s)", count(len(files), "file", "files"), count(len(inst.DevFiles), "development file", "development files"))})
	return inst
}

// commands returns the install method and its command lines for the package's build
// system: DESTDIR for make, autotools, Perl's MakeMaker and meson, DESTDIR with cmake
// --install, GOBIN for go install, cargo install --root (a virtual workspace's built
// programs copied), R CMD INSTALL --library for an R package.
func commands(ctx context.Context, sb Execer, pkg Package) (string, []string, error) {
	stage := StageDir(pkg.RepoDir)
	bs, buildDir, shipped := atesor.BuildUnknown, "", false
	if d := pkg.Detection; d != nil {
		bs, buildDir, shipped = d.BuildSystem, d.BuildDir, d.ShippedConfigure
	}
	if pkg.BuildSystem != "" && pkg.BuildSystem != atesor.BuildUnknown {
		bs = pkg.BuildSystem
	}
	if pkg.Plan != nil && !runsSystem(pkg.Plan, bs) {
		// A fix switched the build (next-build-system): install the way the plan built.
		if ran := PlanBuildSystem(pkg.Plan); ran != bs && cBuild[ran] && cBuild[bs] {
			bs, buildDir, shipped = ran, "", false
		}
	}
	clean := "rm -rf " + shellwords.Quote(stage)
	q := shellwords.Quote(stage)
	switch bs {
	case atesor.BuildCMake:
		dir, err := findBuildDir(ctx, sb, pkg.RepoDir, "-type f -name CMakeCache.txt")
		if err != nil {
			return "cmake", nil, err
		}
		return "cmake", []string{clean + " && DESTDIR=" + q + " cmake --install " + shellwords.Quote(dir)}, nil
	case atesor.BuildMeson:
		dir, err := findBuildDir(ctx, sb, pkg.RepoDir, "-type d -name meson-info")
		if err != nil {
			return "meson", nil, err
		}
		return "meson", []string{clean + " && DESTDIR=" + q + " meson install -C " + shellwords.Quote(dir) + " --no-rebuild"}, nil
	case atesor.BuildAutotools, atesor.BuildMake:
		mf := ""
		if bs == atesor.BuildMake && pkg.Detection != nil && pkg.Detection.BuildSystem == atesor.BuildMake {
			mf = knowledge.MakefileArgs(pkg.Detection) // the platform makefile the build read
		}
		return "make", []string{clean + " && " + inDirLine(buildDir, "make "+mf+"install DESTDIR="+q)}, nil
	case atesor.BuildPerl:
		// MakeMaker's Makefile honours DESTDIR; the module goes under the stage's
		// site_perl directories.
		return "perl", []string{clean + " && " + inDirLine(buildDir, "make install DESTDIR="+q)}, nil
	case atesor.BuildR:
		// R CMD INSTALL again, into the stage's site library: src/ is built already,
		// so it copies the package, its shared object among it, and loads it once more.
		lib := shellwords.Quote(stage + rSiteLibrary)
		return "r", []string{clean + " && mkdir -p " + lib + " && " + inDirLine(buildDir, "R CMD INSTALL --no-docs --no-html --library="+lib+" .")}, nil
	case atesor.BuildGo:
		mod := buildDir
		if pkg.Detection != nil && pkg.Detection.ModuleDir != "" && pkg.Detection.ModuleDir != "." {
			mod = pkg.Detection.ModuleDir
		}
		line := inDirLine(mod, gotool.InstallLine(pkg.GoToolchain, stage+"/usr/local/bin"))
		// Go packages with no go.mod built in GOPATH mode install the same way.
		if gp, ok := knowledge.GoPathInstallLine(pkg.Detection, pkg.Plan, stage+"/usr/local/bin"); ok {
			line = gp
		}
		return "go", gotool.WithPlanTags([]string{clean + " && " + line}, pkg.Plan), nil
	case atesor.BuildCargo:
		if len(pkg.CargoWorkspacePrograms) > 0 {
			bin := shellwords.Quote(stage + "/usr/local/bin")
			progs := make([]string, len(pkg.CargoWorkspacePrograms))
			for i, p := range pkg.CargoWorkspacePrograms {
				progs[i] = shellwords.Quote("target/release/" + path.Base(p))
			}
			return "cargo", []string{clean + " && mkdir -p " + bin + " && " + inDirLine(buildDir, "cp "+strings.Join(progs, " ")+" "+bin+"/")}, nil
		}
		return "cargo", []string{clean + " && " + inDirLine(buildDir, "cargo install --path . --root "+shellwords.Quote(stage+"/usr/local"))}, nil
	}
	if shipped {
		return "make", []string{clean + " && " + inDirLine(buildDir, "make install DESTDIR="+q)}, nil
	}
	return "", nil, fmt.Errorf("the %s build system has no known install step", bs)
}

// rSiteLibrary is where the stage holds an R package, as R's own site library for
// locally installed packages.
const rSiteLibrary = "/usr/local/lib/R/site-library"

// cBuild are the build systems next-build-system switches among (a Go or cargo build
// run by a Makefile is still installed the Go or cargo way).
var cBuild = map[atesor.BuildSystem]bool{atesor.BuildCMake: true, atesor.BuildMeson: true, atesor.BuildAutotools: true, atesor.BuildMake: true}

// inDirLine prefixes a command with a cd into a repository subdirectory.
func inDirLine(dir, line string) string {
	dir = strings.Trim(path.Clean("/"+dir), "/")
	if dir == "" {
		return line
	}
	return "cd " + shellwords.Quote(dir) + " && " + line
}

// findBuildDir finds the shallowest directory (relative to the repository) that holds
// what the find expression matches: CMakeCache.txt for CMake, meson-info for meson.
func findBuildDir(ctx context.Context, sb Execer, repoDir, expr string) (string, error) {
	line := "find . -maxdepth 3 -path ./" + stageDirName + " -prune -o " + expr + " -print"
	res, err := sb.Exec(ctx, atesor.Command{Line: line, Dir: repoDir, Timeout: 2 * time.Minute})
	if err != nil {
		return "", fmt.Errorf("find the build directory: %w", err)
	}
	best := ""
	for _, l := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		dir := path.Dir(l)
		if best == "" || strings.Count(dir, "/") < strings.Count(best, "/") || (strings.Count(dir, "/") == strings.Count(best, "/") && dir < best) {
			best = dir
		}
	}
	if best == "" {
		return "", fmt.Errorf("no build directory found (%s)", expr)
	}
	return best, nil
}

// listStaged lists the regular files and links below the staging directory, relative
// to it, sorted. An install step that ran and installed nothing (a CMake project with
// no install() rules: cmake --install prints its configuration and writes no file)
// leaves no staging directory at all: that is an empty list, not a failure.
func listStaged(ctx context.Context, sb Execer, stage string) ([]string, error) {
	res, err := sb.Exec(ctx, atesor.Command{Line: `find . \( -type f -o -type l \) -print`, Dir: stage, Timeout: 2 * time.Minute})
	if err != nil {
		return nil, fmt.Errorf("list the staged files: %w", err)
	}
	if !res.OK() {
		if stageAbsent(ctx, sb, stage) {
			return nil, nil
		}
		return nil, fmt.Errorf("list the staged files: exit %d: %s", res.ExitCode, excerpt.FirstLine(res.Output))
	}
	var files []string
	for _, l := range strings.Split(res.Stdout, "\n") {
		if l = strings.TrimPrefix(strings.TrimSpace(l), "./"); l != "" && l != "." {
			files = append(files, l)
		}
	}
	sort.Strings(files)
	return files, nil
}

// stageAbsent reports whether the staging directory does not exist (asked from its
// parent, the repository, since a command cannot start in a directory that is not
// there). Anything else, an error included, is not "absent".
func stageAbsent(ctx context.Context, sb Execer, stage string) bool {
	res, err := sb.Exec(ctx, atesor.Command{Line: "test ! -e " + shellwords.Quote(stage) + " && test ! -L " + shellwords.Quote(stage),
		Dir: path.Dir(stage), Timeout: time.Minute})
	return err == nil && res.OK()
}

// isDevFile reports whether a staged path is a development file: a header, a pkg-config
// file or a CMake package configuration file.
func isDevFile(p string) bool {
	base := path.Base(p)
	switch {
	case strings.Contains("/"+p, "/include/"):
		return true
	case strings.HasSuffix(base, ".pc") && strings.Contains(p, "pkgconfig/"):
		return true
	case strings.HasSuffix(base, ".cmake") && strings.Contains(p, "/cmake/"):
		return true
	}
	switch path.Ext(base) {
	case ".h", ".hh", ".hpp", ".hxx", ".h++":
		return true
	}
	return false
}

// count says n of a thing, singular or plural.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// maxFixPerms bounds the files one fixperms line names.
const maxFixPerms = 200

// fixPermsLine returns the line that makes the staged files of bin and sbin directories
// that are not executable executable, and how many there are ("" when there are none):
// a build that installs a built program with install(FILES) instead of
// install(PROGRAMS) (zst 0.4's CMakeLists.txt does both, the second copy last) stages it
// with mode 0644, and Debian's dh_fixperms makes every file in such a directory
// executable. Without it the program could not be run here.
func fixPermsLine(ctx context.Context, sb Execer, stage string) (string, int) {
	// NUL-separated: the names are the build's, and one with a newline in it would
	// otherwise read as two (the second of its choosing).
	res, err := sb.Exec(ctx, atesor.Command{Line: `find . -type f \( -path './*bin/*' -o -path './usr/games/*' \) ! -perm -u+x -print0`,
		Dir: stage, Timeout: 2 * time.Minute})
	if err != nil || !res.OK() {
		return "", 0
	}
	var files []string
	for _, name := range strings.Split(res.Stdout, "\x00") {
		l, ok := strings.CutPrefix(name, "./")
		if !ok || l == "" || path.Clean(l) != l || strings.HasPrefix(l, "../") || strings.ContainsFunc(l, unicode.IsControl) {
			continue // not a name find printed below the stage
		}
		if d := path.Base(path.Dir(l)); d != "bin" && d != "sbin" && d != "games" {
			continue // a file deeper below, in a directory of its own
		}
		files = append(files, shellwords.Quote(stage+"/"+l))
	}
	if len(files) == 0 || len(files) > maxFixPerms {
		return "", 0
	}
	sort.Strings(files)
	return "chmod 0755 " + strings.Join(files, " "), len(files)
}

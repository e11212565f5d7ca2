package graph

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/gotool"
	"github.com/eclipse-atesor/atesor-go/verify"
)

// stageDirName is the staging directory of the install step, inside the repository so
// that every backend can read it (and the fixes never write there).
const stageDirName = ".atesor-stage"

// installTimeout bounds one install command.
const installTimeout = 15 * time.Minute

// StageDir is the sandbox path of a package's install staging directory.
func StageDir(repoDir string) string { return repoDir + "/" + stageDirName }

// inStage reports whether a sandbox path lies in the staging directory.
func inStage(repoDir, p string) bool {
	return strings.HasPrefix(p, StageDir(repoDir)+"/")
}

// stageInstall runs the build system's install step into the staging directory after a
// successful build and lists what it installed. A failed or missing install step is
// recorded, not fatal: the curator rules then choose the primary artifacts alone.
func (r *run) stageInstall(ctx context.Context, s *atesor.State) {
	inst := &atesor.Install{StageDir: StageDir(s.RepoDir)}
	s.Install = inst
	method, lines, err := r.installCommands(ctx, s)
	inst.Method = method
	if err != nil {
		inst.Error = err.Error()
		r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeBuild, Phase: "install", Line: "no install step: " + inst.Error})
		return
	}
	r.emit(atesor.Event{Kind: atesor.EventPhase, Node: NodeBuild, Phase: "install"})
	for _, line := range lines {
		// A rerun after a fix moves the install to the end of the recipe's commands.
		s.ExecutedCommands = slices.DeleteFunc(s.ExecutedCommands, func(c string) bool { return c == line })
		res, failed, err := r.runPlanCommandWithin(ctx, s, NodeBuild, "install", line, installTimeout)
		if err != nil {
			inst.Error = err.Error()
			return
		}
		if failed {
			inst.Error = fmt.Sprintf("`%s` failed (exit %d): %s", line, res.ExitCode, tail(strings.TrimSpace(res.Output), 600))
			r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeBuild, Phase: "install", Line: "install step failed: the curator rules choose the artifacts", Err: firstLine(inst.Error)})
			return
		}
		inst.Commands = append(inst.Commands, line)
	}
	files, err := r.listStaged(ctx, inst.StageDir)
	if err != nil {
		inst.Error = err.Error()
		return
	}
	inst.OK = true
	inst.Files = files
	for _, f := range files {
		if isDevFile(f) {
			inst.DevFiles = append(inst.DevFiles, f)
		}
	}
	r.emit(atesor.Event{Kind: atesor.EventInfo, Node: NodeBuild, Phase: "install", Line: fmt.Sprintf("staged %s (%s)", count(len(files), "file", "files"), count(len(inst.DevFiles), "development file", "development files"))})
}

// installCommands returns the install method and its command lines for the package's
// build system: DESTDIR for make, autotools and meson, DESTDIR with cmake --install,
// GOBIN for go install, cargo install --root.
func (r *run) installCommands(ctx context.Context, s *atesor.State) (string, []string, error) {
	stage := StageDir(s.RepoDir)
	bs, buildDir, shipped := atesor.BuildUnknown, "", false
	if d := s.Detection; d != nil {
		bs, buildDir, shipped = d.BuildSystem, d.BuildDir, d.ShippedConfigure
	}
	if s.Analysis != nil && s.Analysis.BuildSystem != "" && s.Analysis.BuildSystem != atesor.BuildUnknown {
		bs = s.Analysis.BuildSystem
	}
	clean := "rm -rf " + shellQuote(stage)
	q := shellQuote(stage)
	switch bs {
	case atesor.BuildCMake:
		dir, err := r.findBuildDir(ctx, s, "-type f -name CMakeCache.txt")
		if err != nil {
			return "cmake", nil, err
		}
		return "cmake", []string{clean + " && DESTDIR=" + q + " cmake --install " + shellQuote(dir)}, nil
	case atesor.BuildMeson:
		dir, err := r.findBuildDir(ctx, s, "-type d -name meson-info")
		if err != nil {
			return "meson", nil, err
		}
		return "meson", []string{clean + " && DESTDIR=" + q + " meson install -C " + shellQuote(dir) + " --no-rebuild"}, nil
	case atesor.BuildAutotools, atesor.BuildMake:
		return "make", []string{clean + " && " + inDirLine(buildDir, "make install DESTDIR="+q)}, nil
	case atesor.BuildGo:
		mod := buildDir
		if s.Detection != nil && s.Detection.ModuleDir != "" && s.Detection.ModuleDir != "." {
			mod = s.Detection.ModuleDir
		}
		return "go", gotool.WithPlanTags([]string{clean + " && " + inDirLine(mod, gotool.InstallLine(s.GoToolchain, stage+"/usr/local/bin"))}, s.Plan), nil
	case atesor.BuildCargo:
		return "cargo", []string{clean + " && " + inDirLine(buildDir, "cargo install --path . --root "+shellQuote(stage+"/usr/local"))}, nil
	}
	if shipped {
		return "make", []string{clean + " && " + inDirLine(buildDir, "make install DESTDIR="+q)}, nil
	}
	return "", nil, fmt.Errorf("the %s build system has no known install step", bs)
}

// inDirLine prefixes a command with a cd into a repository subdirectory.
func inDirLine(dir, line string) string {
	dir = strings.Trim(path.Clean("/"+dir), "/")
	if dir == "" {
		return line
	}
	return "cd " + shellQuote(dir) + " && " + line
}

// findBuildDir finds the shallowest directory (relative to the repository) that holds
// what the find expression matches: CMakeCache.txt for CMake, meson-info for meson.
func (r *run) findBuildDir(ctx context.Context, s *atesor.State, expr string) (string, error) {
	line := "find . -maxdepth 3 -path ./" + stageDirName + " -prune -o " + expr + " -print"
	res, err := r.sb.Exec(ctx, atesor.Command{Line: line, Dir: s.RepoDir, Timeout: 2 * time.Minute})
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
// to it, sorted.
func (r *run) listStaged(ctx context.Context, stage string) ([]string, error) {
	res, err := r.sb.Exec(ctx, atesor.Command{Line: `find . \( -type f -o -type l \) -print`, Dir: stage, Timeout: 2 * time.Minute})
	if err != nil {
		return nil, fmt.Errorf("list the staged files: %w", err)
	}
	if !res.OK() {
		return nil, fmt.Errorf("list the staged files: exit %d: %s", res.ExitCode, firstLine(res.Output))
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

// chooseArtifacts decides the artifact roles after the curator rules: programs the
// build-system metadata marks as tests are secondary, and when the install step staged
// ELF files, those are the primary artifacts and the build tree's files are listed as
// secondary (copies of an installed file are left out). Otherwise the rules decide.
func (r *run) chooseArtifacts(ctx context.Context, s *atesor.State, built []atesor.Artifact, shipped map[string]bool) []atesor.Artifact {
	if s.Install == nil {
		s.Install = &atesor.Install{StageDir: StageDir(s.RepoDir), Error: "the install step did not run"}
	}
	inst := s.Install
	inst.ArtifactsFrom = atesor.ArtifactsFromRules
	progs, from := r.testPrograms(ctx, s)
	inst.TestPrograms, inst.TestProgramsFrom = nil, from
	for i := range built {
		if matchesTestProgram(built[i].Path, progs) {
			inst.TestPrograms = append(inst.TestPrograms, built[i].Path)
			if built[i].Role == atesor.ArtifactPrimary {
				built[i].Role = atesor.ArtifactSecondary
			}
		}
	}
	if !inst.OK {
		return built
	}
	staged, err := verify.ScanArtifacts(ctx, r.sb, inst.StageDir, r.log)
	if err != nil {
		inst.Error = "scan the staged files: " + err.Error()
		return built
	}
	var out []atesor.Artifact
	hashes := map[string]bool{}
	primaries := 0
	for _, a := range staged {
		if shipped[a.SHA256] {
			continue // a prebuilt file the source shipped, installed as is
		}
		a.Role = atesor.ArtifactPrimary
		if a.Kind == atesor.KindObject {
			a.Role = atesor.ArtifactSecondary
		} else {
			primaries++
		}
		hashes[a.SHA256] = true
		out = append(out, a)
	}
	if primaries == 0 {
		inst.Error = "the install step staged no program or library"
		return built
	}
	for _, a := range built {
		if hashes[a.SHA256] {
			continue
		}
		if a.Role == atesor.ArtifactPrimary {
			a.Role = atesor.ArtifactSecondary
		}
		out = append(out, a)
	}
	inst.ArtifactsFrom = atesor.ArtifactsFromInstall
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// matchesTestProgram reports whether an artifact path is one of the test programs: the
// same path, or libtool's real program in .libs/ next to where the metadata names it.
func matchesTestProgram(p string, progs map[string]bool) bool {
	if progs[p] {
		return true
	}
	dir, base := path.Split(p)
	if strings.HasSuffix(dir, "/.libs/") {
		return progs[path.Join(path.Dir(strings.TrimSuffix(dir, "/")), base)]
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

package install

import (
	"context"
	"log/slog"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/repair"
)

// Chooser decides the artifact roles from what the install step staged.
type Chooser struct {
	// Sandbox runs the build-system metadata queries (ctest, meson introspect).
	Sandbox Execer
	// HostTree is the host directory of the package's source copy, whose Makefile.am
	// files name automake's test programs ("": none read).
	HostTree string
	// Scan lists the ELF artifacts below a sandbox directory (the staging directory).
	Scan func(ctx context.Context, dir string) ([]atesor.Artifact, error)
	// Read reads the reply of CMake's file API, asked for the test programs of a
	// header-only library when ctest lists none (nil: it is not asked).
	Read ReadFunc
	// Log receives why a metadata query found nothing (nil: not logged).
	Log *slog.Logger
}

// Choose decides the artifact roles after the curator rules chose among built (the
// build tree's ELF files): programs the build-system metadata marks as tests are
// secondary, and when the install step staged ELF files, those are the primary
// artifacts and the build tree's files are listed as secondary (copies of an installed
// file are left out, as are staged files whose hash is in shipped: prebuilt files the
// source shipped). When it staged headers and no program or library, and the build
// tree holds no library of the package's either (a header-only library), the
// package's own test programs are the primary artifacts. Otherwise the
// rules' choice stands. It records in inst (nil: the
// install step did not run; a new record says so) how the artifacts were chosen and
// returns it with the artifacts.
func (c Chooser) Choose(ctx context.Context, repoDir string, inst *atesor.Install, built []atesor.Artifact, shipped map[string]bool) (*atesor.Install, []atesor.Artifact) {
	if inst == nil {
		inst = &atesor.Install{StageDir: StageDir(repoDir), Error: "the install step did not run"}
	}
	inst.ArtifactsFrom = atesor.ArtifactsFromRules
	progs, from := testPrograms(ctx, c.Sandbox, repoDir, c.HostTree)
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
		return inst, built
	}
	var staged []atesor.Artifact
	if len(inst.Files) > 0 {
		// With nothing listed there is nothing to scan: an install step that installs
		// nothing makes no staging directory at all.
		var err error
		if staged, err = c.Scan(ctx, inst.StageDir); err != nil {
			inst.Error = "scan the staged files: " + err.Error()
			return inst, built
		}
	}
	var out []atesor.Artifact
	hashes := map[string]bool{}
	primaries := 0
	for _, a := range staged {
		if shipped[a.SHA256] {
			continue // a prebuilt file the source shipped, installed as is
		}
		a.Role = atesor.ArtifactPrimary
		if rel, ok := foreignData(inst.StageDir, a); ok {
			a.Role = atesor.ArtifactSecondary
			inst.ForeignData = append(inst.ForeignData, rel)
		} else if a.Kind == atesor.KindObject {
			a.Role = atesor.ArtifactSecondary
		} else {
			primaries++
		}
		hashes[a.SHA256] = true
		out = append(out, a)
	}
	if primaries == 0 {
		inst.Error = "the install step staged no program or library"
		n := headerCount(inst.Files)
		if n == 0 && len(inst.Files) == 0 {
			// Nothing staged at all: a header-only library with no install rules is
			// told from the source tree instead.
			var note, why string
			if n, note, why = treeHeaderOnly(ctx, c.HostTree, repoDir, inst, built); why != "" {
				if c.Log != nil {
					c.Log.Debug("the install step staged nothing and the tree is not a header-only CMake library", "reason", why)
				}
			} else {
				inst.Error, inst.HeadersFromTree = note, true
			}
		}
		if n > 0 && !buildsLibrary(repoDir, built) {
			inst.HeaderOnly, inst.Headers = true, n
			if !slices.Contains(from, "ctest") {
				c.apiTestPrograms(ctx, repoDir, inst, built)
			}
			return inst, headerOnlyArtifacts(repoDir, inst, built)
		}
		return inst, built
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
	return inst, out
}

// foreignData reports whether a staged ELF file is data for another machine: not
// riscv64, and below a share directory of the stage (architecture-independent data,
// as the FHS has it), where a package installs the firmware it loads onto a device; or
// an ELF file for no machine at all (EM_NONE) anywhere, which no processor runs: a
// virtual machine's compiled code in an ELF container (guile-cairo installs Guile's
// .go objects in lib/guile/3.0/site-ccache). It returns the file's path relative to the
// stage. A foreign ELF anywhere else stays primary, and fails verification as it should.
func foreignData(stageDir string, a atesor.Artifact) (string, bool) {
	rel, ok := strings.CutPrefix(a.Path, stageDir+"/")
	if !ok || a.RISCV64 || a.Machine == "EM_RISCV" {
		return "", false
	}
	dirs := strings.Split(path.Dir(rel), "/")
	if slices.Contains(dirs, "..") {
		return "", false
	}
	return rel, slices.Contains(dirs, "share") || a.Machine == "EM_NONE"
}

// apiTestPrograms adds to inst the test programs CMake's file API names among the
// built files, for a header-only library whose ctest lists none: a project that builds
// its test programs and never registers them (no add_test) still says in its
// codemodel which executables are built from its test directories.
func (c Chooser) apiTestPrograms(ctx context.Context, repoDir string, inst *atesor.Install, built []atesor.Artifact) {
	if c.Read == nil {
		return
	}
	progs, why := cmakeAPIPrograms(ctx, c.Sandbox, c.Read, repoDir, c.HostTree)
	if why != "" && c.Log != nil {
		c.Log.Info("the CMake file API names no test program", "repo", repoDir, "reason", why)
	}
	set := map[string]bool{}
	for _, p := range progs {
		set[p] = true
	}
	found := false
	for _, a := range built {
		if a.Kind == atesor.KindExecutable && matchesTestProgram(a.Path, set) && !slices.Contains(inst.TestPrograms, a.Path) {
			inst.TestPrograms = append(inst.TestPrograms, a.Path)
			found = true
		}
	}
	if found {
		inst.TestProgramsFrom = append(inst.TestProgramsFrom, FromCMakeFileAPI)
	}
}

// UnregisteredTestPrograms are the test programs of inst that no test command runs:
// those CMake's file API found because ctest lists none. The tests step runs them
// itself.
func UnregisteredTestPrograms(inst *atesor.Install) []string {
	if inst == nil || !slices.Contains(inst.TestProgramsFrom, FromCMakeFileAPI) || slices.Contains(inst.TestProgramsFrom, "ctest") {
		return nil
	}
	return slices.Clone(inst.TestPrograms)
}

// headerOnlyArtifacts decides the roles for a header-only library (the install step
// staged headers and no program or library): the package's own test programs, compiled
// from those headers, are the primary artifacts and every other built file is
// secondary, and ArtifactsFrom says so. A test program of a vendored framework (gtest's
// own samples, built from its sources, not the package's) proves nothing about the
// package and stays secondary. Without any test program of the package, the rules'
// choice stands.
func headerOnlyArtifacts(repoDir string, inst *atesor.Install, built []atesor.Artifact) []atesor.Artifact {
	own := 0
	for _, a := range built {
		if a.Kind == atesor.KindExecutable && slices.Contains(inst.TestPrograms, a.Path) && !vendored(repoDir, a.Path) {
			own++
		}
	}
	if own == 0 {
		return built
	}
	out := slices.Clone(built)
	for i := range out {
		a := &out[i]
		if a.Kind == atesor.KindExecutable && slices.Contains(inst.TestPrograms, a.Path) && !vendored(repoDir, a.Path) {
			a.Role = atesor.ArtifactPrimary
		} else if a.Role == atesor.ArtifactPrimary {
			a.Role = atesor.ArtifactSecondary
		}
	}
	inst.ArtifactsFrom, inst.Error, inst.PrimaryTestPrograms = atesor.ArtifactsFromTestPrograms, "", own
	return out
}

// buildsLibrary reports whether the build tree holds a library of the package's own
// (not a vendored framework's): then the package is a library its install step does
// not install, not a header-only one, and the rules' choice stands.
func buildsLibrary(repoDir string, built []atesor.Artifact) bool {
	return slices.ContainsFunc(built, func(a atesor.Artifact) bool {
		return a.Role == atesor.ArtifactPrimary && (a.Kind == atesor.KindSharedLibrary || a.Kind == atesor.KindStaticLibrary) && !vendored(repoDir, a.Path)
	})
}

// vendorDirs are directories that hold other projects' sources inside a package.
var vendorDirs = []string{"third_party", "third-party", "thirdparty", "3rdparty", "vendor", "vendored", "external", "extern", "deps", "_deps", "subprojects"}

// vendored reports whether a built program lies in a directory of a vendored project
// (a framework's directory such as googletest/ or benchmark/, or third_party/ and
// the like), judged below the package's directory repoDir.
func vendored(repoDir, p string) bool {
	rel := strings.TrimPrefix(p, repoDir+"/")
	dirs := strings.Split(path.Dir(rel), "/")
	for _, d := range dirs {
		if slices.Contains(vendorDirs, strings.ToLower(d)) {
			return true
		}
		if _, ok := repair.FrameworkDir(d); ok {
			return true
		}
	}
	return false
}

// headerCount counts the staged headers: C and C++ header files, and files below an
// include directory (C++ standard-style headers have no extension).
func headerCount(files []string) int {
	n := 0
	for _, f := range files {
		if isHeaderName(f) {
			n++
			continue
		}
		if strings.Contains("/"+f, "/include/") && !strings.HasSuffix(f, ".pc") && !strings.HasSuffix(f, ".cmake") {
			n++
		}
	}
	return n
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

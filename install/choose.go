package install

import (
	"context"
	"path"
	"sort"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
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
}

// Choose decides the artifact roles after the curator rules chose among built (the
// build tree's ELF files): programs the build-system metadata marks as tests are
// secondary, and when the install step staged ELF files, those are the primary
// artifacts and the build tree's files are listed as secondary (copies of an installed
// file are left out, as are staged files whose hash is in shipped: prebuilt files the
// source shipped). Otherwise the rules' choice stands. It records in inst (nil: the
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
	staged, err := c.Scan(ctx, inst.StageDir)
	if err != nil {
		inst.Error = "scan the staged files: " + err.Error()
		return inst, built
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

package verify

import (
	"context"
	"fmt"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/pkgtree"
)

// Input is what verification reads of a port besides its artifacts: where the package
// is, what it is, and what the fixes did to it.
type Input struct {
	// RepoDir is the package's directory in the sandbox; RepoName its name, which its
	// public headers and libraries are matched by.
	RepoDir, RepoName string
	// Platform is the profile the artifacts must suit (float ABI, loader, ISA
	// baseline); a Debian platform's suite is the distribution compared with when
	// Origin names none.
	Platform atesor.Platform
	// Source is the request's source: a Debian .orig tarball names the distribution
	// package to compare with; an upstream NAME-VERSION tarball or directory is looked
	// up in the distribution by that name and version (a note when it has none).
	Source string
	// Origin is the distribution package the source was resolved from, or nil.
	Origin *atesor.DistroSource
	// Mirror is the base URL of the Debian archive to compare with; empty: the mirror of
	// the host's apt configuration, else the sandbox's.
	Mirror string
	// DistCache is the directory the distribution's packages and their index are cached
	// in (graph uses <home>/cache/debian-binaries).
	DistCache string
	// Install is the staged install step (its headers are the public ones), or nil.
	Install *atesor.Install
	// Removals are what fixes took from the original tree (see [TrackRemovals]).
	Removals []atesor.Removal
	// Changed maps each repository file a fix took away or changed to what was done to
	// it; a missing function defined in one of them was taken by a fix.
	Changed map[string]string
	// StubFiles are the files fixes wrote that define an entry point or compile nothing.
	StubFiles []string
	// Analysis is the package analysis, whose expected artifacts are looked for; or nil.
	Analysis *atesor.PackageAnalysis
}

// Result is the verdict of [Port].
type Result struct {
	// Verified is true when no check found a problem: the port is proven.
	Verified bool
	// Problems say, one per finding, why the port is not proven; empty when verified.
	Problems []string
	// Artifacts are the artifacts checked, in their order, with Problem set on each
	// primary artifact that does not suit the platform.
	Artifacts []atesor.Artifact
	// Primaries counts the primary artifacts.
	Primaries int
	// ExportsChecked is true when the export check ran: it runs only when every other
	// check passed. Exports is then its outcome (nil: the port has no primary library);
	// when it did not run, Exports is nil and says nothing.
	ExportsChecked bool
	Exports        *atesor.ExportCheck
	// MissingArtifacts are the analysis' expected artifacts no artifact matches. They
	// are reported, not a problem: an analysis can be wrong.
	MissingArtifacts []string
}

// Port decides, strictly, whether a build proved the port. arts are the artifacts the
// build produced (not shipped with the source), with their roles chosen. The port is
// proven when at least one artifact is primary, every primary artifact suits the
// platform ([CheckArtifact]: a riscv64 ELF file for its float ABI, loader and ISA
// baseline), no fix wrote a stub, each primary program starts (run for at most 10 s,
// stdin from /dev/null, no network) and each primary library's needed libraries
// resolve (ldd), and the primary libraries define what the package promises (the
// functions its public headers declare and, for a source from Debian's archive, those
// the distribution's build of that version exports) without functions whose code fixes
// took away; after fixes removed code, the comparison must also have been made. The
// checks run in that order; the smoke runs and the export check run only when the
// earlier checks found nothing, because they mean nothing for a wrong or missing
// artifact. Every missing function is explained in the export check; its summary, and
// the missing functions that do not fail verification, are reported through emit.
func Port(ctx context.Context, sb atesor.Sandbox, in Input, arts []atesor.Artifact, emit func(atesor.Event)) Result {
	res := Result{Artifacts: append([]atesor.Artifact(nil), arts...)}
	for i := range res.Artifacts {
		a := &res.Artifacts[i]
		if a.Role != atesor.ArtifactPrimary {
			continue
		}
		res.Primaries++
		if err := CheckArtifact(*a, in.Platform); err != nil {
			a.Problem = err.Error()
			res.Problems = append(res.Problems, fmt.Sprintf("%s: %v", pkgtree.Rel(in.RepoDir, a.Path), err))
		}
	}
	if res.Primaries == 0 {
		res.Problems = append(res.Problems, noPrimaryProblem(in.Install))
	}
	for _, f := range in.StubFiles {
		res.Problems = append(res.Problems, fmt.Sprintf("%s: a fix wrote a stub (a new source file defining an entry point, or a build file that compiles nothing); fix the real sources instead", f))
	}
	if len(res.Problems) == 0 {
		res.Problems = append(res.Problems, smoke(ctx, sb, in.RepoDir, res.Artifacts)...)
	}
	if len(res.Problems) == 0 {
		var problems []string
		res.Exports, problems = exportProblems(ctx, sb, in, res.Artifacts, emit)
		res.ExportsChecked = true
		res.Problems = append(res.Problems, problems...)
	}
	res.MissingArtifacts = missingExpected(in.Analysis, res.Artifacts)
	res.Verified = len(res.Problems) == 0
	return res
}

// noPrimaryProblem says why there is no primary artifact: for a header-only library
// (the install step staged headers and no program or library), that its test
// programs, the only programs compiled from its headers, are not built, and what to do.
func noPrimaryProblem(inst *atesor.Install) string {
	if inst != nil && inst.HeaderOnly && inst.HeadersFromTree {
		return fmt.Sprintf("%s (the install step staged nothing, the source tree's CMake project declares only INTERFACE libraries with %d headers, and the build-system metadata names no test program of the package): "+
			"configure the build with its tests on, so its test programs are compiled from the headers and run here as the riscv64 evidence", atesor.ProblemHeaderOnlyUntested, inst.Headers)
	}
	if inst != nil && inst.HeaderOnly {
		return fmt.Sprintf("%s (the install step staged %d headers and no program or library, and the build-system metadata names no test program of the package): "+
			"configure the build with its tests on, so its test programs are compiled from the headers and run here as the riscv64 evidence", atesor.ProblemHeaderOnlyUntested, inst.Headers)
	}
	if n := perlModules(inst); n > 0 {
		modules := fmt.Sprintf("%d Perl modules", n)
		if n == 1 {
			modules = "1 Perl module"
		}
		return fmt.Sprintf("%s (%s, no XS shared object, program or library): a pure-Perl distribution runs wherever perl runs, and there is no riscv64 ELF file to prove a port of it", atesor.ProblemPerlOnly, modules)
	}
	return "no primary artifact: the build produced no riscv64 program or library outside tests and build scratch directories"
}

// perlModules counts the Perl modules (.pm) a successful install step staged when it
// staged no shared object (an XS module's .so, whose absence here means it was not
// built); 0 otherwise.
func perlModules(inst *atesor.Install) int {
	if inst == nil || !inst.OK {
		return 0
	}
	n := 0
	for _, f := range inst.Files {
		switch {
		case strings.HasSuffix(f, ".so") || strings.Contains(f, ".so."):
			return 0
		case strings.HasSuffix(f, ".pm"):
			n++
		}
	}
	return n
}

// Package verify decides what a port has proven. A build that exits 0 proves little: the
// files it left may be for another machine or ABI, shipped with the source rather than
// built, or the build may have been made to pass by taking away the code that did not
// port. The checks here read the build's outputs and the tree and say which of these
// holds:
//
//   - ELF facts: [ScanArtifacts] finds every ELF file and static archive a build left
//     below a directory and [InspectELF] describes one (class, machine, float ABI, ISA,
//     program interpreter, kind, hash); [CheckArtifact] says why one does not suit a
//     platform profile (not riscv64, another float ABI or loader, extensions beyond the
//     profile's ISA baseline).
//   - Exports: the global functions the primary libraries define, compared with what
//     the package promises (its public headers' declarations and, for a source from
//     Debian's archive, what the distribution's own build of that version exports).
//   - Removals: what fixes took from the original tree (deleted, emptied or mostly cut
//     files, sources dropped from build files), which a port must answer for with
//     complete exports and passing package tests.
//   - Provenance and stubs: [ShippedELFs] and [Produced] keep the ELF files the
//     source shipped out of what the build produced; [IsStub] recognises a file a fix
//     wrote to make the build pass without porting anything (a new main, a build file
//     that compiles nothing).
//
// [Port] is the verdict in one function: given the artifacts a build produced, with
// their roles, it runs every check in order and returns a [Result] with the problems
// found; a replacement verify node calls it as the built-in one does. [TrackRemovals],
// [JudgeRemovals] and [Evidence] serve the fix and finish steps and the recipe.
//
// The package is separate from the pipeline so that its rules can be read, tested and
// reused on their own: it takes the sandbox, a logger and plain values, and returns
// what it found; the pipeline's verify and finish nodes write that into the run state.
// It reads sandbox files on the host only through the bounded, link-refusing
// [sandbox.Gate], because everything a build leaves is untrusted: a hostile ELF file
// must neither crash nor exhaust the reader (every size field is checked against the
// file and against fixed caps before anything is allocated).
package verify

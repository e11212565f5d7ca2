package atesor

// Ways the primary artifacts were chosen, for [Install.ArtifactsFrom].
const (
	// ArtifactsFromInstall: the ELF files the build system's install step staged are
	// the primary artifacts.
	ArtifactsFromInstall = "install"
	// ArtifactsFromRules: there was no install step, or it failed, so the curator rules
	// chose the primary artifacts among the build tree's files.
	ArtifactsFromRules = "rules"
	// ArtifactsFromTestPrograms: the install step staged headers and no program or
	// library (a header-only library), so the package's own test programs, which the
	// build-system metadata names and which are compiled from those headers, are the
	// primary artifacts: they are what proves the library on the platform.
	ArtifactsFromTestPrograms = "test_programs"
)

// ProblemHeaderOnlyUntested starts the verification problem of a header-only library
// whose test programs were not built: nothing compiled from its headers proves it. The
// scripted repair that turns the package's tests on answers this problem.
const ProblemHeaderOnlyUntested = "no primary artifact: a header-only library whose test programs are not built"

// ProblemPerlOnly starts the verification problem of a build whose install step staged
// Perl modules and nothing compiled: a pure-Perl distribution (no XS or C code) has no
// riscv64 program or library, so nothing proves a riscv64 port of it, and no fix can
// honestly make one. A pure-Perl distribution is refused with it at once (see package
// graph's supervisor); it is never verified.
const ProblemPerlOnly = "no primary artifact: the install step staged Perl modules and nothing compiled"

// Install is the build system's install step, run into a staging directory inside the
// sandbox after a successful build: what it installed is the product of the port, as a
// distribution would package it.
type Install struct {
	// Method is how the install ran: make, cmake, meson, go or cargo; "" when the build
	// system has no install step.
	Method string `json:"method,omitempty"`
	// StageDir is the staging directory inside the sandbox
	// (/workspace/.atesor-stage/<repo>); installed paths are relative to it.
	StageDir string `json:"stage_dir,omitempty"`
	// Commands are the install commands that ran, in order (also in the recipe block).
	Commands []string `json:"commands,omitempty"`
	// OK is true when every install command succeeded.
	OK bool `json:"ok"`
	// Error says why the install step failed or did not run.
	Error string `json:"error,omitempty"`
	// Files are every file the install staged, relative to StageDir ("usr/local/lib/libz.so.1.3.1").
	Files []string `json:"files,omitempty"`
	// DevFiles are the staged development files, relative to StageDir: headers,
	// pkg-config files and CMake package configuration files.
	DevFiles []string `json:"dev_files,omitempty"`
	// ArtifactsFrom says how the primary artifacts were chosen: ArtifactsFromInstall,
	// ArtifactsFromTestPrograms or ArtifactsFromRules.
	ArtifactsFrom string `json:"artifacts_from,omitempty"`
	// HeaderOnly is true when the install step succeeded and staged headers but no
	// program or library (or staged nothing, and the source tree is a header-only
	// CMake library: HeadersFromTree): a header-only library, which only programs
	// compiled from its headers (its test programs) can prove.
	HeaderOnly bool `json:"header_only,omitempty"`
	// Headers counts the staged headers of a header-only library, or the source
	// tree's when HeadersFromTree.
	Headers int `json:"headers,omitempty"`
	// HeadersFromTree is true when the install step staged nothing at all and the
	// library was found header-only from the source tree (a CMake project that
	// declares only INTERFACE libraries and has no install rules): Headers counts the
	// headers of the tree's include directories, and Error says so while no test
	// program proves them.
	HeadersFromTree bool `json:"headers_from_tree,omitempty"`
	// PrimaryTestPrograms counts the test programs that are the primary artifacts of a
	// header-only library (ArtifactsFromTestPrograms): the package's own, not a
	// vendored framework's.
	PrimaryTestPrograms int `json:"primary_test_programs,omitempty"`
	// TestPrograms are the sandbox paths of programs the build-system metadata marks as
	// tests (ctest's test list, automake's check_PROGRAMS, meson's test introspection,
	// and for a header-only library whose ctest lists none, CMake's file API).
	TestPrograms []string `json:"test_programs,omitempty"`
	// TestProgramsFrom names the metadata the test programs came from (ctest, automake,
	// meson, cmake-file-api).
	TestProgramsFrom []string `json:"test_programs_from,omitempty"`
	// ForeignData are the staged ELF files below a share directory that are built for
	// another machine, relative to StageDir: firmware for a device the package talks
	// to, installed as data (picotool's EM_ARM xip_ram_perms.elf in
	// usr/local/share/picotool). They are secondary artifacts; they prove nothing of
	// the port, and nothing runs them here.
	ForeignData []string `json:"foreign_data,omitempty"`
}

// StagedPath is the sandbox path of a file the install staged (rel relative to StageDir).
func (i *Install) StagedPath(rel string) string {
	return i.StageDir + "/" + rel
}

package atesor

// Ways the primary artifacts were chosen, for [Install.ArtifactsFrom].
const (
	// ArtifactsFromInstall: the ELF files the build system's install step staged are
	// the primary artifacts.
	ArtifactsFromInstall = "install"
	// ArtifactsFromRules: there was no install step, or it failed, so the curator rules
	// chose the primary artifacts among the build tree's files.
	ArtifactsFromRules = "rules"
)

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
	// ArtifactsFrom says how the primary artifacts were chosen: ArtifactsFromInstall or
	// ArtifactsFromRules.
	ArtifactsFrom string `json:"artifacts_from,omitempty"`
	// TestPrograms are the sandbox paths of programs the build-system metadata marks as
	// tests (ctest's test list, automake's check_PROGRAMS, meson's test introspection).
	TestPrograms []string `json:"test_programs,omitempty"`
	// TestProgramsFrom names the metadata the test programs came from (ctest, automake,
	// meson).
	TestProgramsFrom []string `json:"test_programs_from,omitempty"`
}

// StagedPath is the sandbox path of a file the install staged (rel relative to StageDir).
func (i *Install) StagedPath(rel string) string {
	return i.StageDir + "/" + rel
}

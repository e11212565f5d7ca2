package atesor

// Detection is the scripted (zero-LLM) analysis of a source tree, made by package
// knowledge and kept in the run state.
type Detection struct {
	BuildSystem BuildSystem `json:"build_system"`
	Confidence  float64     `json:"confidence"`
	// Evidence is the file that proves the build system, relative to the repository.
	Evidence string `json:"evidence"`
	// ShippedConfigure is true when a configure script ships, so no autoreconf is needed.
	ShippedConfigure bool `json:"shipped_configure,omitempty"`
	// BuildDir is the directory (relative to the repository) the build runs in, when the
	// build files are not at the top level (a Go module or Cargo crate in a subdirectory).
	BuildDir string `json:"build_dir,omitempty"`
	// OutdatedConfigScripts are the shipped config.guess and config.sub files that do not
	// know riscv64; configure fails with "cannot guess build type" until they are
	// replaced by current copies.
	OutdatedConfigScripts []string `json:"outdated_config_scripts,omitempty"`
	// Makefile is the makefile a make build reads with -f, relative to BuildDir, when
	// make would not find it by itself: a platform makefile such as makefile.unx or
	// Makefile.linux in a tree with no GNUmakefile, makefile or Makefile. Empty otherwise.
	Makefile string `json:"makefile,omitempty"`
	// TestTargets are the test targets (check, test) the top-level Makefile defines.
	TestTargets  []string         `json:"test_targets,omitempty"`
	Language     string           `json:"language,omitempty"`
	Dependencies []Dependency     `json:"dependencies"`
	HasMain      bool             `json:"has_main"`
	MainPath     string           `json:"main_path,omitempty"`
	ModuleDir    string           `json:"module_dir,omitempty"`
	HasCGO       bool             `json:"has_cgo,omitempty"`
	ArchFindings []ArchFinding    `json:"arch_findings,omitempty"`
	Alternatives []BuildCandidate `json:"alternatives,omitempty"`
	// GoCommands are the module's command (main package) directories relative to the
	// module, best first, without helpers (examples, tests, tools); the default plan
	// builds each of them. Empty for a library module.
	GoCommands []string `json:"go_commands,omitempty"`
	// GoPortableTags are the build tags the module's own build constraints use to switch
	// architecture-specific code (assembly) for a portable path: purego, noasm, ...
	GoPortableTags []string `json:"go_portable_tags,omitempty"`
	// GoArtifacts are the files the default Go plan writes, relative to the module: each
	// command as go install names it (bin/tool) or, for a library, each package's test
	// binary (bin/pkg.test), or the package archives of GoArchivePackages (bin/pkg.a).
	GoArtifacts []string `json:"go_artifacts,omitempty"`
	// GoTestPackages are set for a library module two of whose packages with tests share
	// a test binary name, which go test -c -o bin/ ./... refuses to write: the package
	// directories, relative to the module and the first of each name, whose test
	// binaries the default plan compiles in its place.
	GoTestPackages []string `json:"go_test_packages,omitempty"`
	// GoArchivePackages are set for a library module with no main package and no test
	// that builds on riscv64 (xanzy/ssh-agent's tests are Windows-only, or it has none):
	// the library package directories, relative to the module and the first of each
	// name, whose Go package archives (bin/pkg.a) the default plan writes, the only
	// compiled form of such a library.
	GoArchivePackages []string `json:"go_archive_packages,omitempty"`
	// GoNoModFile is true for Go packages with no go.mod (code written for GOPATH): the
	// default plan makes one with go mod init GoModulePath before it builds.
	GoNoModFile bool `json:"go_no_mod_file,omitempty"`
	// GoModulePath is the module path such a tree is initialised with, and
	// GoModulePathFrom says where it came from (the request, the distribution's
	// Go-Import-Path field, an import comment); empty when none is known.
	GoModulePath     string `json:"go_module_path,omitempty"`
	GoModulePathFrom string `json:"go_module_path_from,omitempty"`
	// GoExternalImports are the imports of such a tree outside the standard library and
	// the module, with the first file naming each: no go.mod requires them.
	GoExternalImports []Dependency `json:"go_external_imports,omitempty"`
}

// BuildCandidate is a build system marker detection found but ranked lower.
type BuildCandidate struct {
	BuildSystem BuildSystem `json:"build_system"`
	Evidence    string      `json:"evidence"`
	Confidence  float64     `json:"confidence"`
}

// Severity ranks an architecture finding.
type Severity string

// The severities of architecture findings.
const (
	SeverityLow      Severity = "low"
	SeverityMedium   Severity = "medium"
	SeverityHigh     Severity = "high"
	SeverityCritical Severity = "critical"
)

// ArchFinding is architecture-specific code found in the sources: x86/ARM macros, SIMD
// intrinsics, inline assembly, or -m64/-march flags in build files.
type ArchFinding struct {
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Kind     string   `json:"kind"`
	Snippet  string   `json:"snippet"`
	Severity Severity `json:"severity"`
	// Guarded is true when the code sits behind an architecture #if with a portable
	// #else, so riscv64 compiles the fallback.
	Guarded bool `json:"guarded,omitempty"`
}

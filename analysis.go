package atesor

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// BuildSystem names a build system.
type BuildSystem string

// The build systems Atesor knows. Unknown means detection found no build file it trusts.
const (
	BuildCMake     BuildSystem = "cmake"
	BuildAutotools BuildSystem = "autotools"
	BuildMake      BuildSystem = "make"
	BuildMeson     BuildSystem = "meson"
	BuildCargo     BuildSystem = "cargo"
	BuildGo        BuildSystem = "go"
	// BuildPerl is a Perl distribution built with ExtUtils::MakeMaker: Makefile.PL
	// writes the Makefile, make compiles its XS code into blib/arch/auto/.
	BuildPerl BuildSystem = "perl"
	// BuildR is an R package (a DESCRIPTION with a Package: field) whose src/ holds
	// C, C++ or Fortran code: R CMD INSTALL compiles it into the package's shared
	// object, libs/<package>.so, as Debian's dh-r does.
	BuildR       BuildSystem = "r"
	BuildUnknown BuildSystem = "unknown"
)

// Dependency is a canonical dependency name with the file that shows it.
type Dependency struct {
	Name     string `json:"name" jsonschema:"minLength=1" jsonschema_description:"canonical dependency name, e.g. zlib, openssl, cmake"`
	Evidence string `json:"evidence,omitempty" jsonschema_description:"the file (and line) that shows the dependency"`
}

// UnmarshalJSON accepts a dependency as an object or as a bare name, because models
// answer both ways.
func (d *Dependency) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var name string
		if err := json.Unmarshal(b, &name); err != nil {
			return err
		}
		*d = Dependency{Name: name}
		return nil
	}
	type plain Dependency
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("dependency must be an object {name, evidence} or a name: %w", err)
	}
	*d = Dependency(p)
	return nil
}

// PackageAnalysis is what the run keeps of the analyst's answer (or of the scripted
// fallback). The build system is stored flat (build_system, build_system_confidence,
// build_system_reasoning), the shape of the example files and recipe caches people and
// other tools share.
type PackageAnalysis struct {
	Purpose               string       `json:"purpose"`
	Language              string       `json:"language"`
	BuildSystem           BuildSystem  `json:"build_system"`
	BuildSystemConfidence float64      `json:"build_system_confidence"`
	BuildSystemReasoning  string       `json:"build_system_reasoning"`
	Dependencies          []Dependency `json:"dependencies"`
	RiscvRisks            []string     `json:"riscv_risks"`
	BuildStrategy         string       `json:"build_strategy"`
	ExpectedArtifacts     []string     `json:"expected_artifacts"`
	NeedsCustomPlan       bool         `json:"needs_custom_plan"`
	Complexity            int          `json:"complexity"`
	LLMGrounded           bool         `json:"llm_grounded"`
}

// BuildSystemClaim is the analyst's build system answer: the type, how sure it is and the
// file that proves it.
type BuildSystemClaim struct {
	Type       BuildSystem `json:"type" jsonschema:"minLength=1" jsonschema_description:"cmake, autotools, make, meson, cargo, go, perl, r or unknown"`
	Confidence float64     `json:"confidence,omitempty" jsonschema:"minimum=0,maximum=1"`
	Reasoning  string      `json:"reasoning,omitempty" jsonschema_description:"the file that proves the build system"`
}

// AnalysisAnswer is the JSON object the analyst (planner role) answers.
type AnalysisAnswer struct {
	Purpose           string           `json:"purpose" jsonschema:"minLength=1"`
	Language          string           `json:"language,omitempty"`
	BuildSystem       BuildSystemClaim `json:"build_system"`
	Dependencies      []Dependency     `json:"dependencies"`
	RiscvRisks        []string         `json:"riscv_risks,omitempty"`
	BuildStrategy     string           `json:"build_strategy,omitempty"`
	ExpectedArtifacts []string         `json:"expected_artifacts,omitempty"`
	NeedsCustomPlan   bool             `json:"needs_custom_plan"`
	Complexity        int              `json:"complexity,omitempty" jsonschema:"minimum=1,maximum=10"`
}

// Analysis converts the answer into the stored form, marked as LLM-grounded.
func (a AnalysisAnswer) Analysis() PackageAnalysis {
	return PackageAnalysis{
		Purpose:               a.Purpose,
		Language:              a.Language,
		BuildSystem:           a.BuildSystem.Type,
		BuildSystemConfidence: a.BuildSystem.Confidence,
		BuildSystemReasoning:  a.BuildSystem.Reasoning,
		Dependencies:          a.Dependencies,
		RiscvRisks:            a.RiscvRisks,
		BuildStrategy:         a.BuildStrategy,
		ExpectedArtifacts:     a.ExpectedArtifacts,
		NeedsCustomPlan:       a.NeedsCustomPlan,
		Complexity:            a.Complexity,
		LLMGrounded:           true,
	}
}

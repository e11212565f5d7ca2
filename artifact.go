package atesor

// ArtifactKind is what an ELF artifact is.
type ArtifactKind string

// The artifact kinds.
const (
	KindExecutable    ArtifactKind = "executable"
	KindSharedLibrary ArtifactKind = "shared_library"
	KindStaticLibrary ArtifactKind = "static_library"
	KindObject        ArtifactKind = "object"
	// KindGoArchive is a Go package archive (go build -o pkg.a of a library package):
	// an ar archive of the Go compiler's objects, not ELF, whose header names the
	// GOOS and GOARCH the package's code was compiled for. It is the compiled form of a
	// Go library that has no program and no test to link into one.
	KindGoArchive ArtifactKind = "go_archive"
)

// ArtifactRole is the curator's verdict on an artifact. It is not an LLM [Role]: its
// constants are named Artifact*, the LLM roles Role*.
type ArtifactRole string

// The curator's roles: primary artifacts are verified and copied out, secondary ones are
// listed, dropped ones are build noise.
const (
	ArtifactPrimary   ArtifactRole = "primary"
	ArtifactSecondary ArtifactRole = "secondary"
	ArtifactDrop      ArtifactRole = "drop"
)

// Artifact is an ELF file (or a static archive of ELF objects, or a Go package archive)
// found after a build.
type Artifact struct {
	// Path is the sandbox path.
	Path string       `json:"path"`
	Kind ArtifactKind `json:"kind"`
	// Class is ELFCLASS32 or ELFCLASS64.
	Class string `json:"class"`
	// Machine is the ELF machine name, for example EM_RISCV or EM_X86_64.
	Machine string `json:"machine"`
	// RISCV64 is true for a 64-bit RISC-V ELF (every member, for an archive).
	RISCV64 bool `json:"riscv64"`
	// FloatABI is the RISC-V float ABI from e_flags: lp64, lp64f, lp64d or lp64q.
	FloatABI string `json:"float_abi,omitempty"`
	// ISA is the architecture string the file was compiled for (its .riscv.attributes
	// Tag_RISCV_arch), for an archive the union of its members'; empty when the file
	// carries none (the Go linker writes none).
	ISA         string   `json:"isa,omitempty"`
	Interpreter string   `json:"interpreter,omitempty"`
	Static      bool     `json:"static"`
	Stripped    bool     `json:"stripped"`
	Needed      []string `json:"needed,omitempty"`
	SHA256      string   `json:"sha256"`
	Size        int64    `json:"size"`
	// Members counts the ELF members of a static archive (the Go objects of a Go
	// archive).
	Members int          `json:"members,omitempty"`
	Role    ArtifactRole `json:"role,omitempty"`
	// Problem says why the artifact does not verify, when it does not.
	Problem string `json:"problem,omitempty"`
}

// CuratorAnswer is the artifact curator's answer: artifact ids (indexes into the list it
// was shown) by role. Ids left out are secondary.
type CuratorAnswer struct {
	Primary   []int `json:"primary"`
	Secondary []int `json:"secondary,omitempty"`
	Drop      []int `json:"drop,omitempty"`
}

// PrimaryArtifacts are the artifacts of arts whose role is [ArtifactPrimary], in order:
// the port's products, which verification proves and a replay compares.
func PrimaryArtifacts(arts []Artifact) []Artifact {
	var out []Artifact
	for _, a := range arts {
		if a.Role == ArtifactPrimary {
			out = append(out, a)
		}
	}
	return out
}

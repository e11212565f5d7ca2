package optimize

import (
	"strings"

	"github.com/eclipse-atesor/atesor-go"
)

// VectorCPU is the emulated CPU with the vector extension: qemu's default riscv64 CPU
// has none, and a binary built for it dies with SIGILL without this. vext_spec names
// the ratified vector spec (qemu 7.2 warns on every process start without it, which
// would change the workload's output).
const VectorCPU = "QEMU_CPU=rv64,v=true,vlen=128,vext_spec=v1.0"

// Candidate is an optimisation to try: a rebuild of the package with more flags or the
// package's own switches.
type Candidate struct {
	Name string
	// Env is added to every build command (CFLAGS, CXXFLAGS, LDFLAGS, RUSTFLAGS, ...).
	Env []string
	// ConfigureArgs are appended to the configure, cmake or meson setup command.
	ConfigureArgs []string
	// NeedsVector marks a build for the vector extension: its builds and runs get
	// [VectorCPU] under emulation.
	NeedsVector bool
}

// variant is the report row of a candidate.
func (c Candidate) variant(emulated bool) atesor.Variant {
	v := atesor.Variant{Name: c.Name, Env: c.Env, ConfigureArgs: c.ConfigureArgs, NeedsVector: c.NeedsVector}
	if c.NeedsVector && emulated {
		v.RunEnv = []string{VectorCPU}
	}
	return v
}

// cFlags sets the C and C++ compile flags and the link flags.
func cFlags(cflags, ldflags string) []string {
	env := []string{"CFLAGS=" + cflags, "CXXFLAGS=" + cflags}
	if ldflags != "" {
		env = append(env, "LDFLAGS="+ldflags)
	}
	return env
}

// Candidates returns the candidates for a package in language lang (as detection names
// it: c, c++, go, rust) with the package's own SIMD/RVV switches opts: for C and C++
// -O3, -O3 with the vector extension, -O3 with link-time optimisation, then one
// candidate per switch; for Rust the vector extension and LTO; for Go the RVA22 profile.
func Candidates(lang string, opts []Switch) []Candidate {
	var out []Candidate
	switch strings.ToLower(lang) {
	case "go":
		out = append(out, Candidate{Name: "rva22u64", Env: []string{"GORISCV64=rva22u64"}})
	case "rust":
		out = append(out,
			Candidate{Name: "rvv", Env: []string{"RUSTFLAGS=-C target-feature=+v"}, NeedsVector: true},
			Candidate{Name: "lto", Env: []string{"CARGO_PROFILE_RELEASE_LTO=true"}})
	default:
		out = append(out,
			Candidate{Name: "O3", Env: cFlags("-O3", "")},
			Candidate{Name: "O3-rvv", Env: cFlags("-O3 -march=rv64gcv", ""), NeedsVector: true},
			Candidate{Name: "O3-lto", Env: cFlags("-O3 -flto", "-flto")})
	}
	for _, s := range opts {
		out = append(out, Candidate{Name: "own:" + s.Name, ConfigureArgs: []string{s.Arg}, NeedsVector: s.Vector})
	}
	return out
}

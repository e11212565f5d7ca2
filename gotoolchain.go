package atesor

// Where a Go toolchain that ran a port came from, for [GoToolchain.Source].
const (
	// GoToolchainSuite: the distribution's Go in the sandbox (golang-go).
	GoToolchainSuite = "suite"
	// GoToolchainProxyRISCV64: the linux-riscv64 release fetched through the Go module
	// proxy (module golang.org/toolchain), run under the emulator.
	GoToolchainProxyRISCV64 = "proxy riscv64"
	// GoToolchainProxyAMD64: the linux-amd64 release fetched through the Go module
	// proxy, run natively with GOARCH=riscv64 beside the accelerated toolchain (its
	// output is the same as the riscv64 build's).
	GoToolchainProxyAMD64 = "proxy amd64-accelerated"
)

// GoToolchain says which Go toolchain a Go port used and why: the suite's, or a newer
// release fetched because the module's go.mod asks for it.
type GoToolchain struct {
	// Version is the toolchain's Go version (go1.27.3).
	Version string `json:"version"`
	// Arch is the architecture the toolchain's programs are built for (riscv64, amd64);
	// the binaries it builds are riscv64 either way.
	Arch string `json:"arch"`
	// Source is one of GoToolchainSuite, GoToolchainProxyRISCV64, GoToolchainProxyAMD64.
	Source string `json:"source"`
	// Required is the Go version the module's go.mod asks for (its go or, when newer,
	// its toolchain line), and SuiteVersion the Go the sandbox's distribution has.
	Required     string `json:"required,omitempty"`
	SuiteVersion string `json:"suite_version,omitempty"`
	// Module and Sum are the toolchain module version fetched
	// (golang.org/toolchain@v0.0.1-go1.27.3.linux-amd64) and its go.sum hash, which the
	// go command checked against the checksum database; empty for the suite's Go.
	Module string `json:"module,omitempty"`
	Sum    string `json:"sum,omitempty"`
	// GOROOT is the toolchain's directory inside the sandbox; empty for the suite's Go.
	GOROOT string `json:"goroot,omitempty"`
}

// String returns a one-line summary: "go1.27.3 linux/amd64 (proxy amd64-accelerated)".
func (t GoToolchain) String() string {
	return t.Version + " linux/" + t.Arch + " (" + t.Source + ")"
}

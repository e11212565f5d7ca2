package atesor

// Platform is a distro profile: what a riscv64 sandbox of that distro looks like and how
// packages are installed in it. Package knowledge defines the profiles.
type Platform struct {
	// Name is the platform the user asked for: alpine, debian or ubuntu.
	Name string `json:"name"`
	// Profile is the profile the platform uses: alpine or debian (ubuntu uses debian).
	Profile string `json:"profile"`
	// DisplayName is the human name, for example "Debian GNU/Linux (trixie)".
	DisplayName string `json:"display_name"`
	// Libc is glibc or musl.
	Libc string `json:"libc"`
	// Triplet is the native target triplet, for example riscv64-linux-gnu.
	Triplet string `json:"triplet"`
	// PackageManager is the program that installs packages: apt-get or apk.
	PackageManager string `json:"package_manager"`
	// InstallCommand installs packages; the package names follow it.
	InstallCommand string `json:"install_command"`
	// UpdateCommand refreshes the package index.
	UpdateCommand string `json:"update_command"`
	// Loader is the program interpreter of dynamic riscv64 executables.
	Loader string `json:"loader"`
	// FloatABI is the float ABI artifacts must use, for example lp64d.
	FloatABI string `json:"float_abi"`
	// ISABaseline is the RISC-V profile the distro's hardware is promised to meet, for
	// example rv64gc (Debian trixie) or rva23u64 (distributions moving to RVA23): an
	// artifact built for extensions beyond it dies with SIGILL on that hardware, so
	// verification refuses it. Empty means unchecked.
	ISABaseline string `json:"isa_baseline,omitempty"`
	// OSReleaseID is the ID= value of /etc/os-release inside the sandbox.
	OSReleaseID string `json:"os_release_id"`
	// Packages maps canonical dependency names (zlib, openssl, cmake, ...) to this
	// distro's package names.
	Packages map[string]string `json:"packages,omitempty"`
	// Corrections maps package names of other distros to this distro's names.
	Corrections map[string]string `json:"corrections,omitempty"`
}

// SandboxKey is the key that scopes few-shot examples and recipe cache entries, for
// example debian-riscv64. Ubuntu shares the Debian profile and so its key.
func (p Platform) SandboxKey() string {
	profile := p.Profile
	if profile == "" {
		profile = p.Name
	}
	return profile + "-riscv64"
}

// PackageFor returns the distro package for a canonical dependency name, and whether
// the profile knows it.
func (p Platform) PackageFor(canonical string) (string, bool) {
	name, ok := p.Packages[canonical]
	return name, ok
}

// DefaultSandboxKey is the sandbox an example without a sandbox key belongs to: example
// files written before sandboxes had keys were all made on Alpine.
const DefaultSandboxKey = "alpine-riscv64"

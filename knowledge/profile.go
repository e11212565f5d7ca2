package knowledge

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// Names lists the platform names [Profile] accepts, sorted.
func Names() []string { return []string{"alpine", "debian", "ubuntu"} }

// Profile returns the platform profile for a platform name: alpine, debian or ubuntu.
// Ubuntu uses the Debian profile (its sandbox key is debian-riscv64) and keeps the name
// ubuntu. Names are case-insensitive. Every call returns fresh maps, so a caller may change
// them.
func Profile(name string) (atesor.Platform, error) {
	switch n := strings.ToLower(strings.TrimSpace(name)); n {
	case "debian":
		return debianProfile("debian"), nil
	case "ubuntu":
		p := debianProfile("ubuntu")
		p.DisplayName = "Debian GNU/Linux 13 (trixie), the profile of ubuntu"
		return p, nil
	case "alpine":
		return alpineProfile(), nil
	default:
		return atesor.Platform{}, fmt.Errorf("unknown platform %q: choose one of %s",
			name, strings.Join(Names(), ", "))
	}
}

func debianProfile(name string) atesor.Platform {
	return atesor.Platform{
		Name:           name,
		Profile:        "debian",
		DisplayName:    "Debian GNU/Linux 13 (trixie)",
		Libc:           "glibc",
		Triplet:        "riscv64-linux-gnu",
		PackageManager: "apt-get",
		InstallCommand: "apt-get install -y",
		UpdateCommand:  "apt-get update",
		Loader:         "/lib/ld-linux-riscv64-lp64d.so.1",
		FloatABI:       "lp64d",
		ISABaseline:    "rv64gc",
		OSReleaseID:    "debian",
		Packages:       packageMap("debian"),
		Corrections:    corrections("debian"),
	}
}

// alpineProfile is the Alpine platform. Its downloads on the host are unverified: the
// minirootfs tarball is checked only against the .sha256 beside it on the same mirror
// (a broken download is caught, a mirror that serves both is not), unlike the Debian
// archive's files, which internal/debarchive verifies against the signed InRelease;
// inside the sandbox apk checks its own indexes with the keys the minirootfs carries.
func alpineProfile() atesor.Platform {
	return atesor.Platform{
		Name:           "alpine",
		Profile:        "alpine",
		DisplayName:    "Alpine Linux",
		Libc:           "musl",
		Triplet:        "riscv64-alpine-linux-musl",
		PackageManager: "apk",
		InstallCommand: "apk add --no-cache",
		UpdateCommand:  "apk update",
		Loader:         "/lib/ld-musl-riscv64.so.1",
		FloatABI:       "lp64d",
		ISABaseline:    "rv64gc",
		OSReleaseID:    "alpine",
		Packages:       packageMap("alpine"),
		Corrections:    corrections("alpine"),
	}
}

// rowName returns the package name of a row for a profile.
func rowName(r pkgRow, profile string) string {
	if profile == "alpine" {
		return r.alpine
	}
	return r.debian
}

func otherProfile(profile string) string {
	if profile == "alpine" {
		return "debian"
	}
	return "alpine"
}

func packageMap(profile string) map[string]string {
	m := make(map[string]string, len(canonicalPackages))
	for _, r := range canonicalPackages {
		m[r.canonical] = rowName(r, profile)
	}
	return m
}

// corrections maps the other distro's names (and common wrong names) to this profile's
// names. A name that is a real package of this profile is never corrected, so no
// correction is rewritten again by another one.
func corrections(profile string) map[string]string {
	own := packageMap(profile)
	valid := make(map[string]bool, len(own))
	for _, v := range own {
		valid[v] = true
	}
	c := make(map[string]string)
	other := otherProfile(profile)
	for _, r := range canonicalPackages {
		from, to := rowName(r, other), rowName(r, profile)
		if from == to || valid[from] {
			continue
		}
		if _, seen := c[from]; !seen {
			c[from] = to
		}
	}
	for _, wrong := range slices.Sorted(maps.Keys(extraCorrections[profile])) {
		to := own[extraCorrections[profile][wrong]]
		if to == "" || valid[wrong] || wrong == to {
			continue
		}
		if _, seen := c[wrong]; !seen {
			c[wrong] = to
		}
	}
	return c
}

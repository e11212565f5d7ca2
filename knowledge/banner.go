package knowledge

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// foreignManagers are package managers of other distros, named in the banner.
var foreignManagers = map[string]string{
	"apt-get": "apk, yum, dnf, pacman, zypper or brew",
	"apk":     "apt-get, apt, yum, dnf, pacman, zypper or brew",
}

// Banner is the platform banner at the top of the analyst, scout and fixer prompts: the
// distro, libc, target triplet and package manager of the active sandbox, the rule never
// to use another distro's package manager, one worked install example and one package
// name correction.
func Banner(p atesor.Platform) string {
	var b strings.Builder
	fmt.Fprintf(&b, "=== TARGET PLATFORM: %s on riscv64 (sandbox %s) ===\n", p.DisplayName, p.SandboxKey())
	fmt.Fprintf(&b, "Distro: %s (platform %s, profile %s)\n", p.DisplayName, p.Name, p.Profile)
	fmt.Fprintf(&b, "Libc: %s\n", p.Libc)
	fmt.Fprintf(&b, "Target triplet: %s (native build inside riscv64: no cross-compiler, no --host)\n", p.Triplet)
	fmt.Fprintf(&b, "Package manager: %s (install with `%s <packages>` after `%s`)\n",
		p.PackageManager, p.InstallCommand, p.UpdateCommand)
	others := foreignManagers[p.PackageManager]
	if others == "" {
		others = "the package manager of any other distro"
	}
	fmt.Fprintf(&b, "NEVER use another distro's package manager (%s): only %s exists here.\n", others, p.PackageManager)
	zlib, openssl := p.Packages["zlib"], p.Packages["openssl"]
	if zlib != "" && openssl != "" {
		fmt.Fprintf(&b, "Worked example: zlib and OpenSSL headers -> `%s %s %s`\n", p.InstallCommand, zlib, openssl)
	}
	if from, to, ok := exampleCorrection(p); ok {
		fmt.Fprintf(&b, "Name correction: %s is another distro's name; here use %s.\n", from, to)
	}
	return b.String()
}

// exampleCorrection picks the correction the banner shows: the other profile's zlib name
// when the profile corrects it, else any correction to the zlib package, else the first in
// name order.
func exampleCorrection(p atesor.Platform) (from, to string, ok bool) {
	for _, r := range canonicalPackages {
		if r.canonical != "zlib" {
			continue
		}
		other := rowName(r, otherProfile(p.Profile))
		if to, ok := p.Corrections[other]; ok {
			return other, to, true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(p.Corrections)) {
		if p.Corrections[k] == p.Packages["zlib"] {
			return k, p.Corrections[k], true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(p.Corrections)) {
		return k, p.Corrections[k], true
	}
	return "", "", false
}

// Summary is the static RISC-V knowledge block of the scout and fixer prompts: the install
// command and the canonical package map, the 7 RISC-V macros, the 9 common porting issues
// with root cause and first fix (the musl issue only in a musl sandbox), the key facts and
// the package name corrections of the active distro.
func Summary(p atesor.Platform) string {
	var b strings.Builder
	fmt.Fprintf(&b, "=== RISC-V PORTING KNOWLEDGE (%s, %s) ===\n\n", p.DisplayName, p.SandboxKey())

	b.WriteString("## Installing packages\n")
	fmt.Fprintf(&b, "Install command: %s && %s <packages>\n", p.UpdateCommand, p.InstallCommand)
	b.WriteString("Canonical dependency -> package:\n")
	writeWrapped(&b, pairs(p.Packages, "="), "  ", 96)

	b.WriteString("\n## RISC-V preprocessor macros\n")
	for _, m := range riscvMacros {
		fmt.Fprintf(&b, "- %s: %s\n", m.name, m.meaning)
	}

	b.WriteString("\n## Common porting issues (root cause -> first fix)\n")
	n := 0
	for _, is := range portingIssues {
		if is.muslOnly && p.Libc != "musl" {
			continue
		}
		n++
		fmt.Fprintf(&b, "%d. %s\n   Symptom: %s\n   Root cause: %s\n   First fix: %s\n", n, is.title, is.symptom, is.cause, is.fix)
	}

	b.WriteString("\n## Key facts\n")
	fmt.Fprintf(&b, "- Libc: %s. Loader: %s. Float ABI: %s.\n", p.Libc, p.Loader, p.FloatABI)
	fmt.Fprintf(&b, "- Native triplet: %s. The sandbox is riscv64 itself: use plain gcc/cc/c++, go and cargo.\n", p.Triplet)
	b.WriteString("- No cross-compilation flags: no --host/--build/--target, no riscv64-*-gcc prefix, no CMAKE_TOOLCHAIN_FILE, no GOARCH/GOOS, no -m64/-m32/-msse*/-mavx*/-march=x86-64.\n")
	b.WriteString("- Memory model: RISC-V (RVWMO) is weaker than x86 (TSO); code that is correct on x86 by accident can race here.\n")
	b.WriteString("- Programs may run under emulation: builds and tests are slow, so build in parallel (-j$(nproc)) and skip optional extras.\n")

	b.WriteString("\n## Package name corrections (wrong name -> ")
	b.WriteString(p.Profile)
	b.WriteString(" name)\n")
	if len(p.Corrections) == 0 {
		b.WriteString("  (none)\n")
	} else {
		writeWrapped(&b, pairs(p.Corrections, " -> "), "  ", 96)
	}
	return b.String()
}

// pairs renders a map as sorted "key<sep>value" items.
func pairs(m map[string]string, sep string) []string {
	out := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+sep+m[k])
	}
	return out
}

// writeWrapped writes items separated by ", " in lines of at most width characters.
func writeWrapped(b *strings.Builder, items []string, indent string, width int) {
	line := indent
	for i, it := range items {
		piece := it
		if i < len(items)-1 {
			piece += ","
		}
		if len(line) > len(indent) && len(line)+1+len(piece) > width {
			b.WriteString(line)
			b.WriteByte('\n')
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += piece
	}
	if len(line) > len(indent) {
		b.WriteString(line)
		b.WriteByte('\n')
	}
}

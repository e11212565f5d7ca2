package validate

import (
	"strings"

	"github.com/eclipse-atesor/atesor-go/internal/shellwords"
)

// The sandbox is a riscv64 Linux system: builds are native. These rules refuse every
// spelling of cross-compilation (a foreign target, a toolchain or cross file, a cross
// tool prefix) while the native triplet stays allowed: ./configure
// --host=riscv64-linux-gnu, --build=riscv64-unknown-linux-gnu and CC=riscv64-linux-gnu-gcc
// name the machine the sandbox is. The rule against riscv64-unknown-linux-gnu-gcc
// is about that cross-toolchain name, which only exists on a foreign host.

// crossArchs and crossTools make up triplet-prefixed tools.
var (
	crossArchs = map[string]bool{
		"riscv64": true, "riscv32": true, "riscv": true, "aarch64": true, "arm": true, "arm64": true,
		"armv7": true, "armv7l": true, "armhf": true, "x86_64": true, "amd64": true, "i686": true, "i386": true, "i586": true,
		"mips": true, "mipsel": true, "mips64": true, "mips64el": true, "powerpc": true,
		"powerpc64": true, "powerpc64le": true, "ppc64le": true, "s390x": true, "loongarch64": true,
		"sparc64": true, "m68k": true, "hppa": true, "alpha": true, "sh4": true, "wasm32": true,
	}
	crossTools = map[string]bool{
		"gcc": true, "g++": true, "cc": true, "c++": true, "clang": true, "clang++": true,
		"ld": true, "ar": true, "as": true, "nm": true, "strip": true, "objcopy": true,
		"objdump": true, "ranlib": true, "cpp": true, "gfortran": true, "readelf": true,
		"pkg-config": true, "ld.bfd": true, "ld.gold": true, "gccgo": true,
	}
)

// nativeTriplet reports whether a GNU triplet names the sandbox's own machine:
// riscv64-linux-gnu, riscv64-unknown-linux-gnu, riscv64-<vendor>-linux-gnu.
func nativeTriplet(t string) bool {
	parts := strings.Split(strings.ToLower(t), "-")
	if len(parts) < 2 || parts[0] != "riscv64" && parts[0] != "riscv64gc" {
		return false
	}
	rest := strings.Join(parts[1:], "-")
	return rest == "linux-gnu" || strings.HasSuffix(rest, "-linux-gnu") || rest == "linux" || strings.HasSuffix(rest, "-linux")
}

// crossTool reports whether name is a triplet-prefixed tool of another machine, or the
// riscv64-unknown-linux-gnu cross toolchain.
func crossTool(name string) bool {
	n := versioned.ReplaceAllString(name, "")
	parts := strings.Split(n, "-")
	if len(parts) < 3 || !crossArchs[parts[0]] || !crossTools[parts[len(parts)-1]] {
		return false
	}
	triplet := strings.Join(parts[:len(parts)-1], "-")
	if strings.HasPrefix(triplet, "riscv64-unknown-linux-gnu") {
		return true
	}
	return !nativeTriplet(triplet)
}

// nativeArch reports whether an architecture name (GOARCH, a rust or clang target) is
// riscv64.
func nativeTarget(v string) bool {
	v = strings.ToLower(strings.Trim(v, `"'`))
	return v == "" || v == "riscv64" || strings.HasPrefix(v, "riscv64gc-unknown-linux") || strings.HasPrefix(v, "riscv64-unknown-linux") ||
		nativeTriplet(v) || strings.Contains(v, dyn)
}

// configureSpec lists autoconf configure's options that select machines; configure
// accepts abbreviations (--ho=, --hos=).
var configureSpec = optSpec{long: []string{"--host", "--build", "--target"}, flags: []string{"--help", "--version", "--quiet", "--silent", "--no-create", "--no-recursion", "--enable-shared", "--disable-shared", "--enable-static", "--disable-static"}}

// mesonSpec lists meson's options that select machines; meson (argparse) accepts
// abbreviations.
var mesonSpec = optSpec{long: []string{"--cross-file", "--native-file", "--buildtype", "--prefix", "--libdir", "--backend", "--default-library", "--wrap-mode"}, flags: []string{"--reconfigure", "--wipe", "--help"}}

func crossCompile(c call, line string) error {
	const instead = "build natively: the sandbox is a riscv64 system, so use gcc/cc and plain ./configure, cmake, meson, cargo or go"
	refuse := func(what string) error {
		return reject(ruleCross, line, what, instead)
	}
	checkTok := func(v string) error {
		for _, tok := range strings.FieldsFunc(v, func(r rune) bool {
			return r == ' ' || r == '=' || r == ',' || r == ';' || r == ':' || r == '"' || r == '\''
		}) {
			if crossTool(base(tok)) {
				return refuse(tok + " is a cross-compiler")
			}
		}
		return nil
	}
	for name, v := range c.assigns {
		for _, alt := range v.alts {
			if err := crossVar(name, alt, refuse); err != nil {
				return err
			}
			if err := checkTok(alt); err != nil {
				return err
			}
		}
	}
	if len(c.args) == 0 {
		return nil
	}
	for _, a := range c.args {
		for _, alt := range a.alts {
			if err := checkTok(alt); err != nil {
				return err
			}
			if shellwords.IsAssignment(alt) {
				k, v, _ := strings.Cut(alt, "=")
				if err := crossVar(k, v, refuse); err != nil {
					return err
				}
			}
			if strings.HasPrefix(alt, "-D") {
				k, v, _ := strings.Cut(strings.TrimPrefix(alt, "-D"), "=")
				k, _, _ = strings.Cut(k, ":")
				if err := crossVar(k, v, refuse); err != nil {
					return err
				}
			}
		}
	}
	prog := c.prog()
	name := base(prog)
	args := c.args[1:]
	switch {
	case strings.HasPrefix(prog, "./") || strings.HasSuffix(prog, "/configure") || name == "configure":
		pa := parseArgs(args, configureSpec, false)
		for _, o := range pa.values("--host", "--build", "--target") {
			if !nativeTriplet(o.val()) && !strings.Contains(o.val(), dyn) {
				return refuse("the configure option names the machine " + shown(o.val()) + ", not riscv64-linux-gnu")
			}
		}
	case name == "meson":
		pa := parseArgs(args, mesonSpec, false)
		if pa.has("--cross-file") {
			return refuse("a meson cross file selects cross-compilation")
		}
	case name == "cmake":
		for _, a := range args {
			if v := a.val(); v == "--toolchain" || strings.HasPrefix(v, "--toolchain=") {
				return refuse("a CMake toolchain file selects cross-compilation")
			}
		}
	case name == "cargo" || name == "rustc":
		pa := parseArgs(args, optSpec{long: []string{"--target", "--config"}, flags: []string{"--release"}}, false)
		for _, t := range pa.values("--target") {
			if !nativeTarget(t.val()) {
				return refuse("--target " + shown(t.val()) + " builds for another machine")
			}
		}
		for _, cfg := range pa.values("--config") {
			if strings.Contains(cfg.val(), "build.target") {
				return refuse("cargo --config build.target builds for another machine")
			}
		}
	case compilerDrivers[toolName(name)] || compilerDrivers[name]:
		for i, a := range args {
			v := a.val()
			t := ""
			switch {
			case v == "-target" || v == "--target" || v == "-triple":
				if i+1 < len(args) {
					t = args[i+1].val()
				}
			case strings.HasPrefix(v, "--target=") || strings.HasPrefix(v, "-target="):
				_, t, _ = strings.Cut(v, "=")
			case strings.HasPrefix(v, "-march=") && !strings.HasPrefix(v, "-march=rv64") && !strings.HasPrefix(v, "-march=native"):
				return refuse(v + " compiles for another architecture")
			}
			if t != "" && !nativeTarget(t) {
				return refuse("the compiler target " + shown(t) + " is another machine")
			}
		}
	case name == "go":
		pa := parseArgs(args, optSpec{short: "C", exact: true}, true)
		if len(pa.operands) > 0 && pa.operands[0].val() == "env" {
			for _, kv := range pa.operands[1:] {
				if k, v, ok := strings.Cut(kv.val(), "="); ok {
					if err := crossVar(k, v, refuse); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// crossVar refuses a variable that selects another machine.
func crossVar(name, v string, refuse func(string) error) error {
	switch name {
	case "CROSS_COMPILE", "CROSS", "CROSS_PREFIX", "CROSS_COMPILER", "TOOLCHAIN_PREFIX":
		if v != "" {
			return refuse(name + " selects a cross toolchain")
		}
	case "GOARCH":
		if !nativeTarget(v) {
			return refuse("GOARCH=" + v + " builds for another architecture")
		}
	case "GOOS":
		if v != "linux" && v != "" && !strings.Contains(v, dyn) {
			return refuse("GOOS=" + v + " builds for another system")
		}
	case "CARGO_BUILD_TARGET":
		if !nativeTarget(v) {
			return refuse("CARGO_BUILD_TARGET=" + v + " builds for another machine")
		}
	case "CMAKE_TOOLCHAIN_FILE":
		return refuse("a CMake toolchain file selects cross-compilation")
	case "CMAKE_SYSTEM_NAME":
		if v != "Linux" && v != "" {
			return refuse("CMAKE_SYSTEM_NAME=" + v + " selects cross-compilation")
		}
	case "CMAKE_SYSTEM_PROCESSOR", "CMAKE_C_COMPILER_TARGET", "CMAKE_CXX_COMPILER_TARGET":
		if !nativeTarget(v) {
			return refuse(name + "=" + v + " selects another machine")
		}
	case "ARCH", "TARGET_ARCH":
		low := strings.ToLower(v)
		if v != "" && !strings.Contains(low, "riscv") && crossArchs[low] {
			return refuse(name + "=" + v + " selects another architecture")
		}
	}
	if strings.HasPrefix(name, "CARGO_TARGET_") && strings.HasSuffix(name, "_LINKER") {
		return refuse(name + " configures a cross linker")
	}
	return nil
}

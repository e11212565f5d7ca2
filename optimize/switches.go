package optimize

import (
	"io/fs"
	"regexp"
	"sort"
	"strings"
)

// Switch is a package's own build option for SIMD or the RISC-V vector extension.
type Switch struct {
	// Name is the option's name as the build system spells it.
	Name string
	// Arg is what turns it on: --enable-rvv, -DWITH_RVV=ON, -Drvv=enabled.
	Arg string
	// Vector is true when the option is about the vector extension (RVV).
	Vector bool
	// File is where it was found.
	File string
}

var (
	simdName   = regexp.MustCompile(`(?i)(rvv|riscv[-_]?v(ector)?\b|vector|simd|neon|sse|avx)`)
	vectorName = regexp.MustCompile(`(?i)(rvv|riscv[-_]?v|vector)`)
	// x86/ARM-only switches never help riscv64.
	foreignName  = regexp.MustCompile(`(?i)(neon|sse|avx|arm|x86|aarch64|altivec|vsx)`)
	acEnable     = regexp.MustCompile(`--enable-([A-Za-z0-9_-]+)`)
	cmakeOption  = regexp.MustCompile(`(?m)^\s*option\s*\(\s*([A-Za-z0-9_]+)\s+"[^"]*"\s*(ON|OFF)?\s*\)`)
	mesonOption  = regexp.MustCompile(`(?m)option\s*\(\s*'([A-Za-z0-9_-]+)'\s*,\s*type\s*:\s*'(boolean|feature|combo)'[^)]*\)`)
	mesonDefault = regexp.MustCompile(`value\s*:\s*('?[A-Za-z]+'?)`)
)

// FindSwitches looks for the package's own SIMD/RVV switches in its build files
// (configure, CMakeLists.txt and *.cmake at the top two levels, meson_options.txt,
// meson.options): options that mention RVV, the vector extension or SIMD and are off
// by default. Switches for other architectures' SIMD (NEON, SSE, AVX) are skipped.
func FindSwitches(tree fs.FS) []Switch {
	seen := map[string]bool{}
	var out []Switch
	add := func(s Switch) {
		if seen[s.Arg] || foreignName.MatchString(s.Name) || !simdName.MatchString(s.Name) {
			return
		}
		seen[s.Arg] = true
		s.Vector = vectorName.MatchString(s.Name)
		out = append(out, s)
	}
	if b, err := fs.ReadFile(tree, "configure"); err == nil {
		for _, m := range acEnable.FindAllStringSubmatch(string(b), -1) {
			// A switch that is on by default is listed as --disable-NAME; --enable-NAME
			// in the help text is one that is off.
			if !strings.Contains(string(b), "--disable-"+m[1]+" ") || strings.Contains(string(b), "--enable-"+m[1]+" ") {
				add(Switch{Name: m[1], Arg: "--enable-" + m[1], File: "configure"})
			}
		}
	}
	var cmakeFiles []string
	_ = fs.WalkDir(tree, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && strings.Count(p, "/") >= 1 && p != "." {
			return fs.SkipDir
		}
		if n := d.Name(); n == "CMakeLists.txt" || strings.HasSuffix(n, ".cmake") {
			cmakeFiles = append(cmakeFiles, p)
		}
		return nil
	})
	sort.Strings(cmakeFiles)
	for _, f := range cmakeFiles {
		b, err := fs.ReadFile(tree, f)
		if err != nil {
			continue
		}
		for _, m := range cmakeOption.FindAllStringSubmatch(string(b), -1) {
			if strings.EqualFold(m[2], "ON") {
				continue
			}
			add(Switch{Name: m[1], Arg: "-D" + m[1] + "=ON", File: f})
		}
	}
	for _, f := range []string{"meson_options.txt", "meson.options"} {
		b, err := fs.ReadFile(tree, f)
		if err != nil {
			continue
		}
		for _, m := range mesonOption.FindAllStringSubmatch(string(b), -1) {
			def := ""
			if d := mesonDefault.FindStringSubmatch(m[0]); d != nil {
				def = strings.Trim(d[1], "'")
			}
			switch m[2] {
			case "boolean":
				if def != "true" {
					add(Switch{Name: m[1], Arg: "-D" + m[1] + "=true", File: f})
				}
			case "feature":
				if def != "enabled" {
					add(Switch{Name: m[1], Arg: "-D" + m[1] + "=enabled", File: f})
				}
			}
		}
	}
	return out
}

// withConfigureArgs appends args to the configure step of a build command line: a
// configure script, a cmake configure (not cmake --build or --install) or a meson
// setup. It reports whether the line was a configure step.
func withConfigureArgs(line string, args []string) (string, bool) {
	if len(args) == 0 {
		return line, false
	}
	// Only the first simple command of an && chain that configures is changed.
	parts := strings.Split(line, "&&")
	for i, p := range parts {
		f := strings.Fields(p)
		if len(f) == 0 {
			continue
		}
		prog := f[0]
		isConf := strings.HasSuffix(prog, "/configure") || prog == "configure"
		if prog == "cmake" && !strings.Contains(p, "--build") && !strings.Contains(p, "--install") && !strings.Contains(p, " -P ") && !strings.Contains(p, " -E ") {
			isConf = true
		}
		if prog == "meson" && (len(f) > 1 && (f[1] == "setup" || !strings.HasPrefix(f[1], "-") && f[1] != "compile" && f[1] != "test" && f[1] != "install" && f[1] != "configure")) {
			isConf = true
		}
		if isConf {
			trail := p[len(strings.TrimRight(p, " \t")):]
			parts[i] = strings.TrimRight(p, " \t") + " " + strings.Join(args, " ") + trail
			return strings.Join(parts, "&&"), true
		}
	}
	return line, false
}

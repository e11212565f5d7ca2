package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Choosing which of the distribution's switches a port takes. The packaging's switches
// come from text in the archive, and the port keeps its own places and build type: only
// switches that choose features go on the configure command, only those of the plan's
// build system, only those the package's build files name (a switch for another build
// system, or for a feature this version dropped, would at best warn), and only words
// that are plain text the command validator has nothing to say about.

var (
	// switchChars are the characters a switch taken from the packaging may have: no
	// quotes, no expansions, no shell syntax, no path separators.
	switchChars = regexp.MustCompile(`^[A-Za-z0-9_.,:+@%=-]+$`)
	cmakeSwitch = regexp.MustCompile(`^-D([A-Za-z_][A-Za-z0-9_]*)(?::(?:BOOL|STRING))?=(.+)$`)
	mesonSwitch = regexp.MustCompile(`^-D([A-Za-z0-9_][A-Za-z0-9_-]*)=(.+)$`)
	autoSwitch  = regexp.MustCompile(`^--(enable|disable|with|without)-([A-Za-z0-9_][A-Za-z0-9_.+-]*)(?:=(.+))?$`)
	// layoutName names a place or the install layout: a directory, a path, a prefix.
	layoutName = regexp.MustCompile(`(?i)(?:^|_)(?:INSTALL|DIR|DIRS|PATH|PREFIX|LIBDIR|DESTDIR|RPATH)(?:_|$)|(?:DIR|PATH)$`)
)

// cmakeOwn are CMake's own variables a port may take from the distribution: the
// language standard and position-independent code change how the sources compile, not
// where anything goes. Every other CMAKE_ variable (build type, install places, flags,
// tools) stays the port's. BUILD_SHARED_LIBS and BUILD_TESTING are CMake's standard
// switches, honoured without the build files naming them.
var cmakeOwn = map[string]bool{"CMAKE_C_STANDARD": true, "CMAKE_CXX_STANDARD": true, "CMAKE_POSITION_INDEPENDENT_CODE": true,
	"BUILD_SHARED_LIBS": true, "BUILD_TESTING": true}

// mesonBuiltin are meson's built-in options (places, build type, backend, base and
// compiler options): the port's, not the distribution's.
var mesonBuiltin = map[string]bool{"prefix": true, "bindir": true, "datadir": true, "includedir": true, "infodir": true,
	"libdir": true, "licensedir": true, "libexecdir": true, "localedir": true, "localstatedir": true, "mandir": true,
	"sbindir": true, "sharedstatedir": true, "sysconfdir": true, "auto_features": true, "backend": true, "buildtype": true,
	"debug": true, "default_library": true, "default_both_libraries": true, "errorlogs": true, "install_umask": true,
	"layout": true, "optimization": true, "pkg_config_path": true, "prefer_static": true, "cmake_prefix_path": true,
	"stdsplit": true, "strip": true, "unity": true, "unity_size": true, "warning_level": true, "werror": true,
	"wrap_mode": true, "force_fallback_for": true, "vsenv": true, "genvslite": true, "pkgconfig.relocatable": true}

// autoMachinery are configure switches of the build machinery, not of the package's
// features (tracking, silent rules, maintainer mode, libtool's and the linker's places).
var autoMachinery = map[string]bool{"dependency-tracking": true, "silent-rules": true, "maintainer-mode": true,
	"option-checking": true, "sysroot": true, "gnu-ld": true, "libtool-lock": true, "rpath": true, "fast-install": true}

// libtoolSwitches are configure switches libtool's macros add.
var libtoolSwitches = map[string]bool{"shared": true, "static": true, "pic": true}

// pickSwitches returns the distribution's switches the plan's build system takes, in
// the packaging's order, and notes on the ones left out.
func pickSwitches(ctx context.Context, env Env, kind configureKind, all []string) ([]string, []string) {
	values := map[string][]string{}
	for _, sw := range all {
		k := switchKey(sw)
		if !slices.Contains(values[k], sw) {
			values[k] = append(values[k], sw)
		}
	}
	named := buildFileText(ctx, env, kind)
	var out, twoWays, layout, unnamed, testsOff []string
	seen := map[string]bool{}
	for _, sw := range all {
		k := switchKey(sw)
		if seen[k] {
			continue
		}
		seen[k] = true
		if !switchChars.MatchString(sw) {
			continue
		}
		name, ok := switchFor(kind, sw)
		if !ok {
			continue // another build system's, or no switch of this one
		}
		if name == "" {
			layout = append(layout, sw)
			continue
		}
		if turnsTestsOff(kind, sw, name) {
			// Debian's build may skip its tests (the archive runs no riscv64 test suite
			// for it, or the packaging builds them under nocheck only); here the tests
			// are the port's evidence, and a header-only library's only one.
			testsOff = append(testsOff, sw)
			continue
		}
		if len(values[k]) > 1 {
			// Set two ways under make conditionals (spdlog's nocheck branch): which one
			// Debian's default build takes is not read here, so neither is taken.
			twoWays = append(twoWays, strings.Join(values[k], " or "))
			continue
		}
		if !namesSwitch(kind, named, name) {
			unnamed = append(unnamed, sw)
			continue
		}
		out = append(out, sw)
	}
	var notes []string
	if len(twoWays) > 0 {
		notes = append(notes, "switches the packaging sets two ways under conditions: "+strings.Join(twoWays, ", "))
	}
	if len(layout) > 0 {
		notes = append(notes, "the packaging's places and build settings ("+strings.Join(layout, " ")+"), the port keeps its own")
	}
	if len(unnamed) > 0 {
		notes = append(notes, fmt.Sprintf("switches the %s build files do not name: %s", kind.name, strings.Join(unnamed, " ")))
	}
	if len(testsOff) > 0 {
		notes = append(notes, "the packaging's switches that turn the tests off ("+strings.Join(testsOff, " ")+"): the tests are the port's evidence")
	}
	return out, notes
}

// switchFor reads a switch of the plan's build system: the name the build files must
// know (a configure switch's as enable:FEATURE or with:FEATURE; "" for a place or build setting the port keeps), and false when it is no switch
// of that system.
func switchFor(kind configureKind, sw string) (string, bool) {
	switch kind {
	case cmakeKind:
		m := cmakeSwitch.FindStringSubmatch(sw)
		if m == nil {
			return "", false
		}
		if strings.HasPrefix(m[1], "CMAKE_") && !cmakeOwn[m[1]] || layoutName.MatchString(m[1]) {
			return "", true
		}
		return m[1], true
	case mesonKind:
		m := mesonSwitch.FindStringSubmatch(sw)
		if m == nil {
			return "", false
		}
		if mesonBuiltin[m[1]] || strings.HasPrefix(m[1], "b_") || strings.HasPrefix(m[1], "c_") || strings.HasPrefix(m[1], "cpp_") || layoutName.MatchString(m[1]) {
			return "", true
		}
		return m[1], true
	case autotoolsKind:
		m := autoSwitch.FindStringSubmatch(sw)
		if m == nil {
			return "", false
		}
		if autoMachinery[m[2]] || layoutName.MatchString(strings.ReplaceAll(m[2], "-", "_")) {
			return "", true
		}
		family := "enable"
		if m[1] == "with" || m[1] == "without" {
			family = "with"
		}
		return family + ":" + m[2], true
	}
	return "", false
}

// namesSwitch reports whether the build files' text names the switch.
func namesSwitch(kind configureKind, text, name string) bool {
	switch kind {
	case cmakeKind:
		return cmakeOwn[name] || containsWord(text, name)
	case mesonKind:
		return strings.Contains(text, "'"+name+"'") || strings.Contains(text, `"`+name+`"`)
	case autotoolsKind:
		family, feature, _ := strings.Cut(name, ":")
		under := strings.ReplaceAll(feature, "-", "_")
		if containsWord(text, family+"_"+under) || strings.Contains(text, family+"-"+feature) {
			return true
		}
		// AC_ARG_ENABLE([feature]...) in configure.ac names it without the prefix.
		if regexp.MustCompile(`AC_ARG_` + strings.ToUpper(family) + `\(\s*\[?` + regexp.QuoteMeta(feature) + `\]?\s*,`).MatchString(text) {
			return true
		}
		return libtoolSwitches[feature] && family == "enable" &&
			(strings.Contains(text, "LT_INIT") || strings.Contains(text, "AC_PROG_LIBTOOL") || strings.Contains(text, "AM_PROG_LIBTOOL"))
	}
	return false
}

// containsWord reports whether name occurs in text as a whole identifier.
func containsWord(text, name string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		at, end := i+j, i+j+len(name)
		if (at == 0 || !identByte(text[at-1])) && (end == len(text) || !identByte(text[end])) {
			return true
		}
		i = at + 1
	}
}

func identByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

const (
	maxBuildFiles     = 64       // build files read for the names of switches
	maxBuildFileBytes = 16 << 20 // their text, all together
)

// buildFileText is the text of the build files that declare the build system's
// switches: CMakeLists.txt and *.cmake files, meson's option files, configure and
// configure.ac with the m4 files beside them. Read through the gate, bounded.
func buildFileText(ctx context.Context, env Env, kind configureKind) string {
	if env.ReadFile == nil {
		return ""
	}
	var files []string
	for _, f := range env.Files {
		base := path.Base(f)
		var take bool
		switch kind {
		case cmakeKind:
			take = base == "CMakeLists.txt" || strings.HasSuffix(base, ".cmake")
		case mesonKind:
			take = (base == "meson_options.txt" || base == "meson.options") && !strings.HasPrefix(f, "subprojects/")
		case autotoolsKind:
			take = f == "configure" || f == "configure.ac" || f == "configure.in" || f == "acinclude.m4" || path.Dir(f) == "m4" && strings.HasSuffix(f, ".m4")
		}
		if take {
			files = append(files, f)
		}
	}
	slices.SortFunc(files, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
	var b strings.Builder
	for i, f := range files {
		if i >= maxBuildFiles || b.Len() >= maxBuildFileBytes || ctx.Err() != nil {
			break
		}
		data, err := env.ReadFile(ctx, f)
		if err != nil {
			continue
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

// turnsTestsOff reports whether sw, a switch of kind whose name is name, turns the
// package's tests off: a CMake or meson option for tests set false
// (-DCPPZMQ_BUILD_TESTS=OFF, -Dtests=false), a --disable or --without of a test feature.
func turnsTestsOff(kind configureKind, sw, name string) bool {
	if purposeOf(name) != "tests" {
		return false
	}
	switch kind {
	case cmakeKind, mesonKind:
		_, val, _ := strings.Cut(sw, "=")
		switch strings.ToLower(strings.Trim(val, `'"`)) {
		case "off", "false", "no", "n", "0", "disabled":
			return true
		}
	case autotoolsKind:
		return strings.HasPrefix(sw, "--disable-") || strings.HasPrefix(sw, "--without-")
	}
	return false
}

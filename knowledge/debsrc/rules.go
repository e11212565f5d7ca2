package debsrc

import (
	"regexp"
	"strings"
)

// Reading the configure switches out of debian/rules. The export check compares a port
// with Debian's build of the same version, and where Debian's build exports functions
// this one lacks, the usual reason is a switch Debian's packaging passes that upstream's
// defaults leave off. debian/rules is a makefile written by a package's maintainers and
// comes from the archive: it is read as text, never run, and every loop over it is
// bounded.

const (
	maxRulesBytes  = 1 << 20 // a debian/rules larger than this is cut
	maxExpandDepth = 8       // nested $(VAR) references followed
	maxSwitches    = 200     // switches returned
	maxSwitchLen   = 256     // a longer word is no switch
)

var (
	// assignment is a makefile variable assignment: [export|override] NAME op value.
	assignment = regexp.MustCompile(`^(?:(?:export|override)\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*(\+=|\?=|:::=|::=|:=|!=|=)\s*(.*)$`)
	// varRef is a $(NAME) or ${NAME} reference without functions or substitutions.
	varRef = regexp.MustCompile(`\$[({]([A-Za-z_][A-Za-z0-9_.-]*)[)}]`)
	// configureCall finds the start of a configure step's arguments in a recipe line:
	// dh_auto_configure's after its "--", a configure script's, cmake's and meson's.
	configureCall = regexp.MustCompile(`(?:\bdh_auto_configure\b[^;&|]*?\s--(?:\s|$)|(?:^|[\s;&|(/])(?:\.\.?/)*configure(?:\s|$)|(?:^|[\s;&|(])cmake(?:\s|$)|(?:^|[\s;&|(])meson(?:\s+(?:setup|configure))?(?:\s|$))`)
	// switchWord is a configure, CMake or meson switch.
	switchWord = regexp.MustCompile(`^(--[A-Za-z0-9][A-Za-z0-9_.+-]*(=.*)?|-D[A-Za-z_][A-Za-z0-9_.:+-]*(=.*)?)$`)
)

// implicitFlags are the variables whose value a packaging helper (CDBS, dh's
// buildsystem classes) passes to the configure step without rules naming the step.
var implicitFlags = map[string]bool{
	"DEB_CONFIGURE_EXTRA_FLAGS": true, "DEB_CONFIGURE_USER_FLAGS": true,
	"DEB_CMAKE_EXTRA_FLAGS": true, "DEB_MESON_EXTRA_FLAGS": true,
}

// ConfigureSwitches returns the switches debian/rules passes to the configure step
// (--enable-*, --with-*, --disable-*, -DNAME=VALUE and the like), in the order they
// appear and each once: the arguments after dh_auto_configure's "--", of ./configure,
// cmake and meson calls (override_dh_auto_configure blocks included), and the values
// of CDBS's DEB_CONFIGURE_EXTRA_FLAGS and its kind. References to variables the same
// file defines (CONFIGURE_FLAGS, confflags ...) are expanded; a word still holding an
// unknown reference or a shell construct is left out. Make's conditionals are not
// evaluated, except those testing only the architecture (DEB_HOST_ARCH and its
// kind), which are taken as on a native riscv64 build, the port's target: a switch
// of another architecture's branch is not riscv64's. Every other conditional's
// branches are all read and the last assignment wins. Nothing is executed.
func ConfigureSwitches(rules string) []string {
	if len(rules) > maxRulesBytes {
		rules = rules[:maxRulesBytes]
	}
	lines := logicalLines(rules)
	active := activeLines(lines)
	vars := map[string]string{}
	for i, l := range lines {
		if !active[i] {
			continue
		}
		if strings.HasPrefix(l, "\t") {
			continue // a recipe line runs a command, it assigns nothing in make
		}
		m := assignment.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil || m[2] == "!=" {
			continue
		}
		name, value := m[1], stripComment(m[3])
		if m[2] == "+=" && vars[name] != "" {
			vars[name] += " " + value
		} else if m[2] != "?=" || vars[name] == "" {
			vars[name] = value
		}
	}
	var out []string
	seen := map[string]bool{}
	add := func(text string) {
		for _, w := range strings.Fields(expand(text, vars, 0)) {
			if len(out) >= maxSwitches {
				return
			}
			w = strings.Trim(w, `'"`)
			if len(w) > maxSwitchLen || strings.ContainsAny(w, "$`\\;|&<>()") || !switchWord.MatchString(w) || seen[w] {
				continue
			}
			seen[w] = true
			out = append(out, w)
		}
	}
	for i, l := range lines {
		if !active[i] {
			continue
		}
		if !strings.HasPrefix(l, "\t") {
			if m := assignment.FindStringSubmatch(strings.TrimSpace(l)); m != nil && implicitFlags[m[1]] {
				add(stripComment(m[3]))
			}
			continue
		}
		cmd := stripComment(l)
		for range 16 { // a recipe line may chain a few configure steps
			loc := configureCall.FindStringIndex(cmd)
			if loc == nil {
				break
			}
			args := cmd[loc[1]:]
			if i := strings.IndexAny(args, ";&|>"); i >= 0 {
				cmd, args = args[i:], args[:i]
			} else {
				cmd = ""
			}
			add(args)
		}
	}
	return out
}

// logicalLines joins the backslash-continued lines of a makefile.
func logicalLines(text string) []string {
	var out []string
	var cur strings.Builder
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.HasSuffix(l, "\\") {
			cur.WriteString(strings.TrimSuffix(l, "\\"))
			cur.WriteByte(' ')
			continue
		}
		cur.WriteString(l)
		out = append(out, cur.String())
		cur.Reset()
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// stripComment cuts a makefile comment (an unescaped #) off a line.
func stripComment(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '#' && (i == 0 || s[i-1] != '\\') {
			return strings.TrimSpace(s[:i])
		}
	}
	return strings.TrimSpace(s)
}

// expand replaces the references to variables defined in vars, to maxExpandDepth
// levels; an unknown reference stays as it is (and its word is then left out).
func expand(s string, vars map[string]string, depth int) string {
	if depth >= maxExpandDepth || !strings.Contains(s, "$") {
		return s
	}
	out := varRef.ReplaceAllStringFunc(s, func(ref string) string {
		name := varRef.FindStringSubmatch(ref)[1]
		if v, ok := vars[name]; ok {
			return expand(v, vars, depth+1)
		}
		return ref
	})
	if len(out) > maxRulesBytes {
		return out[:maxRulesBytes]
	}
	return out
}

// EnablingSwitches picks from switches those that turn on something upstream's
// defaults may leave off: --enable-X, --with-X (not =no), -DX=ON/TRUE/YES/1 and meson's
// -Dx=true/enabled, leaving out the build's places and toolchain settings (CMAKE_*,
// --with-sysroot and the like).
func EnablingSwitches(switches []string) []string {
	var out []string
	for _, s := range switches {
		name, value, hasValue := strings.Cut(s, "=")
		v := strings.ToLower(value)
		switch {
		case strings.HasPrefix(name, "--enable-") || strings.HasPrefix(name, "--with-"):
			if hasValue && (v == "no" || v == "none" || v == "off" || v == "false") || placeSwitch[name] {
				continue
			}
			out = append(out, s)
		case strings.HasPrefix(name, "-D") && hasValue:
			if strings.HasPrefix(name, "-DCMAKE_") {
				continue
			}
			switch v {
			case "on", "true", "yes", "1", "enabled":
				out = append(out, s)
			}
		}
	}
	return out
}

// placeSwitch are --with switches that say where things are, not which features a build has.
var placeSwitch = map[string]bool{"--with-sysroot": true, "--with-gnu-ld": true, "--with-pic": true}

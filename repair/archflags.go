package repair

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

// foreignArchFlags are, per architecture, the compiler flags as a build file writes
// them that only that architecture's GCC or Clang takes: riscv64's compiler refuses
// every one ("unrecognized command-line option", "ISA string must begin with rv32 or
// rv64", "unknown cpu"). A build file written on one machine, or a per-target branch
// taken by mistake (highway's HWY_CMAKE_ARM7 copts: -march=armv7-a -mfpu=neon-vfpv4
// -mfloat-abi=hard -mfp16-format=ieee), passes them to a riscv64 build, which needs
// none of them. -march=native and -mtune=native are listed with x86, where they are
// usually written. Flags riscv64 shares (-mabi=, -mcpu= of a RISC-V core, -mstrict-align)
// are not listed, and -mcpu= and -mtune= only with another architecture's core names.
var foreignArchFlags = []struct{ arch, flags string }{
	{"x86", `-m64|-m32|-mfpmath=sse|-msse[0-9a-z._]*|-mssse3|-mavx[0-9a-z_]*|-mpopcnt|-mpclmul|-maes|-mbmi2?|-mfma|-mf16c|-mlzcnt|-mcx16|` +
		`-m(?:arch|tune)=(?:native|generic|x86-64[a-z0-9-]*|core[a-z0-9-]*|nehalem|westmere|sandybridge|ivybridge|haswell|broadwell|skylake[a-z0-9-]*|icelake[a-z0-9-]*|i[3-6]86|pentium[a-z0-9-]*|athlon[a-z0-9-]*|k8|opteron|znver\d)`},
	{"arm", `-march=armv[0-9][0-9a-z.+-]*|-m(?:cpu|tune)=(?:cortex-[a-z0-9.+-]+|neoverse-[a-z0-9.+-]+|apple-[a-z0-9.+-]+|thunderx[a-z0-9.+-]*|a64fx|xgene1|exynos-[a-z0-9]+|carmel)|` +
		`-mfpu=[a-z0-9-]+|-mfloat-abi=(?:hard|soft|softfp)|-mfp16-format=(?:ieee|alternative|none)|-mthumb|-marm|-mthumb-interwork|-m(?:no-)?outline-atomics`},
	{"powerpc", `-m(?:cpu|tune)=(?:power[0-9]+|powerpc(?:64)?(?:le)?|970|G[345])|-m(?:no-)?altivec|-m(?:no-)?vsx|-mabi=altivec|-mpower[89]-vector|-mcrypto|-mdirect-move`},
	{"s390x", `-m(?:arch|tune)=(?:z[0-9]+|arch[0-9]+)|-mzvector`},
	{"loongarch", `-m(?:arch|tune)=(?:loongarch64|la[0-9]+)|-mlsx|-mlasx`},
	{"mips", `-mips(?:32|64)(?:r[0-9])?|-mmsa`},
}

// foreignFlag is every architecture's flags as one alternation.
var foreignFlag = func() string {
	var alts []string
	for _, a := range foreignArchFlags {
		alts = append(alts, a.flags)
	}
	return strings.Join(alts, "|")
}()

var (
	foreignFlagWord = re(`(?:^|[\s"'=(,])(` + foreignFlag + `)(?:[\s"'),]|$)`)
	// foreignFlagError is the compiler refusing such a flag: riscv64 gcc says
	// "unrecognized command-line option '-m64'", "'-march=native': ISA string must begin
	// with rv32 or rv64" or "unknown cpu 'power9' for '-mcpu'", clang "unsupported
	// option '-msse2' for target".
	foreignFlagError = re(`(?:unrecognized (?:command[- ]line|command) option|unsupported option|unknown argument:?|invalid argument|error: unknown cpu|ISA string must begin with rv).{0,8}['‘"]?(?:` + foreignFlag + `|native)(?:['’"\s,]|$)` +
		`|['‘"](?:` + foreignFlag + `)['’"]: ISA string must begin` +
		`|unknown cpu ['‘"](?:power[0-9]+|cortex-[a-z0-9.+-]+|neoverse-[a-z0-9.+-]+|z[0-9]+)['’"] for ['‘"]-m(?:cpu|tune)`)
	// marchVariable is a -march= or -mtune= whose value a build-file variable holds
	// (CRoaring 0.2's -march=${ROARING_ARCH}, a cache variable that defaults to native).
	// It is removed only when the compiler refused a foreign or native -march or -mtune,
	// which is then what the variable held: a riscv64 value in it is left alone.
	marchVariable = re(`(?:^|[\s"'=(,])(-m(?:arch|tune)=(?:\$\{[A-Za-z0-9_]+\}|\$\([A-Za-z0-9_]+\)|@[A-Za-z0-9_]+@))(?:[\s"'),]|$)`)
)

func archFlagsRule() Rule {
	return Rule{
		Name: "foreign-arch-flags",
		Doc: "compiler flags of another architecture in build files or the plan (x86's -m64, -msse*, -march=native; ARM's -march=armv*, " +
			"-mfpu=, -mfloat-abi=; PowerPC's -mcpu=power*, -maltivec; s390x, LoongArch, MIPS): removed with a recorded edit",
		Signatures: []*regexp.Regexp{foreignFlagError},
		Make:       makeArchFlags,
	}
}

// buildFileForFlags reports whether a repository file is a build file whose compiler
// flags the rule may edit. With a shipped configure, the autotools inputs
// (configure.ac, Makefile.am) are left alone: editing them would make make run automake
// again; their generated Makefile.in is edited instead, and so is the configure script
// itself, which may set the flag outright (ParaFly 0.1.0's AM_CXXFLAGS=-m64, from
// configure.ac's AC_SUBST: every Makefile configure writes gets it back).
func buildFileForFlags(p string, shippedConfigure bool) bool {
	base := path.Base(p)
	switch {
	case p == "configure":
		return shippedConfigure
	case base == "Makefile" || base == "makefile" || base == "GNUmakefile" || base == "Makefile.in" ||
		base == "CMakeLists.txt" || base == "meson.build" || base == "meson_options.txt" ||
		strings.HasSuffix(base, ".mk") || strings.HasSuffix(base, ".mak") || strings.HasSuffix(base, ".cmake"):
		return true
	case base == "configure.ac" || base == "configure.in" || base == "Makefile.am":
		return !shippedConfigure
	}
	return false
}

// RemoveForeignFlags removes the flags of other architectures ([foreignArchFlags])
// from one line and reports whether it changed. A flag goes with one space next to
// it, so "-O2 -m64 -Wall" becomes "-O2 -Wall".
func RemoveForeignFlags(line string) (string, bool) {
	return removeFlags(line, foreignFlagWord)
}

// removeFlags removes the flags word matches (its first group) from one line, each with
// one space next to it, and reports whether it changed.
func removeFlags(line string, word *regexp.Regexp) (string, bool) {
	changed := false
	for range 64 {
		loc := word.FindStringSubmatchIndex(line)
		if loc == nil {
			break
		}
		start, end := loc[2], loc[3]
		switch {
		case start > 0 && line[start-1] == ' ':
			start--
		case end < len(line) && line[end] == ' ':
			end++
		}
		line, changed = line[:start]+line[end:], true
	}
	return line, changed
}

func makeArchFlags(ctx context.Context, f Failure, env Env) (*Fix, string) {
	shipped := env.Detection != nil && env.Detection.ShippedConfigure
	edit := RemoveForeignFlags
	if refused := foreignFlagError.FindString(f.text()); strings.Contains(refused, "-march=") || strings.Contains(refused, "-mtune=") {
		edit = func(line string) (string, bool) {
			line, direct := RemoveForeignFlags(line)
			line, indirect := removeFlags(line, marchVariable)
			return line, direct || indirect
		}
	}
	var actions []atesor.Action
	var files []string
	if env.ReadFile != nil {
		for _, p := range env.Files {
			if len(files) == 20 || !buildFileForFlags(p, shipped) || noiseDir(p) {
				continue
			}
			b, err := env.ReadFile(ctx, p)
			if err != nil {
				continue
			}
			diff, ok := lineDiff(p, string(b), edit)
			if !ok {
				continue
			}
			actions = append(actions, atesor.Action{Type: atesor.ActionPatch, File: p, Diff: diff})
			files = append(files, p)
		}
	}
	var plan *atesor.BuildPlan
	if env.Plan != nil {
		p := *env.Plan
		p.Phases = slices.Clone(p.Phases)
		changed := false
		for i := range p.Phases {
			cmds := slices.Clone(p.Phases[i].Commands)
			for j, c := range cmds {
				if n, ok := RemoveForeignFlags(c); ok {
					cmds[j], changed = n, true
				}
			}
			p.Phases[i].Commands = cmds
		}
		if changed {
			plan = &p
			files = append(files, "the build plan")
		}
	}
	if len(files) == 0 {
		return nil, "no flag of another architecture found in the build files or the plan"
	}
	return &Fix{
		Analysis: "The build passes compiler flags of another architecture, which the riscv64 compiler refuses; riscv64 needs none of them.",
		Strategy: fmt.Sprintf("remove the other architectures' flags from %s", strings.Join(files, ", ")),
		Actions:  actions,
		Plan:     plan,
	}, ""
}

// noiseDir skips directories that are not the package's build: version control,
// vendored copies of other projects' build files are still edited.
func noiseDir(p string) bool {
	return strings.HasPrefix(p, ".git/") || strings.Contains(p, "/.git/") || strings.HasPrefix(p, "debian/")
}

// comment is a comment line of a Makefile, CMake, meson or autoconf file.
var comment = re(`^\s*(?:#|dnl\b)`)

// lineDiff returns a unified diff (no context lines, a/ b/ prefixes) of edit applied to
// each line of a file that is not a comment, and whether edit changed any.
func lineDiff(p, content string, edit func(string) (string, bool)) (string, bool) {
	return linesDiff(p, content, true, func(_ int, body string) (string, bool) { return edit(body) })
}

// linesDiff is lineDiff with the line's index (from 0) given to edit, and comment lines
// edited too unless skipComments.
func linesDiff(p, content string, skipComments bool, edit func(int, string) (string, bool)) (string, bool) {
	lines := strings.SplitAfter(content, "\n")
	var b strings.Builder
	for i, l := range lines {
		if l == "" {
			continue
		}
		body, nl := strings.CutSuffix(l, "\n")
		cr := strings.HasSuffix(body, "\r")
		body = strings.TrimSuffix(body, "\r")
		if skipComments && comment.MatchString(body) {
			continue
		}
		n, ok := edit(i, body)
		if !ok {
			continue
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", p, p)
		}
		end := ""
		if cr {
			end = "\r"
		}
		fmt.Fprintf(&b, "@@ -%d +%d @@\n-%s%s\n", i+1, i+1, body, end)
		if !nl {
			b.WriteString("\\ No newline at end of file\n")
		}
		fmt.Fprintf(&b, "+%s%s\n", n, end)
		if !nl {
			b.WriteString("\\ No newline at end of file\n")
		}
	}
	return b.String(), b.Len() > 0
}

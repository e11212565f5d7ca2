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

// Code written for one architecture's vector units includes its intrinsics headers
// (<xmmintrin.h> for SSE, <arm_neon.h>, <altivec.h>), which the riscv64 compiler does not
// have. A package that also has portable code says which with a build switch: libsquish
// 1.15's CMakeLists.txt has OPTION(BUILD_SQUISH_WITH_SSE2 "Build with SSE2." ON), whose
// IF() adds -DSQUISH_USE_SSE=2 -msse2; its float code builds anywhere. Removing the
// foreign flag leaves the define, and the build stops at "fatal error: xmmintrin.h: No
// such file or directory". The porter turns the switch off: the CMake option named for
// the header's instruction set, ON by default and tested in an if(), or configure's
// --disable switch of that name.

const simdOptionRuleName = "simd-option-off"

// simdISA is an instruction set's intrinsics headers and the words the switches for it
// are named with.
type simdISA struct {
	header *regexp.Regexp
	isa    string // what the analysis calls it
	words  *regexp.Regexp
}

// simdHeaders are the instruction sets of other architectures.
var simdHeaders = []simdISA{
	{re(`^(?:[a-z0-9]*mmintrin|x86intrin|x86gprintrin|cpuid|[a-z0-9]*avx[a-z0-9]*intrin)\.h$`), "x86 SSE/AVX",
		re(`(?i)(?:^|_)(?:sse[0-9_]*|ssse3|avx[0-9a-z]*|mmx|x86|x64|amd64|simd|intrinsics?)(?:_|$)|sse[0-9]|avx[0-9]?`)},
	{re(`^arm_(?:neon|sve|acle)\.h$`), "Arm NEON/SVE", re(`(?i)(?:^|_)(?:neon|sve[0-9]*|arm|aarch64|simd|intrinsics?)(?:_|$)`)},
	{re(`^(?:altivec|spe)\.h$`), "PowerPC AltiVec", re(`(?i)(?:^|_)(?:altivec|vsx|vmx|ppc|powerpc|simd|intrinsics?)(?:_|$)`)},
}

// simdIncludeMissing is a missing include of one of those headers.
var simdIncludeMissing = re(`fatal error: '?((?:[a-z0-9]*mmintrin|x86intrin|x86gprintrin|cpuid|[a-z0-9]*avx[a-z0-9]*intrin|arm_neon|arm_sve|arm_acle|altivec|spe)\.h)'?: (?:No such file or directory|file not found)`)

// maxSIMDScripts bounds the CMakeLists.txt files read for a switch.
const maxSIMDScripts = 32

func simdOptionRule() Rule {
	return Rule{
		Name: simdOptionRuleName,
		Doc: "another architecture's intrinsics header missing (libsquish's xmmintrin.h under its BUILD_SQUISH_WITH_SSE2 option): " +
			"the CMake option named for that instruction set, ON by default and tested in an if(), configured OFF, or configure's --disable switch of that name",
		Categories: []atesor.ErrorCategory{atesor.CategoryArchitecture, atesor.CategoryDependency, atesor.CategoryCompilation, atesor.CategoryUnknown},
		Signatures: []*regexp.Regexp{simdIncludeMissing},
		Make:       makeSIMDOptionOff,
	}
}

func makeSIMDOptionOff(ctx context.Context, f Failure, env Env) (*Fix, string) {
	if env.Plan == nil || env.ReadFile == nil {
		return nil, "no build plan or build files to read"
	}
	m := simdIncludeMissing.FindStringSubmatch(f.Message + "\n" + f.text())
	if m == nil {
		return nil, "no intrinsics header named"
	}
	header := m[1]
	i := slices.IndexFunc(simdHeaders, func(h simdISA) bool { return h.header.MatchString(header) })
	if i < 0 {
		return nil, header + " is no instruction set's intrinsics header the rule knows"
	}
	h := simdHeaders[i]
	if slices.Contains(env.Files, "CMakeLists.txt") {
		name, file, why := simdCMakeOption(ctx, env, h.words)
		if name == "" {
			return nil, why
		}
		plan, ok := withCMakeDefines(*env.Plan, f.Phase, []leaf{{op: "var", name: name, want: false}})
		if !ok {
			return nil, "no cmake configure command in the plan to pass -D" + name + "=OFF to"
		}
		if samePlan(plan, *env.Plan) {
			return nil, "the plan already configures -D" + name + "=OFF"
		}
		return &Fix{
			Analysis: fmt.Sprintf("The build includes %s, an %s intrinsics header the riscv64 compiler does not have. %s's option %s, ON by default, "+
				"selects that code; configured OFF, the build takes the package's portable code instead.", header, h.isa, file, name),
			Strategy: "configure with -D" + name + "=OFF",
			Plan:     &plan,
		}, ""
	}
	return simdConfigureSwitch(ctx, f, env, header, h.isa, h.words)
}

// simdCMakeOption finds an option() of the tree's CMakeLists.txt files named for the
// instruction set, ON by default, that an if() tests: the switch the build has for it.
func simdCMakeOption(ctx context.Context, env Env, words *regexp.Regexp) (name, file, why string) {
	read := 0
	// The top-level file first: its options are the package's own, a subproject's
	// come after.
	files := append([]string{"CMakeLists.txt"}, slices.DeleteFunc(slices.Clone(env.Files), func(p string) bool { return p == "CMakeLists.txt" })...)
	for _, p := range files {
		if read == maxSIMDScripts {
			break
		}
		if path.Base(p) != "CMakeLists.txt" {
			continue
		}
		read++
		b, err := env.ReadFile(ctx, p)
		if err != nil || len(b) > maxCMakeBytes {
			continue
		}
		s, err := readCMakeScript(p, string(b))
		if err != nil {
			continue
		}
		var names []string
		for n, o := range s.options {
			if o.Default == triTrue && words.MatchString(n) && testedInIf(s, n) {
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			slices.Sort(names)
			return names[0], p, ""
		}
	}
	return "", "", "no option of the tree's CMakeLists.txt files, ON by default and tested in an if(), is named for the instruction set"
}

// testedInIf reports whether an if() or elseif() of the script names the variable.
func testedInIf(s *cmakeScript, name string) bool {
	for _, c := range s.cmds {
		if c.Name != "if" && c.Name != "elseif" {
			continue
		}
		for _, a := range c.Args {
			if !a.Quoted && (a.Text == name || a.Text == "${"+name+"}") {
				return true
			}
		}
	}
	return false
}

// configureDisable is a --disable-X or --enable-X switch in a configure script's help.
var configureDisable = re(`--(?:disable|enable)-([a-z0-9][a-z0-9_-]*)`)

// simdConfigureSwitch passes configure's --disable switch named for the instruction set.
func simdConfigureSwitch(ctx context.Context, f Failure, env Env, header, isa string, words *regexp.Regexp) (*Fix, string) {
	if !slices.Contains(env.Files, "configure") {
		return nil, "the tree has neither a top-level CMakeLists.txt nor a configure script"
	}
	b, err := env.ReadFile(ctx, "configure")
	if err != nil {
		return nil, "configure: " + err.Error()
	}
	var feature string
	for _, m := range configureDisable.FindAllStringSubmatch(string(b), -1) {
		if words.MatchString(strings.ReplaceAll(m[1], "-", "_")) {
			feature = m[1]
			break
		}
	}
	if feature == "" {
		return nil, "configure has no --disable switch named for the instruction set"
	}
	sw := "--disable-" + feature
	plan, ok := withSwitches(*env.Plan, f.Phase, autotoolsKind.command, []string{sw})
	if !ok || samePlan(plan, *env.Plan) {
		return nil, "no ./configure in the plan to pass " + sw + " to, or it has it"
	}
	return &Fix{
		Analysis: fmt.Sprintf("The build includes %s, an %s intrinsics header the riscv64 compiler does not have; configure's %s leaves that code out.", header, isa, sw),
		Strategy: "configure with " + sw,
		Plan:     &plan,
	}, ""
}

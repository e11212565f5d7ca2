package memory_test

import (
	"encoding/json"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/memory"
)

func bundledFile(t *testing.T, agent atesor.Agent) atesor.ExampleFile {
	t.Helper()
	n, err := memory.FileName(agent)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fs.ReadFile(memory.Bundled(), n)
	if err != nil {
		t.Fatal(err)
	}
	f, err := memory.ParseExampleFile(b)
	if err != nil {
		t.Fatalf("%s: %v", n, err)
	}
	return f
}

// exampleCommands returns every command line of an example.
func exampleCommands(e atesor.Example) []string {
	var out []string
	for _, ps := range [][]atesor.Phase{e.Plan, e.Phases} {
		for _, p := range ps {
			out = append(out, p.Commands...)
		}
	}
	if e.Fix != nil {
		for _, a := range e.Fix.Actions {
			out = append(out, a.Command)
		}
	}
	return out
}

var (
	aptRe = regexp.MustCompile(`(^|[;&|(\s])apt(-get)?\s`)
	apkRe = regexp.MustCompile(`(^|[;&|(\s])apk\s`)
)

// installedPackages returns the packages named by "apt-get install" (or "apk add")
// commands of a command line.
func installedPackages(line, manager string) []string {
	var out []string
	for _, simple := range regexp.MustCompile(`&&|\|\||;|\|`).Split(line, -1) {
		f := strings.Fields(simple)
		for len(f) > 0 && strings.Contains(f[0], "=") {
			f = f[1:]
		}
		if len(f) < 2 || f[0] != manager {
			continue
		}
		verb := map[string]string{"apt-get": "install", "apk": "add"}[manager]
		i := slices.Index(f, verb)
		if i < 0 {
			continue
		}
		for _, w := range f[i+1:] {
			if !strings.HasPrefix(w, "-") {
				out = append(out, w)
			}
		}
	}
	return out
}

func TestBundledExamples(t *testing.T) {
	manualID := map[atesor.Agent]*regexp.Regexp{}
	for _, a := range atesor.Agents() {
		manualID[a] = regexp.MustCompile(`^` + string(a) + `-[0-9]{3}$`)
	}
	seenID := map[string]bool{}
	type key struct {
		agent   atesor.Agent
		sandbox string
	}
	count := map[key]int{}
	for _, agent := range atesor.Agents() {
		f := bundledFile(t, agent)
		if f.Version != "2.0" || f.Description == "" || len(f.GeneralGuidelines) == 0 {
			t.Errorf("%s file: version %q, description %q, %d guidelines", agent, f.Version, f.Description, len(f.GeneralGuidelines))
		}
		for _, e := range f.Examples {
			if seenID[e.ID] {
				t.Errorf("id %s twice", e.ID)
			}
			seenID[e.ID] = true
			if !manualID[agent].MatchString(e.ID) || strings.Contains(e.ID, "-auto-") {
				t.Errorf("%s: not a manual id of the %s file", e.ID, agent)
			}
			if e.Source != atesor.SourceManual || e.Name == "" || e.BuildSystem == "" || e.Reasoning == "" || len(e.Tags) == 0 ||
				!regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`).MatchString(e.Timestamp) {
				t.Errorf("%s: incomplete common fields", e.ID)
			}
			if len(e.Extra) > 0 {
				t.Errorf("%s: unknown keys %v", e.ID, e.Extra)
			}
			var own, foreign *regexp.Regexp
			switch e.Sandbox {
			case debian:
				own, foreign = aptRe, apkRe
			case alpine:
				own, foreign = apkRe, aptRe
			default:
				t.Errorf("%s: sandbox %q, want %s or %s", e.ID, e.Sandbox, debian, alpine)
				continue
			}
			count[key{agent, e.Sandbox}]++
			usesOwn := false
			for _, c := range exampleCommands(e) {
				if foreign.MatchString(c) {
					t.Errorf("%s (%s) uses the other sandbox's package manager: %s", e.ID, e.Sandbox, c)
				}
				usesOwn = usesOwn || own.MatchString(c)
			}
			switch agent {
			case atesor.AgentScout:
				if e.Trigger == nil || e.Trigger.BuildSystem != e.BuildSystem || len(e.Plan) == 0 || !usesOwn {
					t.Errorf("%s: a scout example needs a trigger of its build system and a plan that installs with the sandbox's package manager", e.ID)
				}
			case atesor.AgentFixer:
				if e.ErrorPattern == "" || e.Fix == nil || e.Fix.Analysis == "" || e.Fix.Strategy == "" || len(e.Fix.Actions) == 0 {
					t.Errorf("%s: incomplete fixer example", e.ID)
					continue
				}
				if _, err := regexp.Compile("(?i)" + e.ErrorPattern); err != nil {
					t.Errorf("%s: error_pattern does not compile: %v", e.ID, err)
				}
				for _, a := range e.Fix.Actions {
					if a.Type != atesor.ActionCommand || a.Command == "" {
						t.Errorf("%s: every action is one command", e.ID)
					}
				}
			case atesor.AgentBuilder:
				want := "120s"
				if len(e.Phases) > 2 {
					want = "600s"
				}
				if len(e.Phases) == 0 || e.TimeoutRecommendation != want || !usesOwn {
					t.Errorf("%s: builder example with %d phases has timeout %q, want %q (and its package manager)", e.ID, len(e.Phases), e.TimeoutRecommendation, want)
				}
			}
		}
	}
	for _, sb := range []string{debian, alpine} {
		if n := count[key{atesor.AgentScout, sb}]; n < 6 {
			t.Errorf("%s: %d scout examples, want at least 6", sb, n)
		}
		if n := count[key{atesor.AgentFixer, sb}]; n < 8 {
			t.Errorf("%s: %d fixer examples, want at least 8", sb, n)
		}
		if n := count[key{atesor.AgentBuilder, sb}]; n < 3 {
			t.Errorf("%s: %d builder examples, want at least 3", sb, n)
		}
	}
}

// TestBundledScoutCoverage checks that each sandbox has scout examples for every build
// system, for autotools with and without a shipped configure, and a Go module in a
// subdirectory.
func TestBundledScoutCoverage(t *testing.T) {
	f := bundledFile(t, atesor.AgentScout)
	for _, sb := range []string{debian, alpine} {
		have := map[string]bool{}
		for _, e := range f.Examples {
			if e.Sandbox != sb {
				continue
			}
			kind := string(e.BuildSystem)
			if e.BuildSystem == atesor.BuildAutotools {
				kind += "/shipped-configure"
				for _, c := range exampleCommands(e) {
					if strings.Contains(c, "autoreconf") {
						kind = "autotools/autoreconf"
					}
				}
			}
			if e.BuildSystem == atesor.BuildGo && e.Trigger.ModuleDir != "" && e.Trigger.ModuleDir != "." {
				kind = "go/subdirectory"
			}
			have[kind] = true
		}
		for _, want := range []string{"cmake", "make", "autotools/shipped-configure", "autotools/autoreconf", "meson", "go", "go/subdirectory", "cargo"} {
			if !have[want] {
				t.Errorf("%s: no scout example for %s", sb, want)
			}
		}
	}
}

// fixerSamples are real error messages of each bundled fixer case. Each must match its
// example's error_pattern, and the example must be among the 2 a fixer prompt gets.
var fixerSamples = map[string]string{
	"fixer-000": "checking build system type... ./build-aux/config.guess: unable to guess system type",
	"fixer-001": "/usr/bin/ld: queue.c:(.text+0x4a): undefined reference to `__atomic_compare_exchange_16'",
	"fixer-002": "ring.c:(.text+0x88): undefined reference to `__atomic_load_16'",
	"fixer-003": "src/simd.c:3:10: fatal error: immintrin.h: No such file or directory",
	"fixer-004": "/tmp/ccXyZ.s:120: Error: unrecognized opcode `rdtsc'",
	"fixer-005": "gcc: error: unrecognized command-line option ‘-m64’",
	"fixer-006": "cc1: error: ‘-march=native’: ISA string must begin with rv32, rv64 or Profiles",
	"fixer-007": "src/tls.c:12:10: fatal error: openssl/ssl.h: No such file or directory",
	"fixer-008": "CMake Error at /usr/share/cmake-3.31/Modules/FindPackageHandleStandardArgs.cmake:233 (message):\n  Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)",
	"fixer-009": "error obtaining VCS status: exit status 128\n\tUse -buildvcs=false to disable VCS stamping.",
	"fixer-010": "# runtime/cgo\ncgo: C compiler \"gcc\" not found: exec: \"gcc\": executable file not found in $PATH",
	"fixer-011": "checking build system type... ./config.guess: unable to guess system type",
	"fixer-012": "lock.c:(.text+0x20): undefined reference to `__atomic_exchange_16'",
	"fixer-013": "src/hash.c:5:10: fatal error: emmintrin.h: No such file or directory",
	"fixer-014": "{standard input}: Assembler messages:\n{standard input}:88: Error: unrecognized opcode `pause'",
	"fixer-015": "gcc: error: unrecognized command-line option '-msse4.2'",
	"fixer-016": "cc1: error: '-march=native': ISA string must begin with rv32 or rv64",
	"fixer-017": "main.c:4:10: fatal error: zlib.h: No such file or directory",
	"fixer-018": "error obtaining VCS status: exit status 128",
	"fixer-019": "cgo: C compiler \"gcc\" not found: exec: \"gcc\": executable file not found in $PATH",
	"fixer-020": "src/tree.c:2:10: fatal error: sys/cdefs.h: No such file or directory",
	"fixer-021": "walk.c:9:10: fatal error: fts.h: No such file or directory",
	"fixer-022": "main.c:3:10: fatal error: argp.h: No such file or directory",
	"fixer-023": "src/fs.c:7:10: fatal error: linux/limits.h: No such file or directory",
}

// moreFixerSamples are further forms of the same errors: GCC's typographic quotes in a
// UTF-8 locale, the spelling of older compilers, and the config.sub message.
var moreFixerSamples = map[string][]string{
	"fixer-000": {
		"configure: error: cannot guess build type; you must specify one",
		"Invalid configuration `riscv64-unknown-linux-gnu': machine `riscv64-unknown' not recognized",
	},
	"fixer-001": {"/usr/bin/ld: libfoo.so: undefined reference to `__atomic_exchange_1'"},
	"fixer-004": {
		"src/cpu.c:40:5: error: unknown register name ‘%ebx’ in ‘asm’",
		"src/cpu.c:41:5: error: invalid ‘asm’: operand number out of range",
		"src/cpu.c:41:5: error: impossible constraint in 'asm'",
	},
	"fixer-005": {"gcc: error: unrecognized command line option '-m64'"},
	"fixer-011": {"Invalid configuration `riscv64-alpine-linux-musl': machine `riscv64-alpine' not recognized"},
	"fixer-014": {"{standard input}:12: Error: unrecognized opcode `pause', extension `zihintpause' required"},
	"fixer-015": {"cc: error: unrecognized command-line option ‘-mavx2’"},
}

func TestBundledFixerPatternsMatchRealErrors(t *testing.T) {
	f := bundledFile(t, atesor.AgentFixer)
	for _, e := range f.Examples {
		sample, ok := fixerSamples[e.ID]
		if !ok {
			t.Errorf("%s: no sample error in fixerSamples", e.ID)
			continue
		}
		for _, sample := range append([]string{sample}, moreFixerSamples[e.ID]...) {
			if !regexp.MustCompile("(?i)" + e.ErrorPattern).MatchString(sample) {
				t.Errorf("%s: error_pattern %q does not match %q", e.ID, e.ErrorPattern, sample)
			}
			got := memory.Rank(f.Examples, atesor.Query{Sandbox: e.Sandbox, BuildSystem: e.BuildSystem, ErrorMessage: sample}, 2)
			if !slices.Contains(ids(got), e.ID) {
				t.Errorf("%s: not among the 2 examples for %q; got %v", e.ID, sample, ids(got))
			}
		}
	}
	for id := range moreFixerSamples {
		if _, ok := fixerSamples[id]; !ok {
			t.Errorf("moreFixerSamples names %s, which has no example", id)
		}
	}
}

// TestBundledGoScoutRanking checks the Go scout examples against the queries the scout
// node builds from the detector, which reports a module at the root as module_dir ".":
// a root module gets the root example first, a module in a subdirectory the
// subdirectory example.
func TestBundledGoScoutRanking(t *testing.T) {
	f := bundledFile(t, atesor.AgentScout)
	tests := []struct {
		sandbox   string
		moduleDir string
		hasMain   bool
		want      string
	}{
		{debian, ".", true, "scout-005"},
		{debian, ".", false, "scout-005"},
		{debian, "api", false, "scout-006"},
		{debian, "sdk", false, "scout-006"},
		{alpine, ".", true, "scout-013"},
		{alpine, ".", false, "scout-013"},
		{alpine, "api", false, "scout-014"},
		{alpine, "client", false, "scout-014"},
	}
	for _, tc := range tests {
		q := atesor.Query{Sandbox: tc.sandbox, BuildSystem: atesor.BuildGo, HasMain: ptr(tc.hasMain), ModuleDir: tc.moduleDir}
		got := ids(memory.Rank(f.Examples, q, 2))
		if len(got) == 0 || got[0] != tc.want {
			t.Errorf("%s, module_dir %q, has_main %t: got %v, want %s first", tc.sandbox, tc.moduleDir, tc.hasMain, got, tc.want)
		}
	}
}

// alpinePackages are the Alpine (aports) package names the bundled alpine-riscv64
// examples may install. No Alpine index is reachable from the tests, so each name here
// was checked by hand against aports; a new name must be checked and added, and Debian
// names (build-essential, zlib1g-dev, libssl-dev, ...) fail.
var alpinePackages = map[string]bool{
	"argp-standalone": true, "autoconf": true, "automake": true, "bsd-compat-headers": true,
	"build-base": true, "cargo": true, "cmake": true, "git": true, "go": true, "libpsl-dev": true,
	"libtool": true, "linux-headers": true, "meson": true, "musl-fts-dev": true, "openssl-dev": true,
	"pkgconf": true, "samurai": true, "zlib-dev": true,
}

func TestBundledAlpinePackageNames(t *testing.T) {
	n := 0
	for _, agent := range atesor.Agents() {
		for _, e := range bundledFile(t, agent).Examples {
			if e.Sandbox != alpine {
				continue
			}
			for _, c := range exampleCommands(e) {
				for _, p := range installedPackages(c, "apk") {
					n++
					if !alpinePackages[p] {
						t.Errorf("%s: apk package %q is not a checked Alpine package name", e.ID, p)
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no apk packages found in the bundled Alpine examples")
	}
}

func TestBundledSupervisorFileIsLegacy(t *testing.T) {
	b, err := fs.ReadFile(memory.Bundled(), "supervisor_examples.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Version  string              `json:"version"`
		Examples []map[string]string `json:"examples"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if f.Version != "1.0" || len(f.Examples) == 0 {
		t.Fatalf("version %q with %d examples", f.Version, len(f.Examples))
	}
	for i, e := range f.Examples {
		if len(e) != 2 || e["context"] == "" || e["expected_output"] == "" {
			t.Errorf("example %d: want exactly context and expected_output, got %v", i, e)
		}
	}
	if _, err := fs.Stat(memory.Bundled(), "README.md"); err != nil {
		t.Error("README.md is not bundled")
	}
}

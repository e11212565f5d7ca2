package graph

import (
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/recipe"
	"github.com/eclipse-atesor/atesor-go/repair"
)

func failedBuild(msg string) atesor.ErrorRecord {
	return atesor.ErrorRecord{Node: NodeBuild, Command: "make", Message: msg}
}

func TestSupervisorRouting(t *testing.T) {
	plan := &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: []string{"make"}}}}
	tests := []struct {
		name      string
		offline   bool
		state     func() *atesor.State
		want      string
		wantClass atesor.FailureClass
		attempts  int
	}{
		{"fresh run starts at init", false, func() *atesor.State {
			return &atesor.State{}
		}, NodeInit, "", 0},
		{"init failure escalates", false, func() *atesor.State {
			return &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeInit, FailureClass: atesor.FailureSetup},
			}
		}, NodeEscalate, atesor.FailureSetup, 0},
		{"init goes to analyst", false, func() *atesor.State {
			return &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeInit},
			}
		}, NodeAnalyst, "", 0},
		{"a cached recipe rebuilds after init", false, func() *atesor.State {
			return &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeInit},
				PlanPart:  atesor.PlanPart{Plan: plan, PlanSource: planFromCache},
			}
		}, NodeBuild, "", 0},
		{"finish ends a run without performance mode", false, func() *atesor.State {
			return &atesor.State{
				RoutePart:  atesor.RoutePart{LastNode: NodeFinish},
				VerifyPart: atesor.VerifyPart{Verified: true},
			}
		}, nodeEnd, "", 0},
		{"finish goes to optimize in performance mode", false, func() *atesor.State {
			return &atesor.State{
				RunPart:    atesor.RunPart{Request: atesor.Request{Optimize: true}},
				RoutePart:  atesor.RoutePart{LastNode: NodeFinish},
				VerifyPart: atesor.VerifyPart{Verified: true},
			}
		}, NodeOptimize, "", 0},
		{"an unverified port is not measured", false, func() *atesor.State {
			return &atesor.State{
				RunPart:   atesor.RunPart{Request: atesor.Request{Optimize: true}},
				RoutePart: atesor.RoutePart{LastNode: NodeFinish},
			}
		}, nodeEnd, "", 0},
		{"optimize ends the run", false, func() *atesor.State {
			return &atesor.State{
				RunPart:    atesor.RunPart{Request: atesor.Request{Optimize: true}},
				RoutePart:  atesor.RoutePart{LastNode: NodeOptimize},
				VerifyPart: atesor.VerifyPart{Verified: true},
			}
		}, nodeEnd, "", 0},
		{"heuristic plan builds", false, func() *atesor.State {
			return &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeHeuristicPlan},
				PlanPart:  atesor.PlanPart{Plan: plan},
			}
		}, NodeBuild, "", 0},
		{"no heuristic plan scouts", false, func() *atesor.State {
			return &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeHeuristicPlan},
			}
		}, NodeScout, "", 0},
		{"built goes to verify", false, func() *atesor.State {
			return &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeBuild},
				BuildPart: atesor.BuildPart{BuildSucceeded: true},
			}
		}, NodeVerify, "", 0},
		{"verified goes to finish even over budget", false, func() *atesor.State {
			return &atesor.State{
				RoutePart:  atesor.RoutePart{LastNode: NodeVerify},
				VerifyPart: atesor.VerifyPart{Verified: true},
				UsagePart:  atesor.UsagePart{Usage: atesor.Usage{CostUSD: 5}},
			}
		}, NodeFinish, "", 0},
		{"failed build goes to fix", false, func() *atesor.State {
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeBuild},
			}
			s.Record(failedBuild("foo.c:1:1: error: expected ';'"))
			return s
		}, NodeFix, "", 1},
		{"failed verify goes to fix", false, func() *atesor.State {
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeVerify},
				BuildPart: atesor.BuildPart{BuildSucceeded: true},
			}
			s.Record(atesor.ErrorRecord{Node: NodeVerify, Message: "verification failed: x"})
			return s
		}, NodeFix, "", 1},
		{"offline failed build escalates as build", true, func() *atesor.State {
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeBuild},
			}
			s.Record(failedBuild("foo.c:1:1: error: expected ';'"))
			return s
		}, NodeEscalate, atesor.FailureBuild, 1},
		{"offline failed verify escalates as verify", true, func() *atesor.State {
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeVerify},
				BuildPart: atesor.BuildPart{BuildSucceeded: true},
			}
			s.Record(atesor.ErrorRecord{Node: NodeVerify, Message: "verification failed: x"})
			return s
		}, NodeEscalate, atesor.FailureVerify, 1},
		{"offline untested header-only library goes to the scripted fix", true, func() *atesor.State {
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeVerify},
				BuildPart: atesor.BuildPart{BuildSucceeded: true},
			}
			s.Record(atesor.ErrorRecord{Node: NodeVerify, Category: atesor.CategoryArchitecture,
				Message: "verification failed: " + atesor.ProblemHeaderOnlyUntested + " (the install step staged 2 headers and no program or library)"})
			return s
		}, NodeFix, "", 1},
		{"offline header-only rule answers once", true, func() *atesor.State {
			msg := "verification failed: " + atesor.ProblemHeaderOnlyUntested + " (the install step staged 2 headers)"
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeVerify},
				BuildPart: atesor.BuildPart{BuildSucceeded: true},
				FixPart:   atesor.FixPart{FixAttempts: []atesor.FixAttempt{{Source: atesor.FixSourceScripted, Rule: "header-only-tests", Error: msg}}},
			}
			s.Record(atesor.ErrorRecord{Node: NodeVerify, Category: atesor.CategoryArchitecture, Message: msg})
			return s
		}, NodeEscalate, atesor.FailureVerify, 1},
		{"offline hollow port is not repaired by a rule", true, func() *atesor.State {
			s := &atesor.State{
				RunPart:   atesor.RunPart{Request: atesor.Request{Origin: &atesor.DistroSource{Distro: "debian", Package: "zlib", Version: "1.3"}}},
				RoutePart: atesor.RoutePart{LastNode: NodeVerify},
				BuildPart: atesor.BuildPart{BuildSucceeded: true},
			}
			s.Platform = atesor.Platform{Name: "debian", PackageManager: "apt-get"}
			s.Record(atesor.ErrorRecord{Node: NodeVerify, Category: atesor.CategoryArchitecture,
				Message: "verification failed: exports incomplete: the primary libraries (libz.so) do not define 2 functions the package promises, whose code fixes took away: a, b"})
			return s
		}, NodeEscalate, atesor.FailureVerify, 1},
		{"attempt limit", false, func() *atesor.State {
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeBuild, Attempts: 4},
			}
			s.Record(failedBuild("foo.c:1:1: error: expected ';'"))
			return s
		}, NodeEscalate, atesor.FailureBudget, 5},
		{"cost just below the limit goes on", false, func() *atesor.State {
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeBuild},
				UsagePart: atesor.UsagePart{Usage: atesor.Usage{CostUSD: 1.00}},
			}
			s.Record(failedBuild("foo.c:1:1: error: expected ';'"))
			return s
		}, NodeFix, "", 1},
		{"cost just above the limit escalates", false, func() *atesor.State {
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeBuild},
				UsagePart: atesor.UsagePart{Usage: atesor.Usage{CostUSD: 1.0001}},
			}
			s.Record(failedBuild("foo.c:1:1: error: expected ';'"))
			return s
		}, NodeEscalate, atesor.FailureBudget, 1},
		{"cost over the limit after a fix escalates", false, func() *atesor.State {
			return &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeFix},
				UsagePart: atesor.UsagePart{Usage: atesor.Usage{CostUSD: 1.5}},
			}
		}, NodeEscalate, atesor.FailureBudget, 0},
		{"valid fix rebuilds", false, func() *atesor.State {
			return &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeFix},
			}
		}, NodeBuild, "", 0},
		{"invalid fix counts and retries the fixer", false, func() *atesor.State {
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeFix},
				FixPart:   atesor.FixPart{FixInvalid: true},
			}
			s.Record(failedBuild("foo.c:1:1: error: expected ';'"))
			return s
		}, NodeFix, "", 1},
		{"error loop escalates", false, func() *atesor.State {
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeBuild, Attempts: 2},
			}
			s.Record(failedBuild("a.c:1:1: error: x"))
			s.Record(failedBuild("b.c:2:1: error: y"))
			s.Record(failedBuild("c.c:3:1: error: z"))
			return s
		}, NodeEscalate, atesor.FailureEscalated, 3},
		{"distinct errors each repaired by a scripted rule go on", false, func() *atesor.State {
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeBuild, Attempts: 2},
			}
			s.Record(failedBuild("a.c:1:1: error: x"))
			s.Record(failedBuild("b.c:2:1: error: y"))
			s.Record(failedBuild("c.c:3:1: error: z"))
			s.FixAttempts = []atesor.FixAttempt{{Attempt: 1, Error: "a.c:1:1: error: x", Source: atesor.FixSourceScripted, Rule: "r1"},
				{Attempt: 2, Error: "b.c:2:1: error: y", Source: atesor.FixSourceScripted, Rule: "r2"}}
			return s
		}, NodeFix, "", 3},
		{"the same error again after scripted fixes is a loop", false, func() *atesor.State {
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeBuild, Attempts: 2},
			}
			s.Record(failedBuild("a.c:1:1: error: x"))
			s.Record(failedBuild("b.c:2:1: error: y"))
			s.Record(failedBuild("a.c:9:1: error: x"))
			s.FixAttempts = []atesor.FixAttempt{{Attempt: 1, Error: "a.c:1:1: error: x", Source: atesor.FixSourceScripted, Rule: "r1"},
				{Attempt: 2, Error: "b.c:2:1: error: y", Source: atesor.FixSourceScripted, Rule: "r2"}}
			return s
		}, NodeEscalate, atesor.FailureEscalated, 3},
		{"the same error again while a scripted rule not yet tried on it claims it goes on", false, func() *atesor.State {
			// gengetopt's run: automake-missing-doc answers the texinfo error,
			// distribution-configure the html one, which comes back; distribution-patches
			// has not answered it yet.
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeBuild, Attempts: 2},
				RunPart: atesor.RunPart{Request: atesor.Request{Source: "/tmp/gengetopt_2.23+dfsg1.orig.tar.xz",
					Origin: &atesor.DistroSource{Distro: "debian", Package: "gengetopt", Version: "2.23+dfsg1-1"}}},
			}
			s.Platform = atesor.Platform{Name: "debian", PackageManager: "apt-get"}
			texi := "make[3]: *** No rule to make target 'gengetopt.texi', needed by 'gengetopt.info'.  Stop."
			html := "make[3]: *** No rule to make target 'gengetopt.html', needed by 'all-am'.  Stop."
			for _, m := range []string{texi, html, html} {
				r := failedBuild(m)
				r.Category = atesor.CategoryConfiguration
				s.Record(r)
			}
			s.FixAttempts = []atesor.FixAttempt{{Attempt: 1, Error: texi, Source: atesor.FixSourceScripted, Rule: "automake-missing-doc"},
				{Attempt: 2, Error: html, Source: atesor.FixSourceScripted, Rule: "distribution-configure"}}
			return s
		}, NodeFix, "", 3},
		{"a model's fix among them is a loop", false, func() *atesor.State {
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeBuild, Attempts: 2},
			}
			s.Record(failedBuild("a.c:1:1: error: x"))
			s.Record(failedBuild("b.c:2:1: error: y"))
			s.Record(failedBuild("c.c:3:1: error: z"))
			s.FixAttempts = []atesor.FixAttempt{{Attempt: 1, Error: "a.c:1:1: error: x", Source: atesor.FixSourceScripted, Rule: "r1"},
				{Attempt: 2, Error: "b.c:2:1: error: y", Source: atesor.FixSourceModel}}
			return s
		}, NodeEscalate, atesor.FailureEscalated, 3},
		{"unrecoverable category escalates", false, func() *atesor.State {
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeBuild},
			}
			s.Record(failedBuild("write error: No space left on device"))
			return s
		}, NodeEscalate, atesor.FailureEscalated, 1},
		{"a pure-Perl distribution is refused at once", false, func() *atesor.State {
			s := &atesor.State{RoutePart: atesor.RoutePart{LastNode: NodeVerify}, DetectionPart: atesor.DetectionPart{
				Detection: &atesor.Detection{BuildSystem: atesor.BuildPerl, Language: "Perl"}}}
			s.Record(atesor.ErrorRecord{Node: NodeVerify, Message: "verification failed: " + atesor.ProblemPerlOnly + " (3 Perl modules, no XS shared object, program or library): x",
				Category: atesor.CategoryArchitecture})
			return s
		}, NodeEscalate, atesor.FailureVerify, 1},
		{"an XS distribution that staged only Perl goes to the fixer", false, func() *atesor.State {
			s := &atesor.State{RoutePart: atesor.RoutePart{LastNode: NodeVerify}, DetectionPart: atesor.DetectionPart{
				Detection: &atesor.Detection{BuildSystem: atesor.BuildPerl, Language: "C"}}}
			s.Record(atesor.ErrorRecord{Node: NodeVerify, Message: "verification failed: " + atesor.ProblemPerlOnly + " (3 Perl modules, no XS shared object, program or library): x",
				Category: atesor.CategoryArchitecture})
			return s
		}, NodeFix, "", 1},
		{"emulator fault is infra", false, func() *atesor.State {
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeBuild},
			}
			s.Record(atesor.ErrorRecord{Node: NodeBuild, Message: emulatorFaultPrefix + "qemu crashed", Category: atesor.CategoryUnknown})
			return s
		}, NodeEscalate, atesor.FailureInfra, 1},
		{"re-plan signature re-scouts", false, func() *atesor.State {
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeBuild},
			}
			s.Record(failedBuild("E: Unable to locate package libfoo-dev"))
			return s
		}, NodeScout, "", 1},
		{"re-plan signature only once", false, func() *atesor.State {
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeBuild, ReplanSignatures: []string{"unable to locate package"}},
			}
			s.Record(failedBuild("E: Unable to locate package libfoo-dev"))
			return s
		}, NodeFix, "", 1},
		{"offline, a framework's failed configure-time download (network) goes to the scripted rules", true, func() *atesor.State {
			s := &atesor.State{RoutePart: atesor.RoutePart{LastNode: NodeBuild}}
			// cli11 2.4.1's error record as the offline port recorded it.
			s.Record(atesor.ErrorRecord{Node: NodeBuild, Phase: "build", Command: "cmake -S . -B build", Category: atesor.CategoryNetwork,
				Message: "CMake Error: file DOWNLOAD cannot compute hash on failed download status: [6;\"Could not resolve hostname\"]\n" +
					"CMake Error at tests/CMakeLists.txt:91 (file):\n--- last lines of the failing command ---\n" +
					"CMake Error at tests/CMakeLists.txt:97 (message):\n  Could not download\n  and Catch2 not found on your system.\n"})
			return s
		}, NodeFix, "", 1},
		{"offline, a FetchContent population's failed download (network) goes to the scripted rules", true, func() *atesor.State {
			s := &atesor.State{RoutePart: atesor.RoutePart{LastNode: NodeBuild}}
			// libsimpleini 4.22's error record as the offline port recorded it, shortened.
			s.Record(atesor.ErrorRecord{Node: NodeBuild, Phase: "build", Command: "cmake -S . -B build", Category: atesor.CategoryNetwork,
				Message: "CMake Error: Each download failed! error: downloading 'https://example.invalid/v1.14.0.zip' failed status_code: 6\n" +
					"--- last lines of the failing command ---\nCMake Error at /usr/share/cmake-3.31/Modules/FetchContent.cmake:1918 (message):\n" +
					"  Build step for googletest failed: 2\nCall Stack (most recent call first):\n  tests/CMakeLists.txt:10 (FetchContent_MakeAvailable)\n"})
			return s
		}, NodeFix, "", 1},
		{"two failed fixes of one error re-scout once", false, func() *atesor.State {
			s := &atesor.State{
				RoutePart: atesor.RoutePart{LastNode: NodeBuild},
				FixPart: atesor.FixPart{FixAttempts: []atesor.FixAttempt{
					{Error: "x.c:10:2: error: foo"}, {Error: "x.c:12:2: error: foo"}}},
			}
			s.Record(atesor.ErrorRecord{Node: NodeBuild, Message: "x.c:14:2: error: foo", Category: atesor.CategoryCompilation})
			return s
		}, NodeScout, "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.state()
			got := supervisor{offline: tt.offline}.next(s)
			if got != tt.want {
				t.Fatalf("next = %s, want %s (reason %q)", got, tt.want, s.EscalationReason)
			}
			if s.FailureClass != tt.wantClass {
				t.Errorf("failure class = %q, want %q (%s)", s.FailureClass, tt.wantClass, s.EscalationReason)
			}
			if s.Attempts != tt.attempts {
				t.Errorf("attempts = %d, want %d", s.Attempts, tt.attempts)
			}
		})
	}
}

func TestRecipeSections(t *testing.T) {
	s := &atesor.State{
		RunPart:    atesor.RunPart{RepoName: "zlib", RepoDir: "/workspace/zlib", Platform: atesor.Platform{Name: "debian", Profile: "debian", DisplayName: "Debian", FloatABI: "lp64d"}},
		BuildPart:  atesor.BuildPart{ExecutedCommands: []string{"./configure", "make -j$(nproc)"}},
		VerifyPart: atesor.VerifyPart{Verified: true},
	}
	md := recipe.AppendCommands(fallbackRecipe(s), s)
	if !recipe.HasSections(md) {
		t.Fatalf("fallback recipe lacks a section:\n%s", md)
	}
	cmds, err := recipe.Commands(md)
	if err != nil || len(cmds) != 2 || cmds[1] != "make -j$(nproc)" {
		t.Fatalf("RecipeCommands = %q, %v", cmds, err)
	}
	swapped := "## Prerequisites\n## Executive Summary\n## Build Instructions\n## Architecture Notes\n## Verification\n## Known Issues & Recommendations\n"
	if recipe.HasSections(swapped) {
		t.Error("sections out of order were accepted")
	}
	s.Verified = false
	if md := fallbackRecipe(s); !strings.Contains(md, "NOT VERIFIED") {
		t.Error("an unverified recipe is not marked NOT VERIFIED")
	}
}

// TestFailureOfVerify: a failed verification reaches the rules as repair.PhaseVerify
// with its problems and without the last build command's output, which belongs to an
// earlier, successful command; a failed build keeps its phase, command and output.
func TestFailureOfVerify(t *testing.T) {
	tests := []struct {
		name                string
		rec                 atesor.ErrorRecord
		phase, command, out string
	}{
		{"verify", atesor.ErrorRecord{Node: NodeVerify, Message: "verification failed: x", Phase: "build", Command: "make"}, repair.PhaseVerify, "", ""},
		{"build", atesor.ErrorRecord{Node: NodeBuild, Message: "x.c:1: error", Phase: "build", Command: "make"}, "build", "make", "the log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := failureOf(&atesor.State{}, &tt.rec, "the log")
			if f.Phase != tt.phase || f.Command != tt.command || f.Output != tt.out || f.Message != tt.rec.Message {
				t.Errorf("failure %+v, want phase %q command %q output %q", f, tt.phase, tt.command, tt.out)
			}
		})
	}
}

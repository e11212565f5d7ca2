package repair

import (
	"context"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/buildlog"
	"github.com/google/go-cmp/cmp"
)

func TestNamedFiles(t *testing.T) {
	tests := []struct {
		msg  string
		want []string
	}{
		{"XADString.m:5:9: fatal error: '../UniversalDetector/UniversalDetector.h' file not found",
			[]string{"XADString.m", "../UniversalDetector/UniversalDetector.h"}},
		{"wvstreams/utils/wvcont.cc:12:5: error: 'function' in namespace 'std::tr1' does not name a template type",
			[]string{"wvstreams/utils/wvcont.cc"}},
		{"/workspace/x/src/a.c:3:1: error: x\n/usr/include/stdio.h:10: note: y\n/tmp/cc123.s: Assembler messages",
			[]string{"/workspace/x/src/a.c"}},
		{"In file included from src/a.h:2,\n                 from src/a.c:1:\nsrc/b.h:7: error", []string{"src/a.h", "src/a.c", "src/b.h"}},
		{"a.c b.c a.c", []string{"a.c", "b.c"}},
		{"CMake Error at CMakeLists.txt:12 (add_subdirectory):", []string{"CMakeLists.txt"}},
		{"make: *** [Makefile:610: all] Error 2", nil},
		{"version 1.2.3 of libfoo.so.1 and v2.0", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, namedFiles(tt.msg)); diff != "" {
			t.Errorf("namedFiles(%q) (-want +got):\n%s", tt.msg, diff)
		}
	}
}

func FuzzNamedFiles(f *testing.F) {
	f.Add("src/a.c:3:1: error: '../x/y.h' file not found")
	f.Add("In file included from /workspace/p/a.hpp:2,")
	f.Fuzz(func(t *testing.T, msg string) {
		for _, n := range namedFiles(msg) {
			if !strings.Contains(msg, n) || strings.HasPrefix(n, "/usr/") || !sourceFileName.MatchString(n) {
				t.Fatalf("named %q of %q", n, msg)
			}
		}
	})
}

func TestNamesFile(t *testing.T) {
	tests := []struct {
		named []string
		file  string
		want  string
	}{
		{[]string{"XADString.m", "../UniversalDetector/UniversalDetector.h"}, "UniversalDetector/UniversalDetector.h", "../UniversalDetector/UniversalDetector.h"},
		{[]string{"wvcont.cc"}, "utils/wvcont.cc", "wvcont.cc"},
		{[]string{"/workspace/x/src/a.c"}, "src/a.c", "/workspace/x/src/a.c"},
		{[]string{"./src/a.c"}, "src/a.c", "./src/a.c"},
		{[]string{"b.c"}, "src/ab.c", ""},               // a suffix, not a file name
		{[]string{"src/a.c"}, "lib/src/a.c", "src/a.c"}, // printed from lib/
		{[]string{"../.."}, "a.c", ""},
		{nil, "a.c", ""},
	}
	for _, tt := range tests {
		i, ok := namesFile(tt.named, tt.file)
		got := ""
		if ok {
			got = tt.named[i]
		}
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("namesFile(%q, %q) = %q, %v, want %q", tt.named, tt.file, got, ok, tt.want)
		}
	}
}

func TestDistributionPatchedFileRule(t *testing.T) {
	// Debian's unar carries a patch for the directory its +ds repack strips; the error
	// is in a file it changes.
	patched := &Distribution{Package: "unar", Version: "1.10.8+ds1-9", Patches: []DistributionPatch{
		{Name: "0001-use-system-uchardet.patch", Level: 1, Diff: "--- a/XADMaster/XADString.m\n+++ b/XADMaster/XADString.m\n" +
			"@@ -1,2 +1,2 @@\n #import \"XADString.h\"\n-#import \"../UniversalDetector/UniversalDetector.h\"\n+#import <uchardet/uchardet.h>\n"},
	}}
	missing := "XADString.m:5:9: fatal error: '../UniversalDetector/UniversalDetector.h' file not found"
	elsewhere := "XADArchive.m:7:1: error: unknown type name 'XADHandle'"
	plan := defaultPlan("make -C XADMaster -j$(nproc)")
	tests := []struct {
		name  string
		msg   string
		fixes []atesor.FixAttempt
		none  string
	}{
		{name: "the error is in the patched file", msg: missing},
		{name: "no patch changes the file", msg: elsewhere, none: "no patch of Debian's unar 1.10.8+ds1-9 series changes XADArchive.m"},
		{name: "the error names no file", msg: "make: *** [all] Error 2", none: "names no source file"},
		{name: "the late rule applied the series", msg: missing, fixes: []atesor.FixAttempt{{Source: atesor.FixSourceScripted, Rule: distPatchesRuleName}},
			none: "already applied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Failure{Category: atesor.CategoryCompilation, Message: tt.msg, Output: "make -C XADMaster\n" + tt.msg + "\n", Phase: "build", Packaged: true}
			env := Env{Platform: debian(t), Plan: plan, Distribution: distOf(patched), Fixes: tt.fixes}
			fix, why := distributionPatchedFileRule().Make(context.Background(), f, env)
			if !wantFix(t, fix, why, tt.none) {
				return
			}
			if len(fix.Actions) != 1 || fix.Actions[0].File != "XADMaster/XADString.m" ||
				!strings.Contains(fix.Analysis, "XADString.m, which Debian's patch 0001-use-system-uchardet.patch changes (as XADMaster/XADString.m)") {
				t.Errorf("fix %+v", fix)
			}
			// The late rule does not apply the series again.
			env.Fixes = []atesor.FixAttempt{{Source: atesor.FixSourceScripted, Rule: distPatchedFileRuleName}}
			if again, why := makeDistributionPatches(context.Background(), f, env); again != nil || !strings.Contains(why, "already applied") {
				t.Errorf("distribution-patches after it: %+v (%s)", again, why)
			}
		})
	}
	// Through Propose, it comes before the rules that guess.
	f := Failure{Category: atesor.CategoryCompilation, Message: missing, Output: missing, Phase: "build", Packaged: true}
	env := Env{Platform: debian(t), Plan: plan, Distribution: distOf(patched)}
	if fix, notes := Propose(context.Background(), f, env, nil); fix == nil || fix.Rule != distPatchedFileRuleName {
		t.Fatalf("Propose = %+v, notes %v", fix, notes)
	}
}

// TestDistributionPatchedFileNvidiaTextureTools: the eleventh held-back round's
// nvidia-texture-tools stopped at posh.h's CPU detection, which Debian's
// 11-arm64-support.patch changes; the rule applied the series at the first failure,
// where distribution-patches would have waited for every guessing rule. (The series
// adds arm64, not riscv64: the error stays, and the port escalates with it.)
func TestDistributionPatchedFileNvidiaTextureTools(t *testing.T) {
	out := readLog(t, "distpatches/nvidia-texture-tools.log")
	ev := buildlog.Extract(out)
	f := Failure{Category: ev.Category(), Message: ev.Text, Output: out, Phase: "build", Packaged: true}
	d := &Distribution{Package: "nvidia-texture-tools", Version: "2.0.8-1+dfsg-8.2", Patches: []DistributionPatch{
		{Name: "01-library-versioning.patch", Level: 1, Diff: readPatch(t, "nvidia-texture-tools-01-library-versioning.patch")},
		{Name: "11-arm64-support.patch", Level: 1, Diff: readPatch(t, "nvidia-texture-tools-11-arm64-support.patch")},
	}}
	env := Env{Platform: debian(t), Plan: defaultPlan("cmake -S . -B build && cmake --build build -j$(nproc)"), Distribution: distOf(d)}
	fix, notes := Propose(context.Background(), f, env, nil)
	if fix == nil || fix.Rule != distPatchedFileRuleName {
		t.Fatalf("Propose = %+v, notes %v", fix, notes)
	}
	if !strings.Contains(fix.Analysis, "posh.h, which Debian's patch 11-arm64-support.patch changes (as src/nvcore/poshlib/posh.h)") ||
		fix.Strategy != "apply Debian's patches 01-library-versioning.patch 11-arm64-support.patch" {
		t.Errorf("analysis %q, strategy %q", fix.Analysis, fix.Strategy)
	}
	if err := check(fix, "/workspace/nvidia-texture-tools"); err != nil {
		t.Errorf("the fix fails validation: %v", err)
	}
	// Without the patch that changes posh.h, the rule leaves the failure to the others.
	d.Patches = d.Patches[:1]
	if fix, why := distributionPatchedFileRule().Make(context.Background(), f, env); fix != nil || !strings.Contains(why, "changes") {
		t.Errorf("without 11-arm64-support.patch: %+v (%s)", fix, why)
	}
}

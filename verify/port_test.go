package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// planted plants fixture at the sandbox path p and returns it inspected, with role.
func planted(t *testing.T, sb *sandboxtest.Sandbox, p string, f sandboxtest.Fixture, role atesor.ArtifactRole) atesor.Artifact {
	t.Helper()
	if err := sb.Plant(p, f); err != nil {
		t.Fatal(err)
	}
	data, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	a, err := InspectELF(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	a.Path, a.Role = p, role
	return a
}

func portSandbox(t *testing.T) (*sandboxtest.Sandbox, Input) {
	sb := sandboxtest.New(t, debianPlatform())
	sb.SetRepo("pkg")
	return sb, Input{RepoDir: "/workspace/pkg", RepoName: "pkg", Platform: debianPlatform()}
}

// TestPortVerifiesAProgram: one riscv64 program that starts is a proven port; it is
// started once, and the export check ran and found no library to check.
func TestPortVerifiesAProgram(t *testing.T) {
	sb, in := portSandbox(t)
	arts := []atesor.Artifact{planted(t, sb, "/workspace/pkg/pkg", sandboxtest.RISCV64Executable, atesor.ArtifactPrimary)}
	var events []atesor.Event
	res := Port(context.Background(), sb, in, arts, func(e atesor.Event) { events = append(events, e) })
	if !res.Verified || len(res.Problems) != 0 || res.Primaries != 1 {
		t.Fatalf("result %+v", res)
	}
	if !res.ExportsChecked || res.Exports != nil || len(events) != 0 {
		t.Errorf("exports checked %v: %+v; events %+v", res.ExportsChecked, res.Exports, events)
	}
	if lines := sb.Lines(); len(lines) != 1 || lines[0] != "'/workspace/pkg/pkg'" {
		t.Errorf("commands %q, want the one smoke run", lines)
	}
}

// TestPortRefusesWrongArtifacts: a primary x86-64 program, or one for another loader,
// fails with its problem set on the artifact (not on the caller's slice); nothing is
// started and the export check does not run.
func TestPortRefusesWrongArtifacts(t *testing.T) {
	sb, in := portSandbox(t)
	arts := []atesor.Artifact{
		planted(t, sb, "/workspace/pkg/pkg", sandboxtest.RISCV64Executable, atesor.ArtifactPrimary),
		planted(t, sb, "/workspace/pkg/tools/x86", sandboxtest.X86_64Executable, atesor.ArtifactPrimary),
	}
	res := Port(context.Background(), sb, in, arts, func(atesor.Event) {})
	if res.Verified || len(res.Problems) != 1 || !strings.HasPrefix(res.Problems[0], "tools/x86: not riscv64") {
		t.Fatalf("problems %q", res.Problems)
	}
	if res.ExportsChecked || len(sb.Lines()) != 0 {
		t.Errorf("exports checked %v, commands %q", res.ExportsChecked, sb.Lines())
	}
	// A riscv64 program for another loader: the problem is set on the result's copy.
	musl := arts[0]
	musl.Interpreter = "/lib/ld-musl-riscv64.so.1"
	in2 := []atesor.Artifact{musl}
	res = Port(context.Background(), sb, in, in2, func(atesor.Event) {})
	if res.Verified || !strings.Contains(res.Artifacts[0].Problem, "program interpreter /lib/ld-musl-riscv64.so.1") || in2[0].Problem != "" {
		t.Errorf("problem on the result %q, on the input %q", res.Artifacts[0].Problem, in2[0].Problem)
	}
}

// TestPortProblems: no primary artifact, a stub, a program the emulator kills, and a
// missing expected artifact (reported, not a problem).
func TestPortProblems(t *testing.T) {
	t.Run("no primary", func(t *testing.T) {
		sb, in := portSandbox(t)
		arts := []atesor.Artifact{planted(t, sb, "/workspace/pkg/tests/t", sandboxtest.RISCV64Executable, atesor.ArtifactSecondary)}
		res := Port(context.Background(), sb, in, arts, func(atesor.Event) {})
		if res.Verified || len(res.Problems) != 1 || !strings.HasPrefix(res.Problems[0], "no primary artifact") {
			t.Errorf("problems %q", res.Problems)
		}
	})
	t.Run("stub", func(t *testing.T) {
		sb, in := portSandbox(t)
		in.StubFiles = []string{"src/main.c"}
		arts := []atesor.Artifact{planted(t, sb, "/workspace/pkg/pkg", sandboxtest.RISCV64Executable, atesor.ArtifactPrimary)}
		res := Port(context.Background(), sb, in, arts, func(atesor.Event) {})
		if res.Verified || len(res.Problems) != 1 || !strings.HasPrefix(res.Problems[0], "src/main.c: a fix wrote a stub") || len(sb.Lines()) != 0 {
			t.Errorf("problems %q, commands %q", res.Problems, sb.Lines())
		}
	})
	t.Run("smoke", func(t *testing.T) {
		sb, in := portSandbox(t)
		in.Analysis = &atesor.PackageAnalysis{ExpectedArtifacts: []string{"pkg", "libpkg.so"}}
		sb.On(`^'/workspace/pkg/pkg'$`, atesor.CommandResult{ExitCode: 132, Signal: "SIGILL"})
		arts := []atesor.Artifact{planted(t, sb, "/workspace/pkg/pkg", sandboxtest.RISCV64Executable, atesor.ArtifactPrimary)}
		res := Port(context.Background(), sb, in, arts, func(atesor.Event) {})
		if res.Verified || len(res.Problems) != 1 || res.Problems[0] != "pkg: smoke run failed: killed by SIGILL" || res.ExportsChecked {
			t.Errorf("problems %q, exports checked %v", res.Problems, res.ExportsChecked)
		}
		if len(res.MissingArtifacts) != 1 || res.MissingArtifacts[0] != "libpkg.so" {
			t.Errorf("missing %q", res.MissingArtifacts)
		}
	})
}

// TestPortSmokeCrashWithoutArguments: a program killed by SIGSEGV or SIGBUS when started
// with no arguments (it reads argv[1] unchecked) is started again with --help, and passes
// when that run loads and ends; one that crashes with --help too fails with both runs
// named, and SIGILL is never run again.
func TestPortSmokeCrashWithoutArguments(t *testing.T) {
	tests := []struct {
		name        string
		bare, help  atesor.CommandResult
		wantProblem string
		wantRuns    int
	}{
		{"argv[1] unchecked: usage with --help", atesor.CommandResult{ExitCode: 139, Signal: "SIGSEGV"},
			atesor.CommandResult{ExitCode: 1, Output: "Usage: pkg FILE"}, "", 2},
		{"an uncaught exception with --help still ran", atesor.CommandResult{ExitCode: 135, Signal: "SIGBUS"},
			atesor.CommandResult{ExitCode: 134, Signal: "SIGABRT"}, "", 2},
		{"crashes whatever it is given", atesor.CommandResult{ExitCode: 139, Signal: "SIGSEGV"},
			atesor.CommandResult{ExitCode: 139, Signal: "SIGSEGV"}, "pkg: smoke run failed: killed by SIGSEGV (and with --help: killed by SIGSEGV)", 2},
		{"an instruction the CPU lacks", atesor.CommandResult{ExitCode: 132, Signal: "SIGILL"},
			atesor.CommandResult{}, "pkg: smoke run failed: killed by SIGILL", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb, in := portSandbox(t)
			sb.On(`^'/workspace/pkg/pkg'$`, tt.bare)
			sb.On(`^'/workspace/pkg/pkg' --help$`, tt.help)
			arts := []atesor.Artifact{planted(t, sb, "/workspace/pkg/pkg", sandboxtest.RISCV64Executable, atesor.ArtifactPrimary)}
			res := Port(context.Background(), sb, in, arts, func(atesor.Event) {})
			var got string
			if len(res.Problems) > 0 {
				got = res.Problems[0]
			}
			if got != tt.wantProblem || res.Verified != (tt.wantProblem == "") {
				t.Errorf("verified %v, problems %q, want %q", res.Verified, res.Problems, tt.wantProblem)
			}
			if n := len(sb.Lines()); n != tt.wantRuns {
				t.Errorf("commands %q, want %d runs", sb.Lines(), tt.wantRuns)
			}
		})
	}
}

// TestPortChecksExports: a primary static library is compared with what its header
// declares; a declared function it does not define, in a file a fix changed, fails the
// port and the export summary is reported.
func TestPortChecksExports(t *testing.T) {
	const aux = "\n" + headerMark + "pkg.h\n" +
		"/* pkg.h:6:NC */ extern int add (int, int);\n/* pkg.h:7:NC */ extern int gone (int);\n"
	sb, in := portSandbox(t)
	if err := sb.WriteFile(context.Background(), "pkg.h", []byte("int add(int, int);\nint gone(int);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := sb.WriteFile(context.Background(), "gone.c", []byte("int gone(int x)\n{\n\treturn x;\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return strings.Contains(c.Line, "-aux-info") }, Result: sandboxtest.OK(aux)})
	in.Changed = map[string]string{"gone.c": "patched by fix-1.patch"}
	arts := []atesor.Artifact{planted(t, sb, "/workspace/pkg/libpkg.a", sandboxtest.RISCV64StaticLibrary, atesor.ArtifactPrimary)}
	var lines []string
	res := Port(context.Background(), sb, in, arts, func(e atesor.Event) { lines = append(lines, e.Line) })
	if res.Verified || !res.ExportsChecked || res.Exports == nil {
		t.Fatalf("result %+v", res)
	}
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0], "do not define 1 functions the package promises, whose code fixes took away: gone") {
		t.Errorf("problems %q", res.Problems)
	}
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "exports: ") {
		t.Errorf("events %q", lines)
	}
}

// TestPortHeaderOnly: a header-only library whose test programs were not built has no
// primary artifact, and the problem says so and what to do; one whose test program is
// primary is proven by its start even when the tests fail (exit 1), and the export
// check runs and finds no library to compare.
func TestPortHeaderOnly(t *testing.T) {
	headerOnly := &atesor.Install{OK: true, HeaderOnly: true, Headers: 2, ArtifactsFrom: atesor.ArtifactsFromRules}
	tests := []struct {
		name     string
		inst     *atesor.Install
		role     atesor.ArtifactRole
		exit     int
		verified bool
		problem  string
	}{
		{"untested", headerOnly, atesor.ArtifactSecondary, 0, false, atesor.ProblemHeaderOnlyUntested + " (the install step staged 2 headers and no program or library"},
		{"untested, no install rules", &atesor.Install{OK: true, HeaderOnly: true, HeadersFromTree: true, Headers: 63, ArtifactsFrom: atesor.ArtifactsFromRules}, atesor.ArtifactSecondary, 0, false,
			atesor.ProblemHeaderOnlyUntested + " (the install step staged nothing, the source tree's CMake project declares only INTERFACE libraries with 63 headers"},
		{"not header-only", &atesor.Install{OK: true}, atesor.ArtifactSecondary, 0, false, "no primary artifact: the build produced no riscv64 program"},
		{"test program primary, failing", &atesor.Install{OK: true, HeaderOnly: true, Headers: 2, ArtifactsFrom: atesor.ArtifactsFromTestPrograms, PrimaryTestPrograms: 1},
			atesor.ArtifactPrimary, 1, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb, in := portSandbox(t)
			in.Install = tt.inst
			sb.On(`^'/workspace/pkg/build/pkg-unit-tests'$`, atesor.CommandResult{ExitCode: tt.exit, Output: "[  FAILED  ] 1 test\n"})
			arts := []atesor.Artifact{planted(t, sb, "/workspace/pkg/build/pkg-unit-tests", sandboxtest.RISCV64Executable, tt.role)}
			res := Port(context.Background(), sb, in, arts, func(atesor.Event) {})
			if res.Verified != tt.verified {
				t.Fatalf("verified %v, problems %q", res.Verified, res.Problems)
			}
			if tt.verified {
				if !res.ExportsChecked || res.Exports != nil || len(sb.Lines()) != 1 {
					t.Errorf("exports checked %v: %+v; commands %q", res.ExportsChecked, res.Exports, sb.Lines())
				}
				return
			}
			if len(res.Problems) != 1 || !strings.HasPrefix(res.Problems[0], tt.problem) || strings.Contains(res.Problems[0], ";") {
				t.Errorf("problems %q, want one starting %q (and no ';', which would split it)", res.Problems, tt.problem)
			}
		})
	}
}

// TestPortPerlOnly: a Perl distribution whose install staged modules and nothing
// compiled is refused with ProblemPerlOnly, never verified; one whose install staged an
// XS shared object that is not a primary artifact, or staged nothing of Perl's, gets
// the plain no-artifact problem.
func TestPortPerlOnly(t *testing.T) {
	pure := []string{"usr/local/man/man3/Text::Pure.3pm", "usr/local/share/perl/5.40.1/Text/Pure.pm",
		"usr/local/share/perl/5.40.1/Text/Pure/Util.pm", "usr/local/lib/riscv64-linux-gnu/perl/5.40.1/perllocal.pod"}
	xs := []string{"usr/local/lib/riscv64-linux-gnu/perl/5.40.1/Crypt/Rijndael.pm",
		"usr/local/lib/riscv64-linux-gnu/perl/5.40.1/auto/Crypt/Rijndael/Rijndael.so"}
	tests := []struct {
		name    string
		inst    *atesor.Install
		problem string
	}{
		{"pure Perl", &atesor.Install{OK: true, Files: pure}, atesor.ProblemPerlOnly + " (2 Perl modules, no XS shared object"},
		{"XS object staged", &atesor.Install{OK: true, Files: xs}, "no primary artifact: the build produced no riscv64 program"},
		{"install failed", &atesor.Install{OK: false, Files: pure}, "no primary artifact: the build produced no riscv64 program"},
		{"no Perl modules", &atesor.Install{OK: true, Files: []string{"usr/local/share/doc/x/README"}}, "no primary artifact: the build produced no riscv64 program"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb, in := portSandbox(t)
			in.Install = tt.inst
			res := Port(context.Background(), sb, in, nil, func(atesor.Event) {})
			if res.Verified || len(res.Problems) != 1 || !strings.HasPrefix(res.Problems[0], tt.problem) || strings.Contains(res.Problems[0], ";") {
				t.Errorf("verified %v, problems %q, want one starting %q (and no ';')", res.Verified, res.Problems, tt.problem)
			}
		})
	}
}

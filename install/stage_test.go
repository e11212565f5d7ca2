package install

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
	"github.com/eclipse-atesor/atesor-go/validate"
)

// stagerOver is a Stager over a fake sandbox whose Run runs each line in it and records
// line and timeout, as the pipeline's plan-command runner does.
func stagerOver(t *testing.T) (Stager, *sandboxtest.Sandbox, *[]atesor.Event, *[]time.Duration) {
	t.Helper()
	sb := sandboxtest.New(t, atesor.Platform{Triplet: "riscv64-linux-gnu"})
	sb.SetRepo("pkg")
	var events []atesor.Event
	var timeouts []time.Duration
	st := Stager{Sandbox: sb, Emit: func(e atesor.Event) { events = append(events, e) },
		Run: func(ctx context.Context, line string, timeout time.Duration) (atesor.CommandResult, bool, error) {
			timeouts = append(timeouts, timeout)
			res, err := sb.Exec(ctx, atesor.Command{Line: line, Dir: "/workspace/pkg", Timeout: timeout})
			return res, err == nil && !res.OK(), err
		}}
	return st, sb, &events, &timeouts
}

// TestStageMake: a make build installs with DESTDIR into the stage, within the install
// bound, and the staged files and development files are listed, sorted.
func TestStageMake(t *testing.T) {
	st, sb, events, timeouts := stagerOver(t)
	sb.OnPrefix(`find . \( -type f -o -type l \) -print`, sandboxtest.OK("./usr/local/lib/libz.so.1\n./usr/local/include/zlib.h\n./usr/local/lib/pkgconfig/zlib.pc\n"))
	inst := st.Stage(context.Background(), Package{RepoDir: "/workspace/pkg", Detection: &atesor.Detection{BuildSystem: atesor.BuildMake, BuildDir: "src"}})
	want := &atesor.Install{Method: "make", StageDir: "/workspace/pkg/.atesor-stage", OK: true,
		Commands: []string{"rm -rf '/workspace/pkg/.atesor-stage' && cd 'src' && make install DESTDIR='/workspace/pkg/.atesor-stage'"},
		Files:    []string{"usr/local/include/zlib.h", "usr/local/lib/libz.so.1", "usr/local/lib/pkgconfig/zlib.pc"},
		DevFiles: []string{"usr/local/include/zlib.h", "usr/local/lib/pkgconfig/zlib.pc"}}
	if d := cmp.Diff(want, inst); d != "" {
		t.Fatalf("install (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]time.Duration{15 * time.Minute}, *timeouts); d != "" {
		t.Errorf("timeouts (-want +got):\n%s", d)
	}
	if n := len(*events); n != 2 || (*events)[0].Kind != atesor.EventPhase || (*events)[1].Line != "staged 3 files (2 development files)" {
		t.Errorf("events %+v", *events)
	}
	for _, e := range *events {
		if e.Phase != "install" || e.Node != "" {
			t.Errorf("event %+v: want phase install and no node", e)
		}
	}
}

// TestStagePerl: a Perl distribution installs with MakeMaker's DESTDIR, the staged
// files libcrypt-rijndael-perl's port listed; a platform makefile's build installs
// with the same make -f the build ran, in its directory.
func TestStagePerl(t *testing.T) {
	st, sb, _, _ := stagerOver(t)
	sb.OnPrefix(`find . \( -type f -o -type l \) -print`, sandboxtest.OK("./usr/local/lib/riscv64-linux-gnu/perl/5.40.1/Crypt/Rijndael.pm\n"+
		"./usr/local/lib/riscv64-linux-gnu/perl/5.40.1/auto/Crypt/Rijndael/Rijndael.so\n./usr/local/man/man3/Crypt::Rijndael.3pm\n"))
	inst := st.Stage(context.Background(), Package{RepoDir: "/workspace/pkg", Detection: &atesor.Detection{BuildSystem: atesor.BuildPerl}})
	want := &atesor.Install{Method: "perl", StageDir: "/workspace/pkg/.atesor-stage", OK: true,
		Commands: []string{"rm -rf '/workspace/pkg/.atesor-stage' && make install DESTDIR='/workspace/pkg/.atesor-stage'"},
		Files: []string{"usr/local/lib/riscv64-linux-gnu/perl/5.40.1/Crypt/Rijndael.pm", "usr/local/lib/riscv64-linux-gnu/perl/5.40.1/auto/Crypt/Rijndael/Rijndael.so",
			"usr/local/man/man3/Crypt::Rijndael.3pm"}}
	if d := cmp.Diff(want, inst); d != "" {
		t.Errorf("perl install (-want +got):\n%s", d)
	}
	// An R package installs with R CMD INSTALL into the stage's site library.
	r := st.Stage(context.Background(), Package{RepoDir: "/workspace/pkg", Detection: &atesor.Detection{BuildSystem: atesor.BuildR}})
	if d := cmp.Diff([]string{"rm -rf '/workspace/pkg/.atesor-stage' && mkdir -p '/workspace/pkg/.atesor-stage/usr/local/lib/R/site-library' && " +
		"R CMD INSTALL --no-docs --no-html --library='/workspace/pkg/.atesor-stage/usr/local/lib/R/site-library' ."}, r.Commands); r.Method != "r" || d != "" {
		t.Errorf("R install %q (-want +got):\n%s", r.Method, d)
	}
	mk := st.Stage(context.Background(), Package{RepoDir: "/workspace/pkg", Detection: &atesor.Detection{BuildSystem: atesor.BuildMake, BuildDir: "src", Makefile: "Makefile.linux"}})
	if d := cmp.Diff([]string{"rm -rf '/workspace/pkg/.atesor-stage' && cd 'src' && make -f Makefile.linux install DESTDIR='/workspace/pkg/.atesor-stage'"}, mk.Commands); d != "" {
		t.Errorf("platform makefile install (-want +got):\n%s", d)
	}
}

// TestStageChoices: the analysis' build system wins over the detection's; Go installs
// with the fetched toolchain's line and the plan's tags; a build system without an
// install step, and a failing step, are recorded, not fatal.
func TestStageChoices(t *testing.T) {
	st, sb, events, _ := stagerOver(t)
	sb.OnPrefix("find . -maxdepth 3", sandboxtest.OK("./b/c/meson-info\n./build/meson-info\n"))
	inst := st.Stage(context.Background(), Package{RepoDir: "/workspace/pkg", BuildSystem: atesor.BuildMeson, Detection: &atesor.Detection{BuildSystem: atesor.BuildMake}})
	if inst.Method != "meson" || len(inst.Commands) != 1 || !strings.HasSuffix(inst.Commands[0], "meson install -C 'build' --no-rebuild") {
		t.Errorf("meson: %+v", inst)
	}
	plan := &atesor.BuildPlan{Phases: []atesor.Phase{{Name: "build", Commands: []string{"go build -tags=purego -o bin/ ./..."}}}}
	goInst := st.Stage(context.Background(), Package{RepoDir: "/workspace/pkg", Plan: plan,
		Detection:   &atesor.Detection{BuildSystem: atesor.BuildGo, ModuleDir: "go"},
		GoToolchain: &atesor.GoToolchain{Version: "go1.27.3", Arch: "amd64", GOROOT: "/opt/atesor/go/go1.27.3"}})
	if len(goInst.Commands) != 1 || !strings.Contains(goInst.Commands[0], "cd 'go' && go build -tags=purego -buildvcs=false -o '/workspace/pkg/.atesor-stage/usr/local/bin'/ ./...") {
		t.Errorf("go: %+v", goInst)
	}
	*events = nil
	none := st.Stage(context.Background(), Package{RepoDir: "/workspace/pkg", Detection: &atesor.Detection{BuildSystem: atesor.BuildUnknown}})
	if none.OK || !strings.Contains(none.Error, "has no known install step") || len(*events) != 1 || !strings.HasPrefix((*events)[0].Line, "no install step: ") {
		t.Errorf("unknown: %+v, events %+v", none, *events)
	}
	sb.OnPrefix("rm -rf '/workspace/pkg/.atesor-stage' && cargo install", sandboxtest.Fail(101, "error: no binaries\n"))
	failed := st.Stage(context.Background(), Package{RepoDir: "/workspace/pkg", Detection: &atesor.Detection{BuildSystem: atesor.BuildCargo}})
	if failed.OK || !strings.Contains(failed.Error, "(exit 101): error: no binaries") || len(failed.Commands) != 0 {
		t.Errorf("cargo: %+v", failed)
	}
}

// TestStageGoPath: Go packages with no go.mod that a GOPATH plan builds install in
// GOPATH mode from the repository's link under the GOPATH, as they were built, with go
// build -o (go install would leave the libraries' Go archives in the repository).
func TestStageGoPath(t *testing.T) {
	st, _, _, _ := stagerOver(t)
	det := &atesor.Detection{BuildSystem: atesor.BuildGo, ModuleDir: ".", GoNoModFile: true, GoModulePath: "github.com/cznic/b", HasMain: true, MainPath: "cmd/b"}
	plan := &atesor.BuildPlan{Phases: []atesor.Phase{
		{Name: knowledge.GoPathPhase, Commands: []string{"mkdir -p .gopath/src/github.com/cznic && ln -sfn ../../../.. .gopath/src/github.com/cznic/b"}},
		{Name: "build", Commands: []string{"go build ./... && go test -vet=off -c -o bin/ ./..."}},
	}}
	inst := st.Stage(context.Background(), Package{RepoDir: "/workspace/pkg", Plan: plan, Detection: det})
	want := `rm -rf '/workspace/pkg/.atesor-stage' && export GO111MODULE=off GOPATH="$PWD/.gopath:/usr/share/gocode" && ` +
		`cd .gopath/src/github.com/cznic/b && GOTOOLCHAIN=auto go build -buildvcs=false -o /workspace/pkg/.atesor-stage/usr/local/bin/ ./...`
	if !slices.Equal(inst.Commands, []string{want}) {
		t.Errorf("install %+v, want the command %q", inst, want)
	}
	if err := validate.DenyRules(want); err != nil {
		t.Errorf("the safety rules refuse the install: %v", err)
	}
	plan.Phases = plan.Phases[1:] // a go.mod-less tree built another way installs as before
	inst = st.Stage(context.Background(), Package{RepoDir: "/workspace/pkg", Plan: plan, Detection: det})
	if len(inst.Commands) != 1 || strings.Contains(inst.Commands[0], "GO111MODULE") || !strings.Contains(inst.Commands[0], "go install") {
		t.Errorf("install without the GOPATH phase: %+v", inst)
	}
}

// TestChoose: staged ELF files become the primary artifacts, the build tree's copies of
// them are left out and its other files are secondary; a test program named by the
// metadata is never primary; without a staged program the rules' choice stands.
func TestChoose(t *testing.T) {
	sb := sandboxtest.New(t, atesor.Platform{Triplet: "riscv64-linux-gnu"})
	sb.OnPrefix("find . -maxdepth 3 -path ./.atesor-stage -prune -o -type f -name CTestTestfile.cmake", sandboxtest.OK("./build/CTestTestfile.cmake\n"))
	sb.OnPrefix("ctest --show-only=json-v1", sandboxtest.OK(`{"tests":[{"command":["/workspace/pkg/build/t1"]}]}`))
	staged := []atesor.Artifact{
		{Path: "/workspace/pkg/.atesor-stage/usr/bin/tool", SHA256: "a", Kind: atesor.KindExecutable},
		{Path: "/workspace/pkg/.atesor-stage/usr/lib/x.o", SHA256: "o", Kind: atesor.KindObject},
		{Path: "/workspace/pkg/.atesor-stage/usr/lib/prebuilt.so", SHA256: "p", Kind: atesor.KindSharedLibrary},
	}
	var scanned []string
	c := Chooser{Sandbox: sb, Scan: func(ctx context.Context, dir string) ([]atesor.Artifact, error) {
		scanned = append(scanned, dir)
		return staged, nil
	}}
	built := func() []atesor.Artifact {
		return []atesor.Artifact{
			{Path: "/workspace/pkg/build/tool", SHA256: "a", Role: atesor.ArtifactPrimary},
			{Path: "/workspace/pkg/build/t1", SHA256: "t", Role: atesor.ArtifactPrimary},
			{Path: "/workspace/pkg/build/helper", SHA256: "h", Role: atesor.ArtifactPrimary},
		}
	}
	inst, arts := c.Choose(context.Background(), "/workspace/pkg", nil, built(), nil)
	if inst.Error != "the install step did not run" || inst.ArtifactsFrom != atesor.ArtifactsFromRules || len(scanned) != 0 {
		t.Errorf("no install: %+v, scanned %v", inst, scanned)
	}
	if arts[1].Role != atesor.ArtifactSecondary || arts[0].Role != atesor.ArtifactPrimary || !cmp.Equal(inst.TestPrograms, []string{"/workspace/pkg/build/t1"}) {
		t.Errorf("no install: %+v, test programs %v", arts, inst.TestPrograms)
	}
	ok := &atesor.Install{OK: true, StageDir: "/workspace/pkg/.atesor-stage", Files: []string{"usr/bin/tool", "usr/lib/x.o"}}
	inst, arts = c.Choose(context.Background(), "/workspace/pkg", ok, built(), map[string]bool{"p": true})
	if inst != ok || inst.ArtifactsFrom != atesor.ArtifactsFromInstall || !cmp.Equal(scanned, []string{ok.StageDir}) {
		t.Fatalf("install: %+v, scanned %v", inst, scanned)
	}
	roles := map[string]atesor.ArtifactRole{}
	for _, a := range arts {
		roles[a.Path] = a.Role
	}
	want := map[string]atesor.ArtifactRole{
		"/workspace/pkg/.atesor-stage/usr/bin/tool": atesor.ArtifactPrimary, "/workspace/pkg/.atesor-stage/usr/lib/x.o": atesor.ArtifactSecondary,
		"/workspace/pkg/build/t1": atesor.ArtifactSecondary, "/workspace/pkg/build/helper": atesor.ArtifactSecondary,
	}
	if d := cmp.Diff(want, roles); d != "" {
		t.Errorf("roles (-want +got):\n%s", d)
	}
	staged = staged[1:2] // only an object file
	inst, arts = c.Choose(context.Background(), "/workspace/pkg", &atesor.Install{OK: true, StageDir: ok.StageDir, Files: []string{"usr/lib/x.o"}}, built(), nil)
	if inst.ArtifactsFrom != atesor.ArtifactsFromRules || inst.Error != "the install step staged no program or library" || len(arts) != 3 {
		t.Errorf("objects only: %+v %+v", inst, arts)
	}
	c.Scan = func(context.Context, string) ([]atesor.Artifact, error) { return nil, errors.New("boom") }
	if inst, _ = c.Choose(context.Background(), "/workspace/pkg", &atesor.Install{OK: true, StageDir: ok.StageDir, Files: []string{"usr/bin/tool"}}, built(), nil); inst.Error != "scan the staged files: boom" {
		t.Errorf("scan error: %+v", inst)
	}
}

func TestEvidence(t *testing.T) {
	if Evidence("/w", nil) != "" {
		t.Error("evidence without an install step")
	}
	inst := &atesor.Install{Method: "cmake", StageDir: "/w/.atesor-stage", ArtifactsFrom: atesor.ArtifactsFromInstall,
		Files: []string{"a", "b"}, DevFiles: []string{"include/a.h"}, TestPrograms: []string{"/w/t"}, TestProgramsFrom: []string{"ctest"}}
	got := Evidence("/w", inst)
	for _, want := range []string{"the cmake install step staged in `.atesor-stage` (2 files, 1 development files)", "- development file: `include/a.h`", "1 test programs marked by ctest metadata"} {
		if !strings.Contains(got, want) {
			t.Errorf("evidence does not say %q:\n%s", want, got)
		}
	}
}

// TestStageCargo: a cargo package installs with cargo install --root into the stage; a
// virtual workspace, which cargo install refuses, has its built programs copied there.
func TestStageCargo(t *testing.T) {
	tests := []struct {
		name  string
		progs []string
		want  string
	}{
		{"package", nil, "rm -rf '/workspace/pkg/.atesor-stage' && cd 'rust' && cargo install --path . --root '/workspace/pkg/.atesor-stage/usr/local'"},
		{"virtual workspace", []string{"alpha", "beta"}, "rm -rf '/workspace/pkg/.atesor-stage' && mkdir -p '/workspace/pkg/.atesor-stage/usr/local/bin' && " +
			"cd 'rust' && cp 'target/release/alpha' 'target/release/beta' '/workspace/pkg/.atesor-stage/usr/local/bin'/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, sb, _, _ := stagerOver(t)
			sb.OnPrefix(`find . \( -type f -o -type l \) -print`, sandboxtest.OK("./usr/local/bin/alpha\n"))
			inst := st.Stage(context.Background(), Package{RepoDir: "/workspace/pkg", CargoWorkspacePrograms: tt.progs,
				Detection: &atesor.Detection{BuildSystem: atesor.BuildCargo, BuildDir: "rust"}})
			if !inst.OK || inst.Method != "cargo" || !slices.Equal(inst.Commands, []string{tt.want}) {
				t.Errorf("install %+v, want the command %q", inst, tt.want)
			}
			if err := validate.DenyRules(tt.want); err != nil {
				t.Errorf("the safety rules refuse the install: %v", err)
			}
		})
	}
}

// TestChooseHeaderOnly: when the install step staged headers and no program or
// library, the package's own test programs (named by ctest) are the primary artifacts
// and everything else is secondary; a vendored framework's test programs are not the
// package's; without a test program of its own the rules' choice stands, marked
// header-only; staged files that are not headers do not make a header-only library.
func TestChooseHeaderOnly(t *testing.T) {
	const repo = "/workspace/pkg"
	built := func() []atesor.Artifact {
		return []atesor.Artifact{
			{Path: repo + "/build/pkg-unit-tests", SHA256: "t", Kind: atesor.KindExecutable, Role: atesor.ArtifactSecondary},
			{Path: repo + "/build/googletest/samples/sample1_unittest", SHA256: "g", Kind: atesor.KindExecutable, Role: atesor.ArtifactSecondary},
			{Path: repo + "/build/googletest/lib/libgtest.a", SHA256: "l", Kind: atesor.KindStaticLibrary, Role: atesor.ArtifactPrimary},
			{Path: repo + "/build/example", SHA256: "e", Kind: atesor.KindExecutable, Role: atesor.ArtifactPrimary},
		}
	}
	headers := []string{"usr/local/include/pkg.hpp", "usr/local/include/pkg/detail", "usr/local/share/pkgconfig/pkg.pc"}
	tests := []struct {
		name       string
		files      []string
		extra      []atesor.Artifact
		ctest      string
		from       string
		headerOnly bool
		primaries  []string
		reason     string
	}{
		{name: "own and vendored test programs", files: headers,
			ctest: `{"tests":[{"command":["` + repo + `/build/pkg-unit-tests","-v"]},{"command":["` + repo + `/build/googletest/samples/sample1_unittest"]}]}`,
			from:  atesor.ArtifactsFromTestPrograms, headerOnly: true, primaries: []string{repo + "/build/pkg-unit-tests"},
			reason: "header-only library: its test program, compiled from the staged headers, is the riscv64 evidence"},
		{name: "only a vendored framework's test programs", files: headers,
			ctest: `{"tests":[{"command":["` + repo + `/build/googletest/samples/sample1_unittest"]}]}`,
			from:  atesor.ArtifactsFromRules, headerOnly: true, primaries: []string{repo + "/build/example", repo + "/build/googletest/lib/libgtest.a"},
			reason: "header-only library: the install step staged 2 headers and no program or library, and no test program of the package that the build-system metadata names was built"},
		{name: "no test program", files: headers, ctest: `{"tests":[]}`,
			from: atesor.ArtifactsFromRules, headerOnly: true, primaries: []string{repo + "/build/example", repo + "/build/googletest/lib/libgtest.a"},
			reason: "header-only library: the install step staged 2 headers"},
		{name: "a library of its own built but not installed", files: headers, extra: []atesor.Artifact{
			{Path: repo + "/build/libpkg.a", SHA256: "p", Kind: atesor.KindStaticLibrary, Role: atesor.ArtifactPrimary}},
			ctest: `{"tests":[{"command":["` + repo + `/build/pkg-unit-tests"]}]}`,
			from:  atesor.ArtifactsFromRules, primaries: []string{repo + "/build/example", repo + "/build/googletest/lib/libgtest.a", repo + "/build/libpkg.a"}},
		{name: "no headers staged", files: []string{"usr/local/share/doc/pkg/README"},
			ctest: `{"tests":[{"command":["` + repo + `/build/pkg-unit-tests"]}]}`,
			from:  atesor.ArtifactsFromRules, primaries: []string{repo + "/build/example", repo + "/build/googletest/lib/libgtest.a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := sandboxtest.New(t, atesor.Platform{Triplet: "riscv64-linux-gnu"})
			sb.OnPrefix("find . -maxdepth 3 -path ./.atesor-stage -prune -o -type f -name CTestTestfile.cmake", sandboxtest.OK("./build/CTestTestfile.cmake\n"))
			sb.OnPrefix("ctest --show-only=json-v1", sandboxtest.OK(tt.ctest))
			c := Chooser{Sandbox: sb, Scan: func(context.Context, string) ([]atesor.Artifact, error) { return nil, nil }}
			inst, arts := c.Choose(context.Background(), repo, &atesor.Install{OK: true, Method: "cmake", StageDir: StageDir(repo), Files: tt.files}, append(built(), tt.extra...), nil)
			var primaries []string
			for _, a := range arts {
				if a.Role == atesor.ArtifactPrimary {
					primaries = append(primaries, a.Path)
				}
			}
			slices.Sort(primaries)
			if inst.ArtifactsFrom != tt.from || inst.HeaderOnly != tt.headerOnly || !slices.Equal(primaries, tt.primaries) {
				t.Errorf("from %q, header-only %v, primaries %q; want %q, %v, %q", inst.ArtifactsFrom, inst.HeaderOnly, primaries, tt.from, tt.headerOnly, tt.primaries)
			}
			if got := ArtifactsReason(inst); !strings.HasPrefix(got, tt.reason) || (tt.reason == "") != (got == "") {
				t.Errorf("reason %q, want %q", got, tt.reason)
			}
			if tt.from == atesor.ArtifactsFromTestPrograms {
				ev := Evidence(repo, inst)
				for _, want := range []string{tt.reason + ": the cmake install step staged `.atesor-stage` (3 files, 2 headers, no program or library), and ctest metadata names the test programs.",
					"- 1 test programs marked by ctest metadata are not primary artifacts."} {
					if !strings.Contains(ev, want) {
						t.Errorf("evidence does not say %q:\n%s", want, ev)
					}
				}
				if inst.Error != "" || inst.PrimaryTestPrograms != 1 {
					t.Errorf("install %+v", inst)
				}
			}
		})
	}
}

// TestStageFixPerms: a program staged without its execute bits (install(FILES) of a
// built program) is made executable by a recorded install line, as dh_fixperms does;
// files deeper below a bin directory, and a stage with none, get no line.
func TestStageFixPerms(t *testing.T) {
	st, sb, events, _ := stagerOver(t)
	sb.OnPrefix("find . -maxdepth 3", sandboxtest.OK("./build/CMakeCache.txt\n"))
	sb.OnPrefix(`find . -type f \( -path './*bin/*'`, sandboxtest.OK("./usr/local/bin/zst\x00./usr/local/bin/sub/data.txt\x00./usr/sbin/d\x00"))
	inst := st.Stage(context.Background(), Package{RepoDir: "/workspace/pkg", Detection: &atesor.Detection{BuildSystem: atesor.BuildCMake}})
	want := []string{"rm -rf '/workspace/pkg/.atesor-stage' && DESTDIR='/workspace/pkg/.atesor-stage' cmake --install 'build'",
		"chmod 0755 '/workspace/pkg/.atesor-stage/usr/local/bin/zst' '/workspace/pkg/.atesor-stage/usr/sbin/d'"}
	if d := cmp.Diff(want, inst.Commands); d != "" {
		t.Fatalf("install commands (-want +got):\n%s", d)
	}
	for _, c := range inst.Commands {
		if err := validate.PlanLine(c); err != nil {
			t.Errorf("%s: %v", c, err)
		}
	}
	found := false
	for _, e := range *events {
		found = found || strings.Contains(e.Line, "made 2 staged files in a bin directory executable")
	}
	if !found {
		t.Errorf("no event says what was made executable: %+v", *events)
	}

	st2, sb2, _, _ := stagerOver(t)
	sb2.OnPrefix("find . -maxdepth 3", sandboxtest.OK("./build/CMakeCache.txt\n"))
	if inst := st2.Stage(context.Background(), Package{RepoDir: "/workspace/pkg", Detection: &atesor.Detection{BuildSystem: atesor.BuildCMake}}); len(inst.Commands) != 1 {
		t.Errorf("nothing to fix: commands %q", inst.Commands)
	}
}

// TestStageFixPermsHostileNames: the staged names are the build's. A name with a
// newline that reads as a second path (a bin directory outside the stage), and names
// that are not plain paths below the stage, are never given to chmod.
func TestStageFixPermsHostileNames(t *testing.T) {
	st, sb, _, _ := stagerOver(t)
	sb.OnPrefix("find . -maxdepth 3", sandboxtest.OK("./build/CMakeCache.txt\n"))
	sb.OnPrefix(`find . -type f \( -path './*bin/*'`, sandboxtest.OK(
		"./usr/bin/ok\x00./usr/bin/x\n../../../usr/bin/evil\x00../bin/evil\x00./usr/bin/../../bin/evil\x00/usr/bin/evil\x00./usr/bin/\x1b[2Jevil\x00"))
	inst := st.Stage(context.Background(), Package{RepoDir: "/workspace/pkg", Detection: &atesor.Detection{BuildSystem: atesor.BuildCMake}})
	want := "chmod 0755 '/workspace/pkg/.atesor-stage/usr/bin/ok'"
	if len(inst.Commands) != 2 || inst.Commands[1] != want {
		t.Fatalf("install commands %q, want the install and %q", inst.Commands, want)
	}
}

// TestChooseForeignData: picotool 2.1.1 installs the EM_ARM firmware it loads onto an
// RP2350 (xip_ram_perms.elf) in share/picotool beside its riscv64 program, as the real
// port's report lists them: the firmware is secondary data, the program primary. A
// foreign ELF outside share/ stays primary (and fails verification), and a stage of
// foreign data alone has no primary artifact. An ELF file for no machine (EM_NONE:
// guile-cairo's compiled Guile modules) is data wherever it is.
func TestChooseForeignData(t *testing.T) {
	const repo = "/workspace/picotool"
	stage := StageDir(repo)
	prog := atesor.Artifact{Path: stage + "/usr/local/bin/picotool", Kind: atesor.KindExecutable, Class: "ELFCLASS64", Machine: "EM_RISCV", RISCV64: true, SHA256: "p"}
	fw := atesor.Artifact{Path: stage + "/usr/local/share/picotool/xip_ram_perms.elf", Kind: atesor.KindExecutable, Class: "ELFCLASS32", Machine: "EM_ARM", SHA256: "f"}
	guileGo := atesor.Artifact{Path: stage + "/usr/lib/guile/3.0/site-ccache/cairo.go", Kind: atesor.KindSharedLibrary, Class: "ELFCLASS64", Machine: "EM_NONE", SHA256: "g"}
	armBin := atesor.Artifact{Path: stage + "/usr/local/bin/arm-tool", Kind: atesor.KindExecutable, Class: "ELFCLASS32", Machine: "EM_ARM", SHA256: "a"}
	tests := []struct {
		name    string
		staged  []atesor.Artifact
		roles   map[string]atesor.ArtifactRole
		foreign []string
		err     string
	}{
		{name: "picotool", staged: []atesor.Artifact{prog, fw},
			roles:   map[string]atesor.ArtifactRole{prog.Path: atesor.ArtifactPrimary, fw.Path: atesor.ArtifactSecondary},
			foreign: []string{"usr/local/share/picotool/xip_ram_perms.elf"}},
		{name: "a foreign program outside share stays primary", staged: []atesor.Artifact{prog, armBin},
			roles: map[string]atesor.ArtifactRole{prog.Path: atesor.ArtifactPrimary, armBin.Path: atesor.ArtifactPrimary}},
		{name: "guile-cairo: Guile's compiled modules, ELF files for no machine, beside its riscv64 library", staged: []atesor.Artifact{prog, guileGo},
			roles:   map[string]atesor.ArtifactRole{prog.Path: atesor.ArtifactPrimary, guileGo.Path: atesor.ArtifactSecondary},
			foreign: []string{"usr/lib/guile/3.0/site-ccache/cairo.go"}},
		{name: "foreign data alone", staged: []atesor.Artifact{fw}, foreign: []string{"usr/local/share/picotool/xip_ram_perms.elf"},
			err: "the install step staged no program or library"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := sandboxtest.New(t, atesor.Platform{Triplet: "riscv64-linux-gnu"})
			c := Chooser{Sandbox: sb, Scan: func(context.Context, string) ([]atesor.Artifact, error) { return slices.Clone(tt.staged), nil }}
			var files []string
			for _, a := range tt.staged {
				files = append(files, strings.TrimPrefix(a.Path, stage+"/"))
			}
			inst, arts := c.Choose(context.Background(), repo, &atesor.Install{OK: true, StageDir: stage, Files: files}, nil, nil)
			if inst.Error != tt.err || !cmp.Equal(inst.ForeignData, tt.foreign) {
				t.Fatalf("install %+v", inst)
			}
			if tt.roles == nil {
				return
			}
			roles := map[string]atesor.ArtifactRole{}
			for _, a := range arts {
				roles[a.Path] = a.Role
			}
			if d := cmp.Diff(tt.roles, roles); d != "" {
				t.Errorf("roles (-want +got):\n%s", d)
			}
			if ev := Evidence(repo, inst); tt.foreign != nil && !strings.Contains(ev, "data for another machine") {
				t.Errorf("evidence does not name the foreign data:\n%s", ev)
			}
		})
	}
}

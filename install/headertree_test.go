package install

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// heraCMake is the top-level CMakeLists.txt of Debian's hera
// 2.0.0+git20221115.8bfdd4b+dfsg, unchanged: add_library(hera INTERFACE) with the
// include directories include/ and extern/, and no install() at all.
func heraCMake(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "hera", "CMakeLists.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// writeTree writes files (relative path: content) below a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestChooseHeaderOnlyNoInstall: an install step that ran and staged nothing, in a
// CMake tree whose top-level CMakeLists.txt declares only INTERFACE libraries (hera's,
// real), is a header-only library counted from the tree's include directories
// (vendored extern/ and test directories left out): with no test program built, the
// verification problem is the header-only one; once its test programs are built they
// are the primary artifacts and the examples secondary. A failed install, a staged
// file, another build system, a library built of the package's own, a library that
// compiles sources in the CMakeLists.txt and include directories without a header are
// not header-only.
func TestChooseHeaderOnlyNoInstall(t *testing.T) {
	const repo = "/workspace/hera"
	hera := map[string]string{
		"CMakeLists.txt":                     heraCMake(t),
		"include/hera/bottleneck.h":          "",
		"include/hera/dnn/local/kd-tree.hpp": "",
		"include/hera/README.md":             "",
		"include/hera/tests/helper.h":        "",
		"extern/opts/include/opts/opts.h":    "",
		"bottleneck/tests/helper.h":          "",
	}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range hera {
			m[a] = b
		}
		m[k] = v
		return m
	}
	testsBuilt := []atesor.Artifact{
		{Path: repo + "/build/bottleneck/tests/bottleneck_tests", SHA256: "b", Kind: atesor.KindExecutable, Role: atesor.ArtifactSecondary},
		{Path: repo + "/build/wasserstein/tests/wasserstein_tests", SHA256: "w", Kind: atesor.KindExecutable, Role: atesor.ArtifactSecondary},
		{Path: repo + "/build/bottleneck/bottleneck_dist", SHA256: "d", Kind: atesor.KindExecutable, Role: atesor.ArtifactPrimary},
	}
	ctest := `{"tests":[{"command":["` + repo + `/build/bottleneck/tests/bottleneck_tests"]},{"command":["` + repo + `/build/wasserstein/tests/wasserstein_tests"]}]}`
	ok := func() *atesor.Install {
		return &atesor.Install{OK: true, Method: "cmake", StageDir: StageDir(repo)}
	}
	tests := []struct {
		name       string
		tree       map[string]string
		inst       *atesor.Install
		built      []atesor.Artifact
		ctest      string
		headerOnly bool
		headers    int
		from       string
		primaries  []string
	}{
		{name: "hera: nothing staged, nothing built", tree: hera, inst: ok(), headerOnly: true, headers: 2, from: atesor.ArtifactsFromRules},
		{name: "hera with its tests on: the test programs are the evidence", tree: hera, inst: ok(), built: testsBuilt, ctest: ctest,
			headerOnly: true, headers: 2, from: atesor.ArtifactsFromTestPrograms,
			primaries: []string{repo + "/build/bottleneck/tests/bottleneck_tests", repo + "/build/wasserstein/tests/wasserstein_tests"}},
		{name: "the install step failed", tree: hera, inst: &atesor.Install{Method: "cmake", StageDir: StageDir(repo), Error: "`cmake --install` failed"},
			from: atesor.ArtifactsFromRules},
		{name: "a file staged", tree: hera, inst: &atesor.Install{OK: true, Method: "cmake", StageDir: StageDir(repo), Files: []string{"usr/local/share/doc/hera/README"}},
			from: atesor.ArtifactsFromRules},
		{name: "a make build", tree: hera, inst: &atesor.Install{OK: true, Method: "make", StageDir: StageDir(repo)}, from: atesor.ArtifactsFromRules},
		{name: "a library of its own built", tree: hera, inst: ok(), built: []atesor.Artifact{
			{Path: repo + "/build/libhera.a", SHA256: "l", Kind: atesor.KindStaticLibrary, Role: atesor.ArtifactPrimary}},
			from: atesor.ArtifactsFromRules, primaries: []string{repo + "/build/libhera.a"}},
		{name: "a library that compiles sources", tree: with("CMakeLists.txt", heraCMake(t)+"\nadd_library(core STATIC src/core.cpp)\n"), inst: ok(),
			from: atesor.ArtifactsFromRules},
		{name: "include directories without a header", tree: map[string]string{"CMakeLists.txt": heraCMake(t), "include/hera/README.md": "", "extern/opts/include/opts/opts.h": ""},
			inst: ok(), from: atesor.ArtifactsFromRules},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := sandboxtest.New(t, atesor.Platform{Triplet: "riscv64-linux-gnu"})
			if tt.ctest != "" {
				sb.OnPrefix("find . -maxdepth 3 -path ./.atesor-stage -prune -o -type f -name CTestTestfile.cmake", sandboxtest.OK("./build/CTestTestfile.cmake\n"))
				sb.OnPrefix("ctest --show-only=json-v1", sandboxtest.OK(tt.ctest))
			}
			scanned := false
			c := Chooser{Sandbox: sb, HostTree: writeTree(t, tt.tree),
				Scan: func(context.Context, string) ([]atesor.Artifact, error) { scanned = true; return nil, nil }}
			inst, arts := c.Choose(context.Background(), repo, tt.inst, slices.Clone(tt.built), nil)
			var primaries []string
			for _, a := range arts {
				if a.Role == atesor.ArtifactPrimary {
					primaries = append(primaries, a.Path)
				}
			}
			slices.Sort(primaries)
			if inst.HeaderOnly != tt.headerOnly || inst.HeadersFromTree != tt.headerOnly || inst.Headers != tt.headers || inst.ArtifactsFrom != tt.from || !slices.Equal(primaries, tt.primaries) {
				t.Fatalf("header-only %v (from the tree %v, %d headers), from %q, primaries %q; want %v, %d, %q, %q",
					inst.HeaderOnly, inst.HeadersFromTree, inst.Headers, inst.ArtifactsFrom, primaries, tt.headerOnly, tt.headers, tt.from, tt.primaries)
			}
			if scanned && len(tt.inst.Files) == 0 {
				t.Error("scanned a staging directory the install step did not make")
			}
			if !tt.headerOnly {
				return
			}
			reason := ArtifactsReason(inst)
			if tt.from == atesor.ArtifactsFromTestPrograms {
				if reason != "header-only library: its 2 test programs, compiled from the source tree's headers, are the riscv64 evidence" || inst.Error != "" {
					t.Errorf("reason %q, error %q", reason, inst.Error)
				}
				if ev := Evidence(repo, inst); !strings.Contains(ev, "staged nothing (the project has no install rules); the source tree's CMake project declares only INTERFACE libraries, whose include directories hold 2 headers, and ctest metadata names the test programs") {
					t.Errorf("evidence:\n%s", ev)
				}
				return
			}
			if !strings.Contains(inst.Error, "the 2 headers are counted in the source tree, below include, extern, which the INTERFACE library hera of CMakeLists.txt gives") ||
				!strings.Contains(reason, "staged nothing, the source tree's CMake project declares only INTERFACE libraries with 2 headers") {
				t.Errorf("error %q, reason %q", inst.Error, reason)
			}
		})
	}
}

// TestStageNothingInstalled: cmake --install of a project with no install rules makes
// no staging directory; the step succeeded and staged nothing. A listing that fails
// while the directory is there is still a failure.
func TestStageNothingInstalled(t *testing.T) {
	for _, absent := range []bool{true, false} {
		sb := sandboxtest.New(t, atesor.Platform{Name: "debian"})
		sb.OnPrefix("find . -maxdepth 3", sandboxtest.OK("./build/CMakeCache.txt\n"))
		sb.OnPrefix(`find . \( -type f -o -type l \) -print`, sandboxtest.Fail(1, "bwrap: Can't chdir to /workspace/pkg/.atesor-stage: No such file or directory"))
		if !absent {
			sb.OnPrefix("test ! -e ", sandboxtest.Fail(1, ""))
		}
		st := Stager{Sandbox: sb, Run: func(ctx context.Context, line string, timeout time.Duration) (atesor.CommandResult, bool, error) {
			res, err := sb.Exec(ctx, atesor.Command{Line: line, Dir: "/workspace/pkg", Timeout: timeout})
			return res, !res.OK(), err
		}}
		inst := st.Stage(context.Background(), Package{RepoDir: "/workspace/pkg", Detection: &atesor.Detection{BuildSystem: atesor.BuildCMake}})
		if absent && (!inst.OK || len(inst.Files) != 0 || inst.Error != "") {
			t.Errorf("nothing staged: %+v", inst)
		}
		if !absent && (inst.OK || !strings.Contains(inst.Error, "list the staged files: exit 1")) {
			t.Errorf("a failed listing: %+v", inst)
		}
	}
}

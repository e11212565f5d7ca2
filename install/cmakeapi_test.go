package install

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/sandbox"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// The reply under testdata/cmake-file-api/libargparse was written by cmake 3.31 in the
// riscv64 sandbox for Debian's libargparse 3.2 configured with -S . -B build (its
// test/CMakeLists.txt builds the doctest program ARGPARSE_TESTS, OUTPUT_NAME tests,
// and never calls add_test).
const (
	argRepo    = "/workspace/libargparse"
	argBuild   = argRepo + "/build"
	argProgram = argBuild + "/test/tests"
	replyDir   = argBuild + "/" + apiDir + "/reply"
)

// realReply returns the captured reply files by name.
func realReply(t testing.TB) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "cmake-file-api", "libargparse", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no captured reply: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}

// replyFile returns the name of the captured reply file with the prefix.
func replyFile(t testing.TB, files map[string][]byte, prefix string) string {
	t.Helper()
	for n := range files {
		if strings.HasPrefix(n, prefix) {
			return n
		}
	}
	t.Fatalf("no reply file %s*", prefix)
	return ""
}

// apiSandbox is a fake sandbox whose build directory holds reply files, with the rules
// the query runs: no CTestTestfile.cmake, build/CMakeCache.txt, the reconfigure, and
// find listing the reply indexes.
func apiSandbox(t *testing.T, files map[string][]byte) *sandboxtest.Sandbox {
	t.Helper()
	sb := sandboxtest.New(t, atesor.Platform{Triplet: "riscv64-linux-gnu"})
	sb.SetRepo("libargparse")
	dir := filepath.Join(sb.Root(), filepath.FromSlash(replyDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var indexes []string
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(n, "index-") {
			indexes = append(indexes, "./"+apiDir+"/reply/"+n)
		}
	}
	sb.OnPrefix("find . -maxdepth 3 -path ./.atesor-stage -prune -o -type f -name CMakeCache.txt", sandboxtest.OK("./build/CMakeCache.txt\n"))
	sb.OnPrefix("find "+apiDir+"/reply", sandboxtest.OK(strings.Join(indexes, "\n")+"\n"))
	return sb
}

func readVia(sb atesor.Sandbox) ReadFunc {
	return func(ctx context.Context, p string, b sandbox.Bound) ([]byte, error) {
		return sandbox.ReadBounded(ctx, sb, p, b)
	}
}

// TestCMakeAPIProgramsReal: the real reply names build/test/tests, and the query
// reconfigures the build directory the build made, after removing any old reply.
func TestCMakeAPIProgramsReal(t *testing.T) {
	sb := apiSandbox(t, realReply(t))
	got, why := cmakeAPIPrograms(context.Background(), sb, readVia(sb), argRepo, "")
	if diff := cmp.Diff([]string{argProgram}, got); diff != "" || why != "" {
		t.Fatalf("programs (-want +got):\n%s\nwhy %q", diff, why)
	}
	var reconf *atesor.Command
	for _, c := range sb.Commands() {
		if strings.HasSuffix(c.Line, "&& cmake .") {
			reconf = &c
		}
	}
	if reconf == nil || reconf.Dir != argBuild || reconf.Timeout != cmakeAPITimeout ||
		!strings.HasPrefix(reconf.Line, "rm -rf "+apiDir+"/reply && ") || !strings.Contains(reconf.Line, ": > "+apiDir+"/query/codemodel-v2") {
		t.Errorf("reconfigure %+v\n%s", reconf, strings.Join(sb.Lines(), "\n"))
	}
}

// TestChooseHeaderOnlyFromCMakeAPI: a header-only library whose ctest lists no test
// gets its test program from the file API as the primary artifact, and the tests
// step is told to run it; when ctest names the test programs the file API is not
// asked.
func TestChooseHeaderOnlyFromCMakeAPI(t *testing.T) {
	built := []atesor.Artifact{{Path: argProgram, SHA256: "t", Kind: atesor.KindExecutable, Role: atesor.ArtifactSecondary}}
	files := []string{"usr/local/include/argparse/argparse.hpp", "usr/local/lib/cmake/argparse/argparseConfig.cmake", "usr/local/lib/pkgconfig/argparse.pc"}
	scan := func(context.Context, string) ([]atesor.Artifact, error) { return nil, nil }

	sb := apiSandbox(t, realReply(t))
	c := Chooser{Sandbox: sb, Scan: scan, Read: readVia(sb)}
	inst, arts := c.Choose(context.Background(), argRepo, &atesor.Install{OK: true, Method: "cmake", StageDir: StageDir(argRepo), Files: files}, slices.Clone(built), nil)
	if inst.ArtifactsFrom != atesor.ArtifactsFromTestPrograms || inst.PrimaryTestPrograms != 1 || len(arts) != 1 || arts[0].Role != atesor.ArtifactPrimary {
		t.Fatalf("install %+v, artifacts %+v", inst, arts)
	}
	if !slices.Equal(inst.TestProgramsFrom, []string{FromCMakeFileAPI}) || !slices.Equal(UnregisteredTestPrograms(inst), []string{argProgram}) {
		t.Errorf("from %v, unregistered %v", inst.TestProgramsFrom, UnregisteredTestPrograms(inst))
	}
	if ev := Evidence(argRepo, inst); !strings.Contains(ev, "cmake-file-api metadata names the test programs") {
		t.Errorf("evidence:\n%s", ev)
	}

	// ctest names the program: ctest runs it, the file API is not asked.
	sb = apiSandbox(t, realReply(t))
	sb.OnPrefix("find . -maxdepth 3 -path ./.atesor-stage -prune -o -type f -name CTestTestfile.cmake", sandboxtest.OK("./build/CTestTestfile.cmake\n"))
	sb.OnPrefix("ctest --show-only=json-v1", sandboxtest.OK(`{"tests":[{"command":["`+argProgram+`"]}]}`))
	c = Chooser{Sandbox: sb, Scan: scan, Read: readVia(sb)}
	inst, _ = c.Choose(context.Background(), argRepo, &atesor.Install{OK: true, Method: "cmake", StageDir: StageDir(argRepo), Files: files}, slices.Clone(built), nil)
	if inst.ArtifactsFrom != atesor.ArtifactsFromTestPrograms || !slices.Equal(inst.TestProgramsFrom, []string{"ctest"}) || UnregisteredTestPrograms(inst) != nil {
		t.Errorf("with ctest: %+v", inst)
	}
	if lines := strings.Join(sb.Lines(), "\n"); strings.Contains(lines, "cmake .") {
		t.Errorf("the file API was asked although ctest named the program:\n%s", lines)
	}

	// Not a header-only library (it staged a program): the file API is not asked.
	sb = apiSandbox(t, realReply(t))
	c = Chooser{Sandbox: sb, Read: readVia(sb), Scan: func(context.Context, string) ([]atesor.Artifact, error) {
		return []atesor.Artifact{{Path: StageDir(argRepo) + "/usr/local/bin/tool", SHA256: "b", Kind: atesor.KindExecutable}}, nil
	}}
	c.Choose(context.Background(), argRepo, &atesor.Install{OK: true, Method: "cmake", StageDir: StageDir(argRepo), Files: append(files, "usr/local/bin/tool")}, slices.Clone(built), nil)
	if lines := strings.Join(sb.Lines(), "\n"); strings.Contains(lines, "cmake .") {
		t.Errorf("the file API was asked for a package that installs a program:\n%s", lines)
	}
}

// editTarget returns the real ARGPARSE_TESTS target object changed by edit.
func editTarget(t *testing.T, files map[string][]byte, edit func(tg map[string]any)) []byte {
	t.Helper()
	var tg map[string]any
	if err := json.Unmarshal(files[replyFile(t, files, "target-ARGPARSE_TESTS-")], &tg); err != nil {
		t.Fatal(err)
	}
	edit(tg)
	b, err := json.Marshal(tg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// setSource replaces the path of the target's first compiled source.
func setSource(tg map[string]any, p string, generated bool) {
	for _, s := range tg["sources"].([]any) {
		src := s.(map[string]any)
		if _, ok := src["compileGroupIndex"]; ok {
			src["path"] = p
			if generated {
				src["isGenerated"] = true
			}
			return
		}
	}
}

// TestTestTargetRefusals: the real target is a test program; changed the way a
// hostile or unusual build could, it is not.
func TestTestTargetRefusals(t *testing.T) {
	files := realReply(t)
	cm, err := parseCodemodel(files[replyFile(t, files, "codemodel-v2-")], argRepo)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		edit func(tg map[string]any)
		want []string
	}{
		{"the real target", func(map[string]any) {}, []string{argProgram}},
		{"a header listed outside the test directory", func(tg map[string]any) {
			tg["sources"] = append(tg["sources"].([]any), map[string]any{"path": "include/argparse/argparse.hpp", "sourceGroupIndex": 1})
		}, []string{argProgram}},
		{"a source outside the test directories", func(tg map[string]any) { setSource(tg, "src/main.cpp", false) }, nil},
		{"a source of a vendored project", func(tg map[string]any) { setSource(tg, "third_party/doctest/test/main.cpp", false) }, nil},
		{"a source escaping the repository", func(tg map[string]any) { setSource(tg, "../../test/main.cpp", false) }, nil},
		{"an absolute source elsewhere", func(tg map[string]any) { setSource(tg, "/usr/src/test/main.cpp", false) }, nil},
		{"a source in the build directory", func(tg map[string]any) { setSource(tg, argBuild+"/test/gen.cpp", false) }, nil},
		{"only generated sources", func(tg map[string]any) {
			var srcs []any
			for _, s := range tg["sources"].([]any) {
				src := s.(map[string]any)
				src["isGenerated"] = true
				src["path"] = argBuild + "/test/" + path.Base(src["path"].(string))
				srcs = append(srcs, src)
			}
			tg["sources"] = srcs
		}, nil},
		{"an artifact escaping the repository", func(tg map[string]any) {
			tg["artifacts"] = []any{map[string]any{"path": "../../../usr/bin/sh"}}
		}, nil},
		{"an artifact in the stage", func(tg map[string]any) {
			tg["artifacts"] = []any{map[string]any{"path": "../.atesor-stage/usr/local/bin/x"}}
		}, nil},
		{"an artifact with a newline", func(tg map[string]any) {
			tg["artifacts"] = []any{map[string]any{"path": "test/tests\n/workspace/libargparse/x"}}
		}, nil},
		{"a library", func(tg map[string]any) { tg["type"] = "STATIC_LIBRARY" }, nil},
		{"an imported executable", func(tg map[string]any) { tg["imported"] = true }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := targetTestPrograms(editTarget(t, files, tt.edit), cm, argRepo)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestCMakeAPIReplyRefusals: a reply that points outside its directory or the
// repository, a reply file that is not a regular file, too large a reply, and a build
// directory the source shipped give no test program.
func TestCMakeAPIReplyRefusals(t *testing.T) {
	real := realReply(t)
	index, cmName := replyFile(t, real, "index-"), replyFile(t, real, "codemodel-v2-")
	with := func(name string, edit func(doc map[string]any)) map[string][]byte {
		files := map[string][]byte{}
		for n, b := range real {
			files[n] = b
		}
		var doc map[string]any
		if err := json.Unmarshal(files[name], &doc); err != nil {
			t.Fatal(err)
		}
		edit(doc)
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
		return files
	}
	tests := []struct {
		name  string
		files map[string][]byte
		setup func(t *testing.T, sb *sandboxtest.Sandbox)
		host  func(t *testing.T, dir string)
		why   string
	}{
		{name: "an index naming a codemodel outside the reply", files: with(index, func(doc map[string]any) {
			doc["reply"].(map[string]any)["codemodel-v2"].(map[string]any)["jsonFile"] = "../../../../CMakeCache.json"
		}), why: "names no codemodel file"},
		{name: "a codemodel whose source is outside the repository", files: with(cmName, func(doc map[string]any) {
			doc["paths"].(map[string]any)["source"] = "/usr/src"
		}), why: "outside the repository"},
		{name: "a codemodel of another build directory", files: with(cmName, func(doc map[string]any) {
			doc["paths"].(map[string]any)["build"] = argRepo + "/other"
		}), why: "is not the one queried"},
		{name: "targets named outside the reply", files: with(cmName, func(doc map[string]any) {
			for _, c := range doc["configurations"].([]any) {
				for _, tg := range c.(map[string]any)["targets"].([]any) {
					tg.(map[string]any)["jsonFile"] = "../" + tg.(map[string]any)["jsonFile"].(string)
				}
			}
		}), why: ""},
		{name: "a reply file that is a FIFO", files: real, setup: func(t *testing.T, sb *sandboxtest.Sandbox) {
			p := filepath.Join(sb.Root(), filepath.FromSlash(replyDir), cmName)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip("no FIFOs here:", err)
			}
		}, why: "read the file API reply"},
		{name: "a reply file larger than its bound", files: real, setup: func(t *testing.T, sb *sandboxtest.Sandbox) {
			p := filepath.Join(sb.Root(), filepath.FromSlash(replyDir), cmName)
			if err := os.Truncate(p, replyBound.Max+1); err != nil {
				t.Fatal(err)
			}
		}, why: "read the file API reply"},
		{name: "a build directory the source shipped", files: real, host: func(t *testing.T, dir string) {
			if err := os.MkdirAll(filepath.Join(dir, "build"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "build", "CMakeCache.txt"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, why: "came with the source"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := apiSandbox(t, tt.files)
			if tt.setup != nil {
				tt.setup(t, sb)
			}
			host := ""
			if tt.host != nil {
				host = t.TempDir()
				tt.host(t, host)
			}
			got, why := cmakeAPIPrograms(context.Background(), sb, readVia(sb), argRepo, host)
			if got != nil || !strings.Contains(why, tt.why) {
				t.Errorf("programs %v, why %q; want none because %q", got, why, tt.why)
			}
		})
	}
}

// TestCMakeAPIReplyTotalBound: reply files each within their bound stop the reading
// once together they exceed the total.
func TestCMakeAPIReplyTotalBound(t *testing.T) {
	big := make([]byte, replyBound.Max-1)
	reads := 0
	r := &replyReader{ctx: context.Background(), dir: replyDir, read: func(_ context.Context, p string, b sandbox.Bound) ([]byte, error) {
		reads++
		return big, nil
	}}
	var err error
	for i := 0; i < 10 && err == nil; i++ {
		_, err = r.file("target-x.json")
	}
	if err == nil || !strings.Contains(err.Error(), "larger than") || reads != int(maxReplyTotal/(replyBound.Max-1))+1 {
		t.Errorf("after %d reads: %v", reads, err)
	}
	// A read error is wrapped.
	r = &replyReader{ctx: context.Background(), dir: replyDir, read: func(context.Context, string, sandbox.Bound) ([]byte, error) {
		return nil, sandbox.ErrNotRegular
	}}
	if _, err := r.file("index-1.json"); !errors.Is(err, sandbox.ErrNotRegular) {
		t.Errorf("read error %v", err)
	}
}

func TestLatestIndex(t *testing.T) {
	out := "./.cmake/api/v1/reply/index-2026-12-01T22-40-01-0001.json\n./.cmake/api/v1/reply/index-2026-12-01T22-45-09-0042.json\n" +
		"./.cmake/api/v1/reply/index-9999\nnot an index.json\n./.cmake/api/v1/reply/index-zz/../x.json\n"
	if got := latestIndex(out); got != "index-2026-12-01T22-45-09-0042.json" {
		t.Errorf("latest %q", got)
	}
	if got := latestIndex(""); got != "" {
		t.Errorf("no index gave %q", got)
	}
}

// FuzzCMakeFileAPI: whatever the reply says, a test program is a clean path below
// the repository, outside the stage, with no control character.
func FuzzCMakeFileAPI(f *testing.F) {
	files := realReply(f)
	f.Add(files[replyFile(f, files, "index-")], files[replyFile(f, files, "codemodel-v2-")], files[replyFile(f, files, "target-ARGPARSE_TESTS-")])
	f.Add([]byte(`{"reply":{"codemodel-v2":{"kind":"codemodel","jsonFile":"../x.json"}}}`),
		[]byte(`{"paths":{"source":"/workspace/libargparse/..","build":"/workspace/libargparse/build"}}`),
		[]byte(`{"type":"EXECUTABLE","artifacts":[{"path":"/workspace/libargparse/../x"}],"sources":[{"path":"test/a.cpp","compileGroupIndex":0}]}`))
	f.Fuzz(func(t *testing.T, index, cmData, target []byte) {
		if name, err := parseReplyIndex(index); err == nil && (strings.Contains(name, "/") || !replyName.MatchString(name)) {
			t.Fatalf("index names %q", name)
		}
		cm, err := parseCodemodel(cmData, argRepo)
		if err != nil {
			return
		}
		for _, tf := range cm.targets {
			if strings.Contains(tf, "/") {
				t.Fatalf("target file %q", tf)
			}
		}
		for _, p := range targetTestPrograms(target, cm, argRepo) {
			if path.Clean(p) != p || !strings.HasPrefix(p, argRepo+"/") || InStage(argRepo, p) || strings.ContainsAny(p, "\n\r\x00") {
				t.Fatalf("test program %q", p)
			}
		}
	})
}

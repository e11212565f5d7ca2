package batch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/internal/atomicfile"
	"github.com/eclipse-atesor/atesor-go/internal/ctxio"
	"github.com/eclipse-atesor/atesor-go/internal/filelock"
	"github.com/eclipse-atesor/atesor-go/knowledge/debsrc"
	"github.com/eclipse-atesor/atesor-go/memory"
)

// fakePorts answers ports by package name and counts them.
type fakePorts struct {
	mu    sync.Mutex
	calls map[string]int
	reqs  map[string]atesor.Request
	block map[string]chan struct{} // a port of this name waits for ctx
}

func newFake() *fakePorts {
	return &fakePorts{calls: map[string]int{}, reqs: map[string]atesor.Request{}, block: map[string]chan struct{}{}}
}

func (f *fakePorts) port(ctx context.Context, req atesor.Request) (*atesor.Result, error) {
	f.mu.Lock()
	f.calls[req.Name]++
	f.reqs[req.Name] = req
	started, blocks := f.block[req.Name]
	f.mu.Unlock()
	if blocks {
		close(started)
		<-ctx.Done()
		return nil, fmt.Errorf("port %s: %w", req.Name, ctx.Err())
	}
	if err := os.WriteFile(filepath.Join(req.OutputDir, req.Name+"_report.json"), []byte(`{"package":"`+req.Name+`"}`), 0o644); err != nil {
		return nil, err
	}
	res := &atesor.Result{Package: req.Name, Attempts: 1, Usage: atesor.Usage{Calls: 2, CostUSD: 0.0125}}
	switch {
	case strings.HasPrefix(req.Name, "ok"):
		res.Status, res.Verified = atesor.StatusVerified, true
		res.Artifacts = []atesor.Artifact{{Path: "/workspace/" + req.Name + "/build/" + req.Name, Role: atesor.ArtifactPrimary}}
	case strings.HasPrefix(req.Name, "cached"):
		res.Status, res.Verified, res.Usage = atesor.StatusCached, true, atesor.Usage{}
	case strings.HasPrefix(req.Name, "broken"):
		res.Status, res.FailureClass, res.Reason = atesor.StatusEscalated, atesor.FailureBuild, "the fixer ran out of ideas <b>"
		res.State = &atesor.State{ErrorPart: atesor.ErrorPart{LastError: &atesor.ErrorRecord{Node: "build",
			Message: "src/" + req.Name + ".c:12:3: error: 'uint128" + req.Name + "_t' undeclared\nin function main"}}}
		res.Files = map[string]string{atesor.FileBuildLog: filepath.Join(req.OutputDir, req.Name+"_build.log")}
	case strings.HasPrefix(req.Name, "setup"):
		return nil, errors.New("the sandbox could not start")
	}
	return res, nil
}

// fakeResolver resolves debian:NAME to a file named after it, or fails for "nosuch".
type fakeResolver struct{ dir string }

func (r fakeResolver) Resolve(_ context.Context, spec string) (*debsrc.Resolved, error) {
	name, _, err := debsrc.ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	if name == "nosuch" {
		return nil, &debsrc.UnknownPackageError{Name: name, Suite: "trixie", Suggestions: []string{"nosh"}}
	}
	return &debsrc.Resolved{Tarball: filepath.Join(r.dir, name+".tar.gz"),
		Origin: atesor.DistroSource{Distro: "debian", Package: name, Version: "1.0-1", Suite: "trixie", Component: "main"}}, nil
}

func items(t *testing.T, sources ...string) []Item {
	t.Helper()
	its, err := Items(sources)
	if err != nil {
		t.Fatal(err)
	}
	return its
}

func TestRun(t *testing.T) {
	out := t.TempDir()
	f := newFake()
	var progress []Progress
	cfg := Config{Port: f.port, OutDir: out, Jobs: 2, Resolver: fakeResolver{"/cache"},
		Request:  atesor.Request{Platform: "debian", MaxAttempts: 3},
		Progress: func(p Progress) { progress = append(progress, p) }, Shard: Shard{1, 2}}
	list := items(t, "/src/ok-a", "debian:ok-deb", "/src/cached-b", "/src/broken-c", "/src/setup-d", "debian:nosuch")
	s, err := Run(context.Background(), cfg, list)
	if err != nil {
		t.Fatal(err)
	}
	want := &Summary{Shards: []string{"1/2"}, Total: 6, Finished: 6, Succeeded: 3, Failed: 3, CacheHits: 1,
		ByStatus: map[atesor.Status]int{"verified": 2, "cached": 1, "escalated": 1, "failed": 2},
		ByClass:  map[string]int{"none": 3, "build": 1, "setup": 2}, ModelCalls: 6, CostUSD: 0.0375,
		FailureGroups: []FailureGroup{
			{Class: "build", Error: "<path>:N:N: error: 'uintN<pkg>_t' undeclared", Example: "src/broken-c.c:12:3: error: 'uint128broken-c_t' undeclared",
				Count: 1, Packages: []string{"broken-c"}},
			{Class: "setup", Error: "debsrc: source package <pkg> is not in the trixie Sources index; did you mean nosh?",
				Example: "debsrc: source package nosuch is not in the trixie Sources index; did you mean nosh?", Count: 1, Packages: []string{"nosuch"}},
			{Class: "setup", Error: "the sandbox could not start", Example: "the sandbox could not start", Count: 1, Packages: []string{"setup-d"}},
		}}
	opts := cmp.FilterPath(func(p cmp.Path) bool {
		n := p.Last().String()
		return n == ".Packages" || n == ".ElapsedSeconds" || n == ".PortSeconds" || n == ".Updated"
	}, cmp.Ignore())
	if d := cmp.Diff(want, s, opts); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	if len(progress) != 6 || progress[5].Done != 6 || progress[5].Total != 6 || progress[5].Succeeded != 3 {
		t.Errorf("progress: %+v", progress)
	}
	// The request carries the template, the package's directory and the resolution.
	req := f.reqs["ok-deb"]
	if req.Source != "/cache/ok-deb.tar.gz" || req.Origin == nil || req.Origin.Package != "ok-deb" ||
		req.OutputDir != filepath.Join(out, "ok-deb") || req.MaxAttempts != 3 || req.Platform != "debian" {
		t.Errorf("request: %+v", req)
	}
	recs, err := ReadResults(out)
	if err != nil {
		t.Fatal(err)
	}
	if r := recs["nosuch"]; r.Status != atesor.StatusFailed || !strings.Contains(r.Error, "did you mean nosh") {
		t.Errorf("unknown Debian name: %+v", r)
	}
	if r := recs["broken-c"]; r.BuildLog != "broken-c/broken-c_build.log" || !strings.HasPrefix(r.FirstError, "src/broken-c.c:12:3: error") || strings.Contains(r.FirstError, "\n") {
		t.Errorf("failed record: build log %q, first error %q", r.BuildLog, r.FirstError)
	}
	if r := recs["ok-deb"]; r.Origin == nil || r.Origin.Version != "1.0-1" || r.Shard != "1/2" {
		t.Errorf("Debian record: %+v", r)
	}
	for _, name := range []string{SummaryJSON, SummaryMD, DashboardHTML} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, SummaryMD))
	if !strings.Contains(string(md), "| broken-c | escalated | build |") {
		t.Errorf("summary.md:\n%s", md)
	}

	// A rerun skips every finished package; --force runs them again.
	s2, err := Run(context.Background(), cfg, list)
	if err != nil || s2.Finished != 6 {
		t.Fatalf("rerun: %v %+v", err, s2)
	}
	if f.calls["ok-a"] != 1 {
		t.Errorf("a rerun ported ok-a again (%d calls)", f.calls["ok-a"])
	}
	cfg.Rerun = true
	if _, err := Run(context.Background(), cfg, list[:1]); err != nil {
		t.Fatal(err)
	}
	if f.calls["ok-a"] != 2 {
		t.Errorf("--force did not port ok-a again (%d calls)", f.calls["ok-a"])
	}
}

// TestRunExpectedArtifacts checks that a record keeps the port's artifacts and, for a
// verified port, the expected ones it lacks.
func TestRunExpectedArtifacts(t *testing.T) {
	out := t.TempDir()
	list := []Item{
		{Source: "/src/ok-all", Name: "ok-all", Expected: []string{"ok-all"}},
		{Source: "/src/ok-part", Name: "ok-part", Expected: []string{"build/ok-part", "libok.so.*"}},
		{Source: "/src/broken-x", Name: "broken-x", Expected: []string{"x"}},
	}
	s, err := Run(context.Background(), Config{Port: newFake().port, OutDir: out}, list)
	if err != nil {
		t.Fatal(err)
	}
	if s.ExpectedChecked != 2 || s.ExpectedMet != 1 {
		t.Errorf("checked %d met %d, want 2 and 1", s.ExpectedChecked, s.ExpectedMet)
	}
	if d := cmp.Diff(map[string][]string{"ok-part": {"libok.so.*"}}, s.MissingExpected); d != "" {
		t.Errorf("missing (-want +got):\n%s", d)
	}
	recs, err := ReadResults(out)
	if err != nil {
		t.Fatal(err)
	}
	if r := recs["ok-all"]; !cmp.Equal(r.Artifacts, []string{"/workspace/ok-all/build/ok-all"}) || r.MissingExpected != nil {
		t.Errorf("ok-all record: %+v", r)
	}
	if r := recs["broken-x"]; r.ExpectedChecked() || r.MissingExpected != nil || !cmp.Equal(r.Expected, []string{"x"}) {
		t.Errorf("a failed port was judged: %+v", r)
	}
}

func TestRunInterrupted(t *testing.T) {
	out := t.TempDir()
	f := newFake()
	started := make(chan struct{})
	f.block["ok-slow"] = started
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var learned atomic.Bool
	cfg := Config{Port: f.port, OutDir: out, Jobs: 1,
		Learned: func(ctx context.Context, dir string) error {
			if ctx.Err() != nil {
				t.Error("Learned got an ended context")
			}
			learned.Store(true)
			return nil
		}}
	go func() {
		<-started
		cancel()
	}()
	s, err := Run(ctx, cfg, items(t, "/src/ok-first", "/src/ok-slow", "/src/ok-never"))
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("err = %v, want ErrStopped", err)
	}
	if !s.Interrupted || s.Finished != 1 || !cmp.Equal(s.Pending, []string{"ok-never", "ok-slow"}) {
		t.Errorf("summary: %+v", s)
	}
	saved, err := ReadSummary(out)
	if err != nil || !saved.Interrupted || len(saved.Pending) != 2 {
		t.Errorf("saved summary: %+v %v", saved, err)
	}
	if !learned.Load() {
		t.Error("an interrupted batch did not keep what it learned")
	}
	// Resume: only the two pending packages run.
	delete(f.block, "ok-slow")
	s, err = Run(context.Background(), cfg, items(t, "/src/ok-first", "/src/ok-slow", "/src/ok-never"))
	if err != nil || s.Finished != 3 || s.Interrupted || f.calls["ok-first"] != 1 || f.calls["ok-never"] != 1 {
		t.Errorf("resume: %v %+v %v", err, s, f.calls)
	}
}

func TestReadResultsTruncatedLine(t *testing.T) {
	dir := t.TempDir()
	good := `{"name":"a","status":"verified"}` + "\n"
	os.WriteFile(filepath.Join(dir, ResultsFile), []byte(good+`{"name":"b","sta`), 0o644)
	recs, err := ReadResults(dir)
	if err != nil || len(recs) != 1 {
		t.Errorf("truncated last line: %v %v", recs, err)
	}
	os.WriteFile(filepath.Join(dir, ResultsFile), []byte("garbage\n"+good+"garbage\n"), 0o644)
	if _, err := ReadResults(dir); err == nil {
		t.Error("a broken line in the middle was accepted")
	}
}

func TestMerge(t *testing.T) {
	root := t.TempDir()
	list := items(t, "/src/ok-a", "/src/broken-b", "/src/cached-c", "/src/ok-d", "/src/ok-e")
	var shards []string
	for i := range 2 {
		dir := filepath.Join(root, fmt.Sprintf("shard-%d", i))
		shards = append(shards, dir)
		sh := Shard{i, 2}
		cfg := Config{Port: newFake().port, OutDir: dir, Shard: sh,
			Learned: func(_ context.Context, d string) error { return writeLearned(t, d, i) }}
		if _, err := Run(context.Background(), cfg, sh.Select(list)); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(root, "merged")
	s, err := Merge(context.Background(), dst, shards...)
	if err != nil {
		t.Fatal(err)
	}
	if s.Total != 5 || s.Finished != 5 || s.Succeeded != 4 || s.Failed != 1 || s.CacheHits != 1 ||
		!cmp.Equal(s.Shards, []string{"0/2", "1/2"}) || s.ByClass["build"] != 1 {
		t.Errorf("merged summary: %+v", s)
	}
	for _, r := range s.Packages {
		if _, err := os.Stat(filepath.Join(dst, r.Dir, r.Name+"_report.json")); err != nil {
			t.Errorf("package outputs not merged: %v", err)
		}
	}
	cache, err := os.ReadFile(filepath.Join(dst, LearnedDir, "recipe_cache.json"))
	if err != nil || !strings.Contains(string(cache), "pkg-0") || !strings.Contains(string(cache), "pkg-1") {
		t.Errorf("recipe caches not merged: %s %v", cache, err)
	}
	before := snapshot(t, dst)
	if _, err := Merge(context.Background(), dst, shards...); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, snapshot(t, dst)); d != "" {
		t.Errorf("a second merge changed files (-first +second):\n%s", d)
	}
	if _, err := Merge(context.Background(), shards[0], shards...); err == nil {
		t.Error("merging into a shard directory was accepted")
	}
	if _, err := Merge(context.Background(), dst, t.TempDir()); err == nil {
		t.Error("merging a directory without a summary was accepted")
	}
}

// writeLearned saves a recipe in a state home of shard i and exports the home's
// examples and recipe cache into dir, as the CLI's batch does.
func writeLearned(t *testing.T, dir string, i int) error {
	t.Helper()
	home := t.TempDir()
	store, err := memory.Open(memory.ExamplesDir(home), memory.WithRecipeCache(memory.RecipeCachePath(home)))
	if err != nil {
		return err
	}
	err = store.SaveRecipe(context.Background(), atesor.CachedRecipe{Package: fmt.Sprintf("pkg-%d", i), Sandbox: "debian-riscv64",
		Verified: true, LastBuilt: time.Date(2026, 1, i+1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		return err
	}
	return ExportLearned(context.Background(), memory.ExamplesDir(home), memory.RecipeCachePath(home), dir)
}

// snapshot reads every file under dir but lock files.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".lock") {
			b, _ := os.ReadFile(p)
			out[strings.TrimPrefix(p, dir)] = string(bytes.TrimSpace(b))
		}
		return nil
	})
	return out
}

// A merge takes its context: one whose context is done stops at the first package
// directory it would copy, and one queued behind a held lock of a learned file gives
// up at its deadline instead of waiting for the holder.
func TestMergeIsInterruptible(t *testing.T) {
	root := t.TempDir()
	list := items(t, "/src/ok-a", "/src/ok-d")
	var shards []string
	for i := range 2 {
		dir := filepath.Join(root, fmt.Sprintf("shard-%d", i))
		shards = append(shards, dir)
		sh := Shard{i, 2}
		cfg := Config{Port: newFake().port, OutDir: dir, Shard: sh,
			Learned: func(_ context.Context, d string) error { return writeLearned(t, d, i) }}
		if _, err := Run(context.Background(), cfg, sh.Select(list)); err != nil {
			t.Fatal(err)
		}
	}

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	dst := filepath.Join(root, "merged")
	if _, err := Merge(cancelled, dst, shards...); !errors.Is(err, context.Canceled) {
		t.Fatalf("Merge with a cancelled context: %v, want context.Canceled", err)
	}
	if _, err := os.Stat(filepath.Join(dst, SummaryJSON)); err == nil {
		t.Error("an interrupted merge wrote a summary")
	}

	// Another process (here: this one, through the same lock file) holds the merged
	// recipe cache's lock.
	dst = filepath.Join(root, "merged-locked")
	if err := os.MkdirAll(filepath.Join(dst, LearnedDir), 0o755); err != nil {
		t.Fatal(err)
	}
	held, err := filelock.Acquire(context.Background(), filepath.Join(dst, LearnedDir, memory.RecipeCacheFile)+".lock")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	ctx, stop := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer stop()
	start := time.Now()
	if _, err := Merge(ctx, dst, shards...); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Merge behind a held lock: %v, want the deadline", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Merge gave up %s after a deadline of 200ms", d)
	}
}

func TestCopyTreeStopsWithTheContext(t *testing.T) {
	src := t.TempDir()
	for i := range 3 {
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("f%d", i)), []byte("data"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dst := filepath.Join(t.TempDir(), "copy")
	if err := copyTree(ctx, src, dst); !errors.Is(err, context.Canceled) {
		t.Fatalf("copyTree with a cancelled context: %v", err)
	}
	if entries, _ := os.ReadDir(dst); len(entries) != 0 {
		t.Errorf("files copied after the context ended: %v", entries)
	}
	// A large file is cut short between reads, and no part of it is left.
	big := filepath.Join(src, "big")
	if err := os.WriteFile(big, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	r := &cancelAfter{r: bytes.NewReader(make([]byte, 1<<20)), n: 1, cancel: cancel}
	out := filepath.Join(t.TempDir(), "big")
	f, err := atomicfile.Create(out, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	if _, err := io.Copy(f, ctxio.Reader(ctx, r)); !errors.Is(err, context.Canceled) {
		t.Fatalf("copy of a large file: %v, want it cancelled between reads", err)
	}
}

// cancelAfter cancels its context after n reads.
type cancelAfter struct {
	r      io.Reader
	n      int
	cancel func()
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	if c.n--; c.n < 0 {
		c.cancel()
	}
	return c.r.Read(p[:min(len(p), 4096)])
}

package graph

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/fixapply"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/memory"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
	"github.com/eclipse-atesor/atesor-go/recipe"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// harness is a pipeline over the fake sandbox, a real memory store in a temp dir and,
// optionally, the fake provider.
type harness struct {
	t        *testing.T
	platform atesor.Platform
	sb       *sandboxtest.Sandbox
	mem      *memory.Store
	prov     *fake.Provider
	out      string
	src      string
	events   []atesor.Event
}

func newHarness(t *testing.T, withProvider bool) *harness {
	t.Helper()
	p, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, platform: p, sb: sandboxtest.New(t, p), out: t.TempDir()}
	home := t.TempDir()
	h.mem, err = memory.Open(filepath.Join(home, "examples"), memory.WithRecipeCache(filepath.Join(home, "recipe_cache.json")), memory.WithSandbox(p.SandboxKey()))
	if err != nil {
		t.Fatal(err)
	}
	if withProvider {
		h.prov = fake.New()
	}
	h.src = filepath.Join(t.TempDir(), "vecsum")
	copyDir(t, "../testdata/packages/vecsum", h.src)
	return h
}

func (h *harness) pipeline(opts ...Option) *Pipeline {
	h.t.Helper()
	cfg := Config{Sandbox: h.sb, Memory: h.mem, OutputDir: h.out, RunsDir: filepath.Join(h.out, "runs")}
	if h.prov != nil {
		cfg.Provider = h.prov
		// These tests are about the model's fixes; scripted_test.go tests the rules.
		opts = append(opts, WithoutScriptedRepairs())
	}
	opts = append(opts, WithEvents(func(e atesor.Event) { h.events = append(h.events, e) }))
	p, err := New(cfg, opts...)
	if err != nil {
		h.t.Fatal(err)
	}
	return p
}

func (h *harness) run(opts ...Option) *atesor.Result {
	h.t.Helper()
	res, err := h.pipeline(opts...).Run(context.Background(), atesor.Request{Source: h.src, TestTimeout: time.Minute})
	if err != nil {
		h.t.Fatal(err)
	}
	return res
}

// builds scripts "make" to leave riscv64 artifacts in the repository.
func (h *harness) builds(times int, program string) {
	h.sb.Add(sandboxtest.Rule{
		Match: func(c atesor.Command) bool {
			return strings.HasPrefix(c.Line, "make") && !strings.Contains(c.Line, "check")
		},
		Times: times,
		Do: func(sb *sandboxtest.Sandbox, _ atesor.Command) {
			copyFile(h.t, "../testdata/elf/"+program, filepath.Join(sb.Root(), "workspace/vecsum/vecsum"))
			copyFile(h.t, "../testdata/elf/libriscv64-math.a", filepath.Join(sb.Root(), "workspace/vecsum/libvecsum.a"))
		},
	})
}

func (h *harness) failsOnce(output string) {
	h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return strings.HasPrefix(c.Line, "make") }, Times: 1,
		Result: sandboxtest.Fail(2, output)})
}

func (h *harness) report() Report {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.out, "vecsum_report.json"))
	if err != nil {
		h.t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		h.t.Fatal(err)
	}
	return r
}

func TestOfflinePortVerifies(t *testing.T) {
	h := newHarness(t, false)
	h.builds(0, "riscv64-glibc-hello")
	res := h.run()
	if res.Status != atesor.StatusVerified || !res.Verified {
		t.Fatalf("status = %s (%s), want verified", res.Status, res.Reason)
	}
	rep := h.report()
	if rep.Tests == nil || !rep.Tests.Passed || rep.Tests.Commands[0] != "make check" {
		t.Errorf("tests = %+v", rep.Tests)
	}
	if rep.LLM.Calls != 0 || !rep.Offline {
		t.Errorf("offline run made model calls: %+v", rep.LLM)
	}
	md, err := os.ReadFile(filepath.Join(h.out, "vecsum_recipe.md"))
	if err != nil || !recipe.HasSections(string(md)) {
		t.Fatalf("recipe: %v\n%s", err, md)
	}
	if _, err := os.Stat(filepath.Join(h.out, "vecsum_artifacts", "vecsum")); err != nil {
		t.Errorf("primary artifact not copied out: %v", err)
	}
	for _, f := range []string{"vecsum_state.json", "agent_vecsum.log"} {
		if _, err := os.Stat(filepath.Join(h.out, f)); err != nil {
			t.Errorf("missing output %s", f)
		}
	}
	exs, _ := h.mem.Relevant(context.Background(), atesor.AgentScout, atesor.Query{Sandbox: "debian-riscv64", BuildSystem: "make"}, 100)
	learned := false
	for _, e := range exs {
		learned = learned || e.RepoName == "vecsum"
	}
	if !learned {
		t.Error("a verified port did not learn a scout example")
	}

	// The second run is a cache hit: no sandbox command, no model.
	before := len(h.sb.Lines())
	res = h.run()
	if res.Status != atesor.StatusCached {
		t.Fatalf("second run status = %s, want cached", res.Status)
	}
	if n := len(h.sb.Lines()); n != before {
		t.Errorf("cache hit ran %d sandbox commands", n-before)
	}
}

func TestNonRISCVArtifactIsNotVerified(t *testing.T) {
	h := newHarness(t, false)
	h.builds(0, "x86_64-hello")
	res := h.run()
	if res.Verified || res.FailureClass != atesor.FailureVerify {
		t.Fatalf("status = %s class %s, want not verified with class verify", res.Status, res.FailureClass)
	}
	recipe, _ := os.ReadFile(filepath.Join(h.out, "vecsum_recipe.md"))
	if !strings.Contains(string(recipe), "NOT VERIFIED") {
		t.Error("the recipe of an unverified run is not marked NOT VERIFIED")
	}
	exs, _ := h.mem.Relevant(context.Background(), atesor.AgentScout, atesor.Query{Sandbox: "debian-riscv64", BuildSystem: "make"}, 100)
	for _, e := range exs {
		if e.RepoName == "vecsum" {
			t.Error("an unverified port learned an example")
		}
	}
}

const m64Error = "cc -O2 -m64 -Wall -c -o vecsum.o vecsum.c\ncc: error: unrecognized command-line option '-m64'\nmake: *** [Makefile:17: vecsum.o] Error 1"

func fixAnswer(cmd string) string {
	return `{"analysis": "the Makefile forces -m64", "strategies": [{"id": 1, "description": "drop -m64", "actions": [{"type": "command", "command": "` + cmd + `"}]}], "recommended_strategy_id": 1}`
}

func TestFixerRepairsBuild(t *testing.T) {
	h := newHarness(t, true)
	h.failsOnce(m64Error)
	h.builds(0, "riscv64-glibc-hello")
	h.prov.Queue(atesor.RoleFixer, fixAnswer(`sed -i 's/ -m64//' Makefile`))
	res := h.run()
	if !res.Verified {
		t.Fatalf("status = %s (%s), want verified", res.Status, res.Reason)
	}
	rep := h.report()
	if len(rep.Fixes) != 1 || !rep.Fixes[0].Success || rep.Attempts != 1 {
		t.Fatalf("fixes = %+v attempts %d", rep.Fixes, rep.Attempts)
	}
	if !slices.Contains(h.sb.Lines(), `sed -i 's/ -m64//' Makefile`) {
		t.Errorf("fix command not run: %q", h.sb.Lines())
	}
	exs, _ := h.mem.Relevant(context.Background(), atesor.AgentFixer, atesor.Query{Sandbox: "debian-riscv64", BuildSystem: "make", ErrorMessage: "cc: error: unrecognized command-line option '-m64'"}, 100)
	var learned *atesor.Example
	for i := range exs {
		if exs[i].RepoName == "vecsum" {
			learned = &exs[i]
		}
	}
	if learned == nil {
		t.Fatal("the successful fix was not learned")
	}
	if want := regexp.QuoteMeta("cc: error: unrecognized command-line option '-m64'"); learned.ErrorPattern != want {
		t.Errorf("error_pattern = %q, want %q", learned.ErrorPattern, want)
	}
}

func TestInvalidFixerAnswersHitTheAttemptLimit(t *testing.T) {
	h := newHarness(t, true)
	h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return strings.HasPrefix(c.Line, "make") }, Result: sandboxtest.Fail(2, m64Error)})
	for i := 0; i < 40; i++ {
		h.prov.Queue(atesor.RoleFixer, fixAnswer("sudo rm -rf /"))
	}
	res := h.pipeline().mustRun(t, atesor.Request{Source: h.src, MaxAttempts: 3})
	if res.Verified || res.FailureClass != atesor.FailureBudget {
		t.Fatalf("status %s class %s (%s), want budget", res.Status, res.FailureClass, res.Reason)
	}
	if res.Attempts != 3 {
		t.Errorf("attempts = %d, want 3", res.Attempts)
	}
	fallbacks, invalid := 0, 0
	for _, e := range h.events {
		if e.Kind == atesor.EventFallback && e.Node == NodeFix && e.Label == "fixer" && e.Role == string(atesor.RoleFixer) {
			fallbacks++
		}
		if e.Kind == atesor.EventInfo && e.Err == "no valid answer from the fixer" {
			invalid++
		}
	}
	if fallbacks == 0 || fallbacks != invalid {
		t.Errorf("the fixer's fallback was reported %d times for %d invalid answers", fallbacks, invalid)
	}
	for _, l := range h.sb.Lines() {
		if strings.Contains(l, "rm -rf") {
			t.Fatalf("a refused command ran: %q", l)
		}
	}
}

func TestInvestigationRound(t *testing.T) {
	h := newHarness(t, true)
	h.failsOnce(m64Error)
	h.builds(0, "riscv64-glibc-hello")
	h.prov.Queue(atesor.RoleFixer, `{"investigate": {"commands": ["grep -n m64 Makefile", "cat /etc/shadow > x"]}}`,
		`{"investigate": {"commands": ["grep -n m64 Makefile"]}}`, fixAnswer(`sed -i 's/ -m64//' Makefile`))
	res := h.run()
	if !res.Verified {
		t.Fatalf("status = %s (%s)", res.Status, res.Reason)
	}
	var inv []atesor.Command
	for _, c := range h.sb.Commands() {
		if strings.HasPrefix(c.Line, "grep") {
			inv = append(inv, c)
		}
	}
	if len(inv) != 1 || inv[0].Network {
		t.Fatalf("investigation commands = %+v, want one without network", inv)
	}
}

func TestCreateFileOutsideRepoIsRefused(t *testing.T) {
	h := newHarness(t, true)
	h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return strings.HasPrefix(c.Line, "make") }, Result: sandboxtest.Fail(2, m64Error)})
	escape := `{"strategies": [{"id": 1, "description": "x", "actions": [{"type": "create_file", "path": "../../etc/profile", "content": "x"}]}], "recommended_strategy_id": 1}`
	for i := 0; i < 20; i++ {
		h.prov.Queue(atesor.RoleFixer, escape)
	}
	res := h.pipeline().mustRun(t, atesor.Request{Source: h.src, MaxAttempts: 2})
	if res.Verified {
		t.Fatal("verified")
	}
	if _, err := os.Stat(filepath.Join(h.sb.Root(), "etc/profile")); err == nil {
		t.Fatal("the escaping file was written")
	}
}

func TestStubFixIsCaughtByVerify(t *testing.T) {
	h := newHarness(t, true)
	h.failsOnce(m64Error)
	h.builds(0, "riscv64-glibc-hello")
	stub := `{"strategies": [{"id": 1, "description": "replace the program", "actions": [{"type": "create_file", "path": "stub.c", "content": "int main(void) { return 0; }\n"}]}], "recommended_strategy_id": 1}`
	h.prov.Queue(atesor.RoleFixer, stub)
	res := h.pipeline().mustRun(t, atesor.Request{Source: h.src, MaxAttempts: 2})
	if res.Verified {
		t.Fatal("a port repaired by a stub verified")
	}
	rep := h.report()
	if len(rep.VerifyProblems) == 0 || !strings.Contains(strings.Join(rep.VerifyProblems, " "), "stub") {
		t.Errorf("verify problems = %q", rep.VerifyProblems)
	}
}

func TestEmulatorFaultIsInfra(t *testing.T) {
	h := newHarness(t, false)
	h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return strings.HasPrefix(c.Line, "make") }, Times: 1,
		Result: atesor.CommandResult{ExitCode: 139, Signal: "SIGSEGV", Output: "cc1: internal compiler error: Segmentation fault"}})
	h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return strings.HasPrefix(c.Line, "make") }, Times: 1,
		Result: atesor.CommandResult{ExitCode: 1, Output: "make: *** [Makefile:17: vecsum.o] Error 1"}})
	res := h.run()
	if res.FailureClass != atesor.FailureInfra {
		t.Fatalf("class = %s (%s), want infra", res.FailureClass, res.Reason)
	}
}

func TestScoutFallbackAndOnlyTests(t *testing.T) {
	h := newHarness(t, true)
	h.builds(0, "riscv64-glibc-hello")
	// The analyst says a custom plan is needed, so the scout plans; its answers hold only
	// tests, so after its retries the fallback plan is used.
	h.prov.Queue(atesor.RolePlanner, `{"purpose": "sums numbers", "build_system": {"type": "make", "confidence": 0.9}, "dependencies": [], "needs_custom_plan": true}`)
	for i := 0; i < 3; i++ {
		h.prov.Queue(atesor.RoleScout, `{"phases": [{"name": "test", "commands": ["make check"]}]}`)
	}
	res := h.run()
	if !res.Verified {
		t.Fatalf("status %s (%s)", res.Status, res.Reason)
	}
	st := h.state()
	if st.PlanSource != "fallback" {
		t.Errorf("plan source = %q, want fallback", st.PlanSource)
	}
	found := false
	for _, e := range st.Errors {
		found = found || strings.HasPrefix(e.Message, "Scout failed")
	}
	if !found {
		t.Error("no Scout failed error recorded")
	}
	if st.Analysis == nil || !st.Analysis.LLMGrounded {
		t.Errorf("analysis = %+v, want the model's", st.Analysis)
	}
}

func TestAnalystFallback(t *testing.T) {
	h := newHarness(t, false)
	h.builds(0, "riscv64-glibc-hello")
	h.run()
	st := h.state()
	if st.Analysis == nil || st.Analysis.LLMGrounded || st.Analysis.BuildSystem != atesor.BuildMake {
		t.Fatalf("analysis = %+v", st.Analysis)
	}
}

func TestReplaceNode(t *testing.T) {
	h := newHarness(t, false)
	h.builds(0, "riscv64-glibc-hello")
	called := false
	res := h.run(WithNode(NodeAnalyst, nodeFunc{NodeAnalyst, func(_ context.Context, s *atesor.State) error {
		called = true
		s.Analysis = &atesor.PackageAnalysis{Purpose: "embedder", BuildSystem: atesor.BuildMake}
		return nil
	}}))
	if !called || !res.Verified {
		t.Fatalf("called=%t status=%s", called, res.Status)
	}
	if _, err := New(Config{Sandbox: h.sb}, WithNode("nope", nodeFunc{})); err == nil {
		t.Error("replacing an unknown node was accepted")
	}
}

func TestResumeContinuesAfterLastNode(t *testing.T) {
	h := newHarness(t, false)
	h.builds(0, "riscv64-glibc-hello")
	// Stop the first run right after the build node.
	ctx, cancel := context.WithCancel(context.Background())
	stopper := nodeFunc{NodeVerify, func(context.Context, *atesor.State) error { cancel(); return context.Canceled }}
	_, err := h.pipeline(WithNode(NodeVerify, stopper)).Run(ctx, atesor.Request{Source: h.src})
	if err == nil {
		t.Fatal("the interrupted run returned no error")
	}
	st := h.state()
	if st.LastNode != NodeBuild || st.NextNode != NodeVerify {
		t.Fatalf("saved state last=%s next=%s", st.LastNode, st.NextNode)
	}
	builds := countPrefix(h.sb.Lines(), "make -j")
	res, err := h.pipeline().Run(context.Background(), atesor.Request{Source: h.src, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Verified {
		t.Fatalf("resumed run status %s (%s)", res.Status, res.Reason)
	}
	if n := countPrefix(h.sb.Lines(), "make -j"); n != builds {
		t.Errorf("resume rebuilt: %d builds before, %d after", builds, n)
	}
}

func (h *harness) state() atesor.State {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.out, "vecsum_state.json"))
	if err != nil {
		h.t.Fatal(err)
	}
	var s atesor.State
	if err := json.Unmarshal(b, &s); err != nil {
		h.t.Fatal(err)
	}
	return s
}

func (p *Pipeline) mustRun(t *testing.T, req atesor.Request) *atesor.Result {
	t.Helper()
	res, err := p.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

type nodeFunc struct {
	name string
	fn   func(context.Context, *atesor.State) error
}

func (n nodeFunc) Name() string                                                 { return n.name }
func (n nodeFunc) Run(ctx context.Context, _ atesor.Run, s *atesor.State) error { return n.fn(ctx, s) }

func countPrefix(lines []string, prefix string) int {
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

func copyDir(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		copyFile(t, p, filepath.Join(dst, rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestPatchActionIsAppliedAndKept(t *testing.T) {
	h := newHarness(t, true)
	h.failsOnce(m64Error)
	h.builds(0, "riscv64-glibc-hello")
	diff := "--- a/Makefile\n+++ b/Makefile\n@@ -4 +4 @@\n-CFLAGS = -O2 -m64 -Wall\n+CFLAGS = -O2 -Wall\n"
	ans, _ := json.Marshal(map[string]any{"strategies": []map[string]any{{"id": "a", "description": "drop -m64",
		"actions": []map[string]any{{"type": "patch", "file": "Makefile", "diff": diff}}}}, "recommended_strategy_id": "a"})
	h.prov.Queue(atesor.RoleFixer, string(ans))
	res := h.run()
	if !res.Verified {
		t.Fatalf("status %s (%s)", res.Status, res.Reason)
	}
	if !slices.Contains(h.sb.Lines(), "patch --batch --forward -p1 -i "+fixapply.PatchFile) {
		t.Errorf("patch not applied: %q", h.sb.Lines())
	}
	got, err := os.ReadFile(filepath.Join(h.out, "vecsum_patches", "001-Makefile.patch"))
	if err != nil || string(got) != diff {
		t.Errorf("patch file = %q, %v", got, err)
	}
	recipe, _ := os.ReadFile(filepath.Join(h.out, "vecsum_recipe.md"))
	if !strings.Contains(string(recipe), "# patch -p1 < vecsum_patches/001-Makefile.patch") {
		t.Errorf("the recipe does not list the patch:\n%s", recipe)
	}
	st := h.state()
	if len(st.FixAttempts) != 1 || !st.FixAttempts[0].Success || st.FixAttempts[0].Files[0] != "Makefile" {
		t.Errorf("fix attempts = %+v", st.FixAttempts)
	}
}

func TestOnlyTheFixBeforeASuccessfulBuildSucceeds(t *testing.T) {
	h := newHarness(t, true)
	h.failsOnce(m64Error)
	h.failsOnce("main.c:3:10: fatal error: zlib.h: No such file or directory")
	h.builds(0, "riscv64-glibc-hello")
	h.prov.Queue(atesor.RoleFixer, fixAnswer(`sed -i 's/ -m64//' Makefile`), fixAnswer("apt-get install -y zlib1g-dev"))
	res := h.run()
	if !res.Verified {
		t.Fatalf("status %s (%s)", res.Status, res.Reason)
	}
	st := h.state()
	if len(st.FixAttempts) != 2 || st.FixAttempts[0].Success || !st.FixAttempts[1].Success {
		t.Fatalf("fix attempts = %+v", st.FixAttempts)
	}
	if st.Attempts != 2 {
		t.Errorf("attempts = %d, want 2", st.Attempts)
	}
}

// promptsOf returns the first user message of every call of a role.
func (h *harness) promptsOf(role atesor.Role) []string {
	var out []string
	for _, c := range h.prov.Calls() {
		if c.Role == role && len(c.Messages) > 0 {
			out = append(out, c.Messages[0].Content)
		}
	}
	return out
}

func TestPromptsCarryTheEvidence(t *testing.T) {
	h := newHarness(t, true)
	h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return strings.HasPrefix(c.Line, "make") }, Times: 1,
		Result: sandboxtest.Fail(2, "E: Unable to locate package libvecsum-dev")})
	h.failsOnce(m64Error)
	h.builds(0, "riscv64-glibc-hello")
	h.prov.Queue(atesor.RolePlanner, `{"purpose": "sums numbers", "build_system": {"type": "make", "confidence": 0.9, "reasoning": "Makefile"}, "dependencies": [], "needs_custom_plan": true}`)
	plan := `{"phases": [{"name": "build", "commands": ["make -j$(nproc)"]}, {"name": "test", "commands": ["make check"]}]}`
	h.prov.Queue(atesor.RoleScout, plan, plan)
	h.prov.Queue(atesor.RoleFixer, fixAnswer(`sed -i 's/ -m64//' Makefile`))
	res := h.run()
	if !res.Verified {
		t.Fatalf("status %s (%s)", res.Status, res.Reason)
	}
	analyst := h.promptsOf(atesor.RolePlanner)
	scout := h.promptsOf(atesor.RoleScout)
	fixer := h.promptsOf(atesor.RoleFixer)
	if len(analyst) != 1 || len(scout) != 2 || len(fixer) != 1 {
		t.Fatalf("calls: analyst %d scout %d fixer %d", len(analyst), len(scout), len(fixer))
	}
	checks := []struct {
		name, prompt string
		want         []string
	}{
		{"analyst", analyst[0], []string{"apt-get", "riscv64-linux-gnu", "Makefile", `"needs_custom_plan"`, "JSON only"}},
		{"scout", scout[0], []string{"apt-get install -y", "__riscv_xlen", "sums numbers", "Makefile", `"phases"`, "Examples of plans"}},
		{"re-scout", scout[1], []string{"Failed command: make -j$(nproc)", "Unable to locate package libvecsum-dev"}},
		{"fixer", fixer[0], []string{"Failed command: make -j$(nproc)", "unrecognized command-line option '-m64'",
			"Completed phases:", "sums numbers", "__riscv_xlen", `"recommended_strategy_id"`, "investigate"}},
	}
	for _, c := range checks {
		for _, w := range c.want {
			if !strings.Contains(c.prompt, w) {
				t.Errorf("%s prompt lacks %q", c.name, w)
			}
		}
	}
	// The scout's test commands were stripped and run by finish.
	st := h.state()
	if len(st.TestCommands) != 1 || st.TestCommands[0] != "make check" || st.Tests == nil {
		t.Errorf("test commands %q, tests %+v", st.TestCommands, st.Tests)
	}
	for _, ph := range st.Plan.Phases {
		if ph.Name == "test" {
			t.Error("a test phase stayed in the plan")
		}
	}
}

func TestResumeAtFixRestoresThePackage(t *testing.T) {
	h := newHarness(t, true)
	h.failsOnce(m64Error)
	ctx, cancel := context.WithCancel(context.Background())
	stopper := nodeFunc{NodeFix, func(context.Context, *atesor.State) error { cancel(); return context.Canceled }}
	if _, err := h.pipeline(WithNode(NodeFix, stopper)).Run(ctx, atesor.Request{Source: h.src}); err == nil {
		t.Fatal("the interrupted run returned no error")
	}
	if st := h.state(); st.NextNode != NodeFix {
		t.Fatalf("saved next node %s, want fix", st.NextNode)
	}
	// A fresh sandbox, as after a crash: the package is not there until it is restored.
	h.sb = sandboxtest.New(t, h.platform)
	h.sb.Add(sandboxtest.Rule{Match: func(c atesor.Command) bool { return strings.HasPrefix(c.Line, "test -d ") }, Times: 1,
		Result: sandboxtest.Fail(1, "")})
	h.builds(0, "riscv64-glibc-hello")
	h.prov.Queue(atesor.RoleFixer, fixAnswer(`sed -i 's/ -m64//' Makefile`))
	res, err := h.pipeline().Run(context.Background(), atesor.Request{Source: h.src, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Verified {
		t.Fatalf("status %s (%s)", res.Status, res.Reason)
	}
	if _, err := os.Stat(filepath.Join(h.sb.Root(), "workspace/vecsum/Makefile")); err != nil {
		t.Errorf("the package was not restored in the fresh sandbox: %v", err)
	}
	lines := h.sb.Lines()
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "test -d ") || lines[1] != `sed -i 's/ -m64//' Makefile` {
		t.Errorf("the resumed run did not restore before fixing: %q", lines)
	}
}

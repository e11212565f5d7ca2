package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/cmd/atesor/internal/mcpserver"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

// mcpClient is an MCP client connected in memory to an `atesor mcp` server made by
// the command's own constructor, with the app's (fake) sandbox and provider.
type mcpClient struct {
	t  *testing.T
	cs *mcp.ClientSession
	mu sync.Mutex
	// progress are the messages of the progress notifications received.
	progress []string
}

func newMCPClient(t *testing.T, a *app, f mcpFlags) *mcpClient {
	t.Helper()
	if f.out == "" {
		f.out = filepath.Join(t.TempDir(), "out")
	}
	if f.maxTimeout == 0 {
		f.maxTimeout = 600
	}
	if f.maxOutput == 0 {
		f.maxOutput = 4096
	}
	srv, err := newMCPServer(a, f)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &mcpClient{t: t}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			c.mu.Lock()
			c.progress = append(c.progress, req.Params.Message)
			c.mu.Unlock()
		}})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.cs = cs
	t.Cleanup(func() {
		cs.Close()
		_ = ss.Wait()
	})
	return c
}

// call calls a tool; a tool error comes back as the result's text with isError.
func (c *mcpClient) call(ctx context.Context, name string, args any, progress bool) (*mcp.CallToolResult, error) {
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	if progress {
		params.SetProgressToken("tok-" + name)
	}
	return c.cs.CallTool(ctx, params)
}

// ok calls a tool that must succeed and decodes its structured content into out.
func (c *mcpClient) ok(name string, args, out any) {
	c.t.Helper()
	res, err := c.call(context.Background(), name, args, false)
	if err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		c.t.Fatalf("%s: tool error: %s", name, resultText(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		c.t.Fatalf("%s: structured content %s: %v", name, b, err)
	}
}

// refused calls a tool that must fail and returns the error text.
func (c *mcpClient) refused(name string, args any) string {
	c.t.Helper()
	res, err := c.call(context.Background(), name, args, false)
	if err != nil {
		return err.Error()
	}
	if !res.IsError {
		c.t.Fatalf("%s %v: want an error, got %s", name, args, resultText(res))
	}
	return resultText(res)
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// helloSandbox is a fake sandbox where make builds the sample package's program and
// library.
func helloSandbox(t *testing.T) *sandboxtest.Sandbox {
	p, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	sb := sandboxtest.New(t, p)
	sb.Add(sandboxtest.BuildRule("make", map[string]sandboxtest.Fixture{
		"hello": sandboxtest.RISCV64Executable, "libhello.a": sandboxtest.RISCV64StaticLibrary,
	}))
	return sb
}

// TestMCPTools: the server lists exactly the six tools, each with an input schema and
// an output schema for its structured content.
func TestMCPTools(t *testing.T) {
	t.Setenv("ATESOR_HOME", t.TempDir())
	c := newMCPClient(t, &app{stdout: os.Stdout, stderr: os.Stderr}, mcpFlags{roots: multiFlag{t.TempDir()}})
	res, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string][2]map[string]any{}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		in, _ := tool.InputSchema.(map[string]any)
		out, _ := tool.OutputSchema.(map[string]any)
		schemas[tool.Name] = [2]map[string]any{in, out}
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"doctor", "port", "recipe", "replay", "report", "sandbox_run"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	for _, tc := range []struct {
		tool     string
		required []string // of the input
		outProps []string
	}{
		{"port", []string{"source"}, []string{"verified", "verdict", "failure_class", "error", "artifacts", "tests", "recipe", "report"}},
		{"replay", []string{"recipe"}, []string{"verdict", "differs", "failure"}},
		{"sandbox_run", []string{"command"}, []string{"exit_code", "output", "output_truncated", "timed_out"}},
		{"report", []string{"package"}, []string{"verified", "artifacts", "error"}},
		{"recipe", []string{"package"}, []string{"recipe", "commands", "verified"}},
		{"doctor", nil, []string{"sections", "problems", "fixes"}},
	} {
		in, out := schemas[tc.tool][0], schemas[tc.tool][1]
		if in == nil || out == nil {
			t.Errorf("%s: input schema %v, output schema %v", tc.tool, in, out)
			continue
		}
		var req []string
		reqs, _ := in["required"].([]any)
		for _, r := range reqs {
			req = append(req, r.(string))
		}
		if !slices.Equal(req, tc.required) && !(len(req) == 0 && len(tc.required) == 0) {
			t.Errorf("%s: required inputs %v, want %v", tc.tool, req, tc.required)
		}
		props, _ := out["properties"].(map[string]any)
		for _, p := range tc.outProps {
			if _, ok := props[p]; !ok {
				t.Errorf("%s: the output schema has no %q: %v", tc.tool, p, out)
			}
		}
	}
	// The port's artifacts carry their ELF facts in the schema.
	art := schemas["port"][1]["properties"].(map[string]any)["artifacts"].(map[string]any)["items"].(map[string]any)["properties"].(map[string]any)
	for _, p := range []string{"machine", "class", "riscv64", "float_abi", "sha256", "interpreter"} {
		if _, ok := art[p]; !ok {
			t.Errorf("artifact schema lacks %q", p)
		}
	}
}

// TestMCPPortReportRecipeReplay ports the sample package through the port tool with the
// fake sandbox, offline: the result is verified with riscv64 artifacts and the recipe
// and report paths, progress came per node; report and recipe then return the same
// port, and replay reproduces it.
func TestMCPPortReportRecipeReplay(t *testing.T) {
	t.Setenv("ATESOR_HOME", t.TempDir())
	var mu sync.Mutex
	var opened []*sandboxtest.Sandbox
	open := func(context.Context, atesor.Platform) (atesor.Sandbox, error) {
		sb := helloSandbox(t)
		mu.Lock()
		opened = append(opened, sb)
		mu.Unlock()
		return sb, nil
	}
	out := filepath.Join(t.TempDir(), "out")
	a := &app{stdout: os.Stdout, stderr: os.Stderr, openSandbox: open, provider: fake.New()}
	c := newMCPClient(t, a, mcpFlags{roots: multiFlag{filepath.Dir(helloSource(t))}, out: out})

	res, err := c.call(context.Background(), "port", map[string]any{"source": "hello", "offline": true}, true)
	if err != nil || res.IsError {
		t.Fatalf("port: %v %s", err, resultText(res))
	}
	var got mcpserver.Outcome
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !got.Verified || got.Status != string(atesor.StatusVerified) || got.Package != "hello" || got.Error != nil ||
		got.Seconds <= 0 || got.Seconds > 60 {
		t.Fatalf("port outcome: %s", b)
	}
	if len(got.Artifacts) == 0 {
		t.Fatalf("no artifacts: %s", b)
	}
	for _, art := range got.Artifacts {
		if !art.RISCV64 || art.Machine != "EM_RISCV" || art.SHA256 == "" || art.Class != "ELFCLASS64" {
			t.Errorf("artifact %+v lacks its ELF facts", art)
		}
	}
	for _, f := range []string{got.Recipe, got.Report} {
		if !strings.HasPrefix(f, out+string(filepath.Separator)) {
			t.Errorf("output %q is not below --out %s", f, out)
		} else if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(got.Verdict, "verified") && !strings.Contains(strings.ToLower(got.Verdict), "verified") {
		t.Errorf("verdict %q", got.Verdict)
	}
	c.mu.Lock()
	progress := slices.Clone(c.progress)
	c.mu.Unlock()
	joined := strings.Join(progress, "\n")
	for _, node := range []string{"init", "analyst", "build", "verify", "finish"} {
		if !strings.Contains(joined, "] "+node) {
			t.Errorf("no progress notification for node %s:\n%s", node, joined)
		}
	}

	var rep mcpserver.Outcome
	c.ok("report", map[string]any{"package": "hello"}, &rep)
	if rep.Status != got.Status || rep.Report != got.Report || len(rep.Artifacts) != len(got.Artifacts) {
		t.Errorf("report %+v, port %+v", rep, got)
	}
	var rec mcpserver.RecipeOutput
	c.ok("recipe", map[string]any{"package": "hello"}, &rec)
	if !rec.Verified || len(rec.Commands) == 0 || rec.Markdown == "" || rec.File != got.Recipe {
		t.Errorf("recipe %+v", rec)
	}
	var rp mcpserver.ReplayOutput
	c.ok("replay", map[string]any{"recipe": got.Recipe, "source": helloSource(t)}, &rp)
	if rp.Verdict != "reproduced" || rp.Compared == 0 || !strings.HasPrefix(rp.OutDir, out) {
		t.Errorf("replay %+v", rp)
	}
	// A replay of the cached recipe by name uses the cached source, below the root.
	c.ok("replay", map[string]any{"recipe": "hello"}, &rp)
	if rp.Verdict != "reproduced" {
		t.Errorf("replay of the cached recipe %+v", rp)
	}
	// A server whose roots do not hold that source refuses to replay it.
	other := newMCPClient(t, a, mcpFlags{roots: multiFlag{t.TempDir()}})
	if got := other.refused("replay", map[string]any{"recipe": "hello"}); !strings.Contains(got, "outside the directories") ||
		!strings.Contains(got, "cached recipe's source") {
		t.Errorf("replay of a cached source outside the roots: %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, sb := range opened {
		if !sb.Closed() {
			t.Errorf("sandbox %d was left open", i)
		}
	}
}

// TestMCPSandboxRun runs one command in the fake sandbox: exit code, signal and a
// bounded output (head and tail) come back; the package source is put in first.
func TestMCPSandboxRun(t *testing.T) {
	t.Setenv("ATESOR_HOME", t.TempDir())
	var sb *sandboxtest.Sandbox
	long := strings.Repeat("a", 3000) + strings.Repeat("z", 3000)
	open := func(context.Context, atesor.Platform) (atesor.Sandbox, error) {
		sb = helloSandbox(t)
		sb.On("uname -m", sandboxtest.OK("riscv64\n"))
		sb.On("cat README.md", sandboxtest.OK(long))
		sb.On("readelf -h hello", atesor.CommandResult{ExitCode: 139, Signal: "SIGSEGV"})
		return sb, nil
	}
	a := &app{stdout: os.Stdout, stderr: os.Stderr, openSandbox: open}
	c := newMCPClient(t, a, mcpFlags{roots: multiFlag{filepath.Dir(helloSource(t))}, maxOutput: 1000})

	var out mcpserver.SandboxRunOutput
	c.ok("sandbox_run", map[string]any{"command": "uname -m"}, &out)
	if out.ExitCode != 0 || out.Output != "riscv64\n" || out.Cut || out.Command != "uname -m" {
		t.Errorf("uname: %+v", out)
	}
	if cmds := sb.Commands(); len(cmds) != 1 || cmds[0].Network || cmds[0].Timeout != mcpserver.DefaultCommandTimeout || cmds[0].Dir != "/root" {
		t.Errorf("the sandbox ran %+v", cmds)
	}
	if !sb.Closed() {
		t.Error("the sandbox was left open")
	}

	c.ok("sandbox_run", map[string]any{"command": "cat README.md", "source": "hello", "timeout_seconds": 30}, &out)
	if !out.Cut || len(out.Output) > 1100 || !strings.HasPrefix(out.Output, "aaa") || !strings.HasSuffix(out.Output, "zzz") ||
		!strings.Contains(out.Output, "bytes left out") {
		t.Errorf("bounded output: cut %t, %d bytes: %q", out.Cut, len(out.Output), out.Output)
	}
	if cmds := sb.Commands(); len(cmds) != 1 || cmds[0].Dir != "/workspace/hello" || cmds[0].Timeout != 30*time.Second {
		t.Errorf("the sandbox ran %+v", cmds)
	}
	if _, err := os.Stat(filepath.Join(sb.Root(), "workspace", "hello", "hello.c")); err != nil {
		t.Errorf("the source was not put in: %v", err)
	}

	c.ok("sandbox_run", map[string]any{"command": "readelf -h hello"}, &out)
	if out.ExitCode != 139 || out.Signal != "SIGSEGV" {
		t.Errorf("signal: %+v", out)
	}
}

// blockingSandbox is the fake sandbox with a build that runs until its context ends,
// as a long real build does; it says when the build started and when it was closed.
type blockingSandbox struct {
	*sandboxtest.Sandbox
	started, closed chan struct{}
	once            sync.Once
}

func (b *blockingSandbox) Exec(ctx context.Context, cmd atesor.Command) (atesor.CommandResult, error) {
	if strings.HasPrefix(cmd.Line, "make") {
		close(b.started)
		<-ctx.Done()
		return atesor.CommandResult{Line: cmd.Line}, ctx.Err()
	}
	return b.Sandbox.Exec(ctx, cmd)
}

func (b *blockingSandbox) Close() error {
	b.once.Do(func() { close(b.closed) })
	return b.Sandbox.Close()
}

// TestMCPPortCancelAndBusy: while a port runs, a second port of the same package is
// refused and says why; cancelling the first call ends the run and closes its sandbox,
// and the package can be ported again afterwards.
func TestMCPPortCancelAndBusy(t *testing.T) {
	t.Setenv("ATESOR_HOME", t.TempDir())
	sb := &blockingSandbox{Sandbox: helloSandbox(t), started: make(chan struct{}), closed: make(chan struct{})}
	first := true
	open := func(context.Context, atesor.Platform) (atesor.Sandbox, error) {
		if first {
			first = false
			return sb, nil
		}
		// A resumed run finds its repository in place (the fake keeps no tree between
		// sandboxes, so it is told where it is).
		next := helloSandbox(t)
		next.SetRepo("hello")
		return next, nil
	}
	a := &app{stdout: os.Stdout, stderr: os.Stderr, openSandbox: open}
	c := newMCPClient(t, a, mcpFlags{roots: multiFlag{filepath.Dir(helloSource(t))}})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.call(ctx, "port", map[string]any{"source": "hello", "offline": true}, true)
		done <- err
	}()
	select {
	case <-sb.started:
	case <-time.After(time.Minute):
		t.Fatal("the build never started")
	}
	busy := c.refused("port", map[string]any{"source": "hello", "offline": true})
	if !strings.Contains(busy, "another port of this package") {
		t.Errorf("second port: %q", busy)
	}
	cancel()
	if err := <-done; err == nil {
		t.Error("the cancelled call returned no error")
	}
	select {
	case <-sb.closed:
	case <-time.After(time.Minute):
		t.Fatal("cancelling the call did not close the run's sandbox")
	}
	// The run has ended and released its lock: resume continues its saved state.
	var got mcpserver.Outcome
	deadline := time.Now().Add(time.Minute)
	for {
		res, err := c.call(context.Background(), "port", map[string]any{"source": "hello", "offline": true, "resume": true}, false)
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError && strings.Contains(resultText(res), "another port") && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond) // the cancelled run is still saving its state
			continue
		}
		if res.IsError {
			t.Fatalf("port resumed after the cancel: %s", resultText(res))
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &got); err != nil || !got.Verified {
			t.Fatalf("port after the cancel: %s (%v)", b, err)
		}
		break
	}
}

// TestMCPDoctor: doctor's findings come back by section, with the header.
func TestMCPDoctor(t *testing.T) {
	t.Setenv("ATESOR_HOME", t.TempDir())
	t.Setenv("LLM_PROVIDER", "none")
	c := newMCPClient(t, &app{stdout: os.Stdout, stderr: os.Stderr}, mcpFlags{roots: multiFlag{t.TempDir()}})
	var out mcpserver.DoctorOutput
	c.ok("doctor", map[string]any{}, &out)
	if !strings.HasPrefix(out.Header, "atesor ") || !strings.Contains(out.Header, "platform debian") {
		t.Errorf("header %q", out.Header)
	}
	var names []string
	for _, s := range out.Sections {
		names = append(names, s.Name)
		for _, f := range s.Findings {
			if f.Level != "ok" && f.Level != "note" && f.Level != "problem" {
				t.Errorf("%s: level %q", s.Name, f.Level)
			}
		}
	}
	joined := strings.Join(names, "\n")
	for _, want := range []string{"Host tools", "binfmt_misc", "Sandboxes", "Model provider"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no section %q in %v", want, names)
		}
	}
	problems := 0
	for _, s := range out.Sections {
		for _, f := range s.Findings {
			if f.Level == "problem" {
				problems++
			}
		}
	}
	if problems != out.Problems {
		t.Errorf("%d problem findings, problems %d", problems, out.Problems)
	}
}

package optimize

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/llm"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
)

func harnessJSON(t *testing.T, code string) string {
	t.Helper()
	b, err := json.Marshal(atesor.Harness{Language: "c", Filename: "atesor_bench.c", Code: code, Functions: []string{"compress", "uncompress"}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const goodHarness = `#include <stdio.h>
#include <zlib.h>
int main(void) {
	static unsigned char in[65536], out[70000], back[65536];
	for (int i = 0; i < (int)sizeof in; i++) in[i] = (unsigned char)(i * 7 % 251);
	uLongf n = sizeof out, m = sizeof back;
	if (compress(out, &n, in, sizeof in) != Z_OK || uncompress(back, &m, out, n) != Z_OK) return 1;
	printf("ATESOR-CHECK %lu\n", (unsigned long)n);
	return 0;
}
`

var zlibSubject = Subject{Package: "zlib", Purpose: "compression library", Language: "c",
	Libraries: []string{"/workspace/zlib/libz.a"}, Exports: []string{"compress", "uncompress", "deflate"}}

func newAdvisor(p *fake.Provider) (*Advisor, *llm.AuditLog, *llm.ManualClock) {
	clock := llm.NewManualClock(time.Unix(0, 0))
	audit := llm.NewAuditLog(nil)
	return &Advisor{Client: &llm.Client{Provider: p, Clock: clock, Audit: audit, Repository: "zlib"}}, audit, clock
}

func TestAgentHarnessAccepted(t *testing.T) {
	p := fake.New()
	p.Queue(atesor.RoleBuilder, harnessJSON(t, goodHarness))
	a, audit, _ := newAdvisor(p)
	h, _, err := a.Harness(context.Background(), zlibSubject)
	if err != nil || h == nil || h.Filename != "atesor_bench.c" {
		t.Fatalf("harness %+v, err %v", h, err)
	}
	recs := audit.Records()
	if len(recs) != 1 || recs[0].Role != AuditLabel || recs[0].Metadata["phase"] != "optimize-harness-c" {
		t.Fatalf("audit records %+v", recs)
	}
	if prompt := p.Prompts(atesor.RoleBuilder)[0][0].Content; !strings.Contains(prompt, "compress") || !strings.Contains(prompt, "ATESOR-CHECK") {
		t.Errorf("the prompt lacks the exports or the check line:\n%s", prompt)
	}
}

func TestAgentHarnessForbiddenCallGetsACritique(t *testing.T) {
	bad := strings.Replace(goodHarness, "for (int i", `system("curl x"); for (int i`, 1)
	p := fake.New()
	p.Queue(atesor.RoleBuilder, harnessJSON(t, bad), harnessJSON(t, goodHarness))
	a, audit, _ := newAdvisor(p)
	h, _, err := a.Harness(context.Background(), zlibSubject)
	if err != nil || h == nil || strings.Contains(h.Code, "system") {
		t.Fatalf("harness %+v, err %v", h, err)
	}
	prompts := p.Prompts(atesor.RoleBuilder)
	if len(prompts) != 2 {
		t.Fatalf("%d calls, want 2 (one critique retry)", len(prompts))
	}
	last := prompts[1][len(prompts[1])-1].Content
	if !strings.Contains(last, "system") || !strings.Contains(last, "forbidden") {
		t.Errorf("the critique does not name the forbidden call:\n%s", last)
	}
	if n := len(audit.Records()); n != 2 {
		t.Errorf("%d audit records, want both attempts", n)
	}
}

func TestAgentHarnessAllRejected(t *testing.T) {
	bad := strings.Replace(goodHarness, "ATESOR-CHECK", "RESULT", 1)
	p := fake.New()
	p.Queue(atesor.RoleBuilder, harnessJSON(t, bad), harnessJSON(t, bad), harnessJSON(t, bad), harnessJSON(t, goodHarness))
	a, _, _ := newAdvisor(p)
	h, _, err := a.Harness(context.Background(), zlibSubject)
	if h != nil || err == nil {
		t.Fatalf("harness %+v, err %v: want none after 2 critique retries", h, err)
	}
	if n := len(p.Prompts(atesor.RoleBuilder)); n != 3 {
		t.Errorf("%d attempts, want 3 (1 + 2 critique retries)", n)
	}
}

// A harness call that times out on every builder model rotates through the pool and
// then asks the planner pool once, with the 240 s harness wall timeout.
func TestAgentHarnessTimeoutRotatesThenAsksTheOtherRole(t *testing.T) {
	p := fake.New(fake.WithPool(atesor.RoleBuilder, "b1", "b2"), fake.WithPool(atesor.RolePlanner, "p1"))
	hang := fake.Reply{Hang: true}
	p.QueueReply(atesor.RoleBuilder, hang, hang)
	p.Queue(atesor.RolePlanner, harnessJSON(t, goodHarness))
	a, _, clock := newAdvisor(p)
	done := advance(p, clock, 2, llm.HarnessWallTimeout)
	h, _, err := a.Harness(context.Background(), zlibSubject)
	<-done
	if err != nil || h == nil {
		t.Fatalf("harness %+v, err %v", h, err)
	}
	var models []string
	for _, c := range p.Calls() {
		models = append(models, c.Model)
	}
	if strings.Join(models, ",") != "b1,b2,p1" {
		t.Errorf("models asked %v, want b1,b2,p1", models)
	}
	if got := clock.Now().Sub(time.Unix(0, 0)); got != 2*llm.HarnessWallTimeout {
		t.Errorf("waited %s, want two harness wall timeouts", got)
	}
}

// A program run that times out on the planner asks the builder pool once; when that
// model times out too, no model is asked again.
func TestAgentProgramRunOtherRoleAskedOnce(t *testing.T) {
	p := fake.New(fake.WithPool(atesor.RolePlanner, "p1"), fake.WithPool(atesor.RoleBuilder, "b1"))
	hang := fake.Reply{Hang: true}
	p.QueueReply(atesor.RolePlanner, hang, fake.Reply{Text: `{"program":"x","command":"./lz4 -b1"}`})
	p.QueueReply(atesor.RoleBuilder, hang, fake.Reply{Text: `{"program":"x","command":"./lz4 -b1"}`})
	a, audit, clock := newAdvisor(p)
	sub := Subject{Package: "lz4", Language: "c", Programs: []string{"/workspace/lz4/lz4"}}
	done := advance(p, clock, 2, a.Client.WallTimeout())
	pr, _, err := a.ProgramRun(context.Background(), sub)
	<-done
	if pr != nil || err == nil {
		t.Fatalf("program run %+v, err %v: want none", pr, err)
	}
	if n := len(p.Calls()); n != 2 {
		t.Errorf("%d calls, want 2 (the planner once, the builder once)", n)
	}
	_ = audit
}

func TestAgentProgramRunValidated(t *testing.T) {
	p := fake.New()
	p.Queue(atesor.RolePlanner,
		`{"program":"lz4","command":"sh -c './lz4 -b1'"}`,
		`{"program":"lz4","command":"./lz4 -b1"}`)
	a, audit, _ := newAdvisor(p)
	pr, _, err := a.ProgramRun(context.Background(), Subject{Package: "lz4", Programs: []string{"/workspace/lz4/lz4"}})
	if err != nil || pr == nil || pr.Command != "./lz4 -b1" {
		t.Fatalf("program run %+v, err %v", pr, err)
	}
	recs := audit.Records()
	if len(recs) != 2 || recs[1].Metadata["phase"] != PhaseProgram || recs[1].Role != AuditLabel {
		t.Errorf("audit %+v", recs)
	}
}

func TestAgentOfflineOrNoFit(t *testing.T) {
	var a *Advisor
	if h, _, err := a.Harness(context.Background(), zlibSubject); h != nil || err != nil {
		t.Errorf("nil agent: %v %v", h, err)
	}
	p := fake.New()
	b, _, _ := newAdvisor(p)
	if h, _, err := b.Harness(context.Background(), Subject{Language: "c"}); h != nil || err != nil || len(p.Calls()) != 0 {
		t.Errorf("no library: %v %v, %d calls", h, err, len(p.Calls()))
	}
	if pr, _, err := b.ProgramRun(context.Background(), Subject{}); pr != nil || err != nil || len(p.Calls()) != 0 {
		t.Errorf("no programs: %v %v", pr, err)
	}
}

// advance lets n calls hang until the clock passes their wall timeout.
func advance(p *fake.Provider, clock *llm.ManualClock, n int, by time.Duration) chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i <= n; i++ {
			p.WaitCalls(i)
			clock.BlockUntil(1)
			clock.Advance(by)
		}
	}()
	return done
}

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/knowledge"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
	"github.com/eclipse-atesor/atesor-go/sandbox/sandboxtest"
)

const (
	cmakeAnswer = `{"purpose": "sums vectors", "language": "C",
		"build_system": {"type": "cmake", "confidence": 0.9, "reasoning": "CMakeLists.txt"},
		"dependencies": [], "needs_custom_plan": false, "complexity": 3}`
	makeAnswer = `Here you go: {"purpose": "sums vectors", "language": "C",
		"build_system": {"type": "make", "confidence": 0.9, "reasoning": "Makefile"},
		"dependencies": [], "needs_custom_plan": false, "complexity": 3}`
)

// The replaced analyst runs in a whole pipeline run (fake provider, fake sandbox): its
// model call goes through the run's Ask, so it is in the audit log and its critique is
// an event, like the built-in analyst's.
func TestAnalystNodeInAPipeline(t *testing.T) {
	tests := []struct {
		name      string
		script    func(p *fake.Provider)
		wantBuild atesor.BuildSystem
		grounded  bool
		rejected  string // the critique of the first answer, "" for none
		fallback  bool
	}{
		{
			name:      "valid answer",
			script:    func(p *fake.Provider) { p.Queue(atesor.RolePlanner, makeAnswer) },
			wantBuild: atesor.BuildMake, grounded: true,
		},
		{
			name:      "disagreeing answer is critiqued, then corrected",
			script:    func(p *fake.Provider) { p.Queue(atesor.RolePlanner, cmakeAnswer, makeAnswer) },
			wantBuild: atesor.BuildMake, grounded: true, rejected: `but Makefile proves "make"`,
		},
		{
			name: "server errors fall back to the detection",
			script: func(p *fake.Provider) {
				for range 3 {
					p.QueueHTTPError(atesor.RolePlanner, 500, nil, "internal error")
				}
			},
			wantBuild: atesor.BuildMake, grounded: false, fallback: true,
		},
	}
	platform, err := knowledge.Profile("debian")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fake.New()
			tt.script(p)
			src := filepath.Join(t.TempDir(), "vecsum")
			if err := os.CopyFS(src, os.DirFS("../../testdata/packages/vecsum")); err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			var events []atesor.Event
			res, err := portWith(context.Background(), p, sandboxtest.New(t, platform), src, out, func(e atesor.Event) { events = append(events, e) })
			if err != nil {
				t.Fatal(err)
			}
			a := res.State.Analysis
			if a == nil || a.BuildSystem != tt.wantBuild || a.LLMGrounded != tt.grounded {
				t.Fatalf("analysis %+v, want %s grounded %v", a, tt.wantBuild, tt.grounded)
			}

			// The audit log has the node's answered calls, under the analyst's label.
			audit, err := os.ReadFile(filepath.Join(out, "agent-call_vecsum.log"))
			if err != nil {
				t.Fatal(err)
			}
			if tt.grounded && (!strings.Contains(string(audit), "Package vecsum.") || !strings.Contains(string(audit), "ROLE: analyst") || !strings.Contains(string(audit), `"node":"analyst"`)) {
				t.Errorf("the audit log lacks the analyst's call:\n%.2000s", audit)
			}
			var rejected, fellBack bool
			for _, e := range events {
				if e.Node != "analyst" {
					continue
				}
				rejected = rejected || (e.Kind == atesor.EventAnswerRejected && e.Label == "analyst" && strings.Contains(e.Err, tt.rejected))
				fellBack = fellBack || e.Kind == atesor.EventFallback
			}
			if rejected != (tt.rejected != "") || fellBack != tt.fallback {
				t.Errorf("events: rejected %v, fallback %v: %+v", rejected, fellBack, events)
			}
			if tt.rejected != "" {
				prompts := p.Prompts(atesor.RolePlanner)
				if len(prompts) < 2 || !strings.Contains(prompts[1][len(prompts[1])-1].Content, tt.rejected) {
					t.Errorf("the second call does not carry the critique: %v", prompts)
				}
			}
			if tt.grounded && res.State.Usage.Calls == 0 {
				t.Errorf("usage %+v does not count the node's call", res.State.Usage)
			}
		})
	}
}

package main

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/llm"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
)

const (
	cmakeAnswer = `{"purpose": "compression library", "language": "C",
		"build_system": {"type": "cmake", "confidence": 0.9, "reasoning": "CMakeLists.txt"},
		"dependencies": [{"name": "zlib"}], "needs_custom_plan": false, "complexity": 3}`
	makeAnswer = `Here you go: {"purpose": "compression library", "language": "C",
		"build_system": {"type": "make", "confidence": 0.9, "reasoning": "Makefile"},
		"dependencies": [], "needs_custom_plan": false, "complexity": 3}`
)

func TestAnalystNode(t *testing.T) {
	det := &atesor.Detection{BuildSystem: atesor.BuildMake, Confidence: 0.95, Evidence: "Makefile", Language: "C"}
	tests := []struct {
		name      string
		script    func(p *fake.Provider)
		wantBuild atesor.BuildSystem
		grounded  bool
		calls     int
		critique  string // text the second prompt must carry
	}{
		{
			name:      "valid answer",
			script:    func(p *fake.Provider) { p.Queue(atesor.RolePlanner, makeAnswer) },
			wantBuild: atesor.BuildMake, grounded: true, calls: 1,
		},
		{
			name:      "disagreeing answer is critiqued, then corrected",
			script:    func(p *fake.Provider) { p.Queue(atesor.RolePlanner, cmakeAnswer, makeAnswer) },
			wantBuild: atesor.BuildMake, grounded: true, calls: 2,
			critique: `but Makefile proves "make"`,
		},
		{
			name:      "server error falls back to the detection",
			script:    func(p *fake.Provider) { p.QueueHTTPError(atesor.RolePlanner, 500, nil, "internal error") },
			wantBuild: atesor.BuildMake, grounded: false, calls: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fake.New()
			tt.script(p)
			s := &atesor.State{
				RunPart:       atesor.RunPart{RepoName: "zlib"},
				DetectionPart: atesor.DetectionPart{Detection: det},
			}
			node := &AnalystNode{Client: &llm.Client{Provider: p}}
			if err := node.Run(context.Background(), nil, s); err != nil {
				t.Fatal(err)
			}
			if s.Analysis == nil {
				t.Fatal("no analysis stored")
			}
			got := struct {
				Build    atesor.BuildSystem
				Grounded bool
			}{s.Analysis.BuildSystem, s.Analysis.LLMGrounded}
			want := struct {
				Build    atesor.BuildSystem
				Grounded bool
			}{tt.wantBuild, tt.grounded}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("analysis mismatch (-want +got):\n%s", diff)
			}
			prompts := p.Prompts(atesor.RolePlanner)
			if len(prompts) < tt.calls {
				t.Fatalf("%d model calls, want at least %d", len(prompts), tt.calls)
			}
			if !strings.Contains(prompts[0][1].Content, "Package zlib") {
				t.Errorf("first prompt does not name the package: %q", prompts[0][1].Content)
			}
			if tt.critique != "" {
				last := prompts[1][len(prompts[1])-1].Content
				if !strings.Contains(last, tt.critique) {
					t.Errorf("critique prompt %q does not contain %q", last, tt.critique)
				}
			}
			if p.Pending(atesor.RolePlanner) != 0 {
				t.Errorf("%d scripted replies unused", p.Pending(atesor.RolePlanner))
			}
		})
	}
}

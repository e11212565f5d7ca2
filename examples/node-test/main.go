// Command node-test shows how to unit-test a pipeline node with the fake provider: the
// node in node.go is tested in node_test.go without any network or sandbox. Running the
// program runs the node once against a scripted answer and prints what it stored.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/llm"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
)

func main() {
	p := fake.New()
	p.Queue(atesor.RolePlanner, `{"purpose": "a greeting library", "language": "C",
		"build_system": {"type": "make", "confidence": 0.95, "reasoning": "Makefile"},
		"dependencies": [], "needs_custom_plan": false, "complexity": 1}`)
	s := &atesor.State{
		RunPart:       atesor.RunPart{RepoName: "hello"},
		DetectionPart: atesor.DetectionPart{Detection: &atesor.Detection{BuildSystem: atesor.BuildMake, Confidence: 0.95, Evidence: "Makefile"}},
	}
	node := &AnalystNode{Client: &llm.Client{Provider: p}}
	if err := node.Run(context.Background(), nil, s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	b, _ := json.MarshalIndent(s.Analysis, "", "  ")
	fmt.Println(string(b))
}

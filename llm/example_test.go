package llm_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/llm"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
)

func ExampleCall() {
	type plan struct {
		Phases []string `json:"phases"`
	}
	p := fake.New()
	p.Queue(atesor.RoleScout,
		"I think you should run make.",         // prose: a critique retry (one-model pool)
		`{"phases": []}`,                       // fails validation: a critique retry
		"Here it is: {\"phases\": [\"make\"]}") // valid
	c := &llm.Client{Provider: p}
	out := llm.Call(context.Background(), c, llm.Request[plan]{
		Role:     atesor.RoleScout,
		Messages: []*schema.Message{schema.UserMessage("Plan the build as JSON.")},
		Validate: func(v *plan) error {
			if len(v.Phases) == 0 {
				return errors.New("phases must not be empty")
			}
			return nil
		},
	})
	fmt.Println(out.OK(), out.Data.Phases, out.Attempts)
	// Output: true [make] 3
}

func ExampleCostForUsage() {
	fmt.Printf("%.6f\n", llm.CostForUsage("gpt-4o-mini", 12000, 800))
	fmt.Printf("%.6f\n", llm.CostForUsage("qwen/qwen3-coder:free", 12000, 800))
	// Output:
	// 0.002280
	// 0.000000
}

package llm_test

import (
	"math"
	"testing"

	"github.com/eclipse-atesor/atesor-go/llm"
)

func TestCostForUsage(t *testing.T) {
	tests := []struct {
		model   string
		in, out int
		want    float64
	}{
		{"gpt-4o", 1_000_000, 1_000_000, 12.50},
		{"gpt-4o-mini", 1_000_000, 1_000_000, 0.75},
		{"gemini-flash-lite-latest", 2_000_000, 1_000_000, 0.60},
		{"gemini-flash-latest", 1_000_000, 1_000_000, 2.80},
		{"claude-haiku-5-5", 1_000_000, 1_000_000, 0.60},
		{"claude-sonnet-5-5", 1000, 500, 0.007},
		{"openai/gpt-4o", 1_000_000, 0, 2.50},
		{"qwen/qwen3-coder:free", 1_000_000, 1_000_000, 0},
		{"openrouter/free", 5_000_000, 5_000_000, 0},
		{"some/unknown-model", 1_000_000, 1_000_000, 15.00},
		{"gpt-4o", -5, 0, 0},
		{"gpt-4o-2024-08-06", 1_000_000, 1_000_000, 12.50},
		{"gpt-4o-mini-2024-07-18", 1_000_000, 0, 0.15},
		{"claude-sonnet-5-5-20260101", 1_000_000, 0, 2.00},
		{"unknown-2024-08-06", 1_000_000, 0, 3.00},
	}
	for _, tt := range tests {
		if got := llm.CostForUsage(tt.model, tt.in, tt.out); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("CostForUsage(%s, %d, %d) = %v, want %v", tt.model, tt.in, tt.out, got, tt.want)
		}
	}
}

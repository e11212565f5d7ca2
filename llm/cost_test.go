package llm_test

import (
	"math"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
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

func TestModelPrice(t *testing.T) {
	local := &atesor.Price{Source: "custom endpoint"}
	tests := []struct {
		name     string
		spec     atesor.ModelSpec
		answered string
		wantID   string
		want     atesor.Price
	}{
		{"the spec's price wins", atesor.ModelSpec{Model: "qwen2.5-coder", Price: local}, "", "qwen2.5-coder", atesor.Price{Source: "custom endpoint"}},
		{"a spec price with no source", atesor.ModelSpec{Model: "gpt-4o", Price: &atesor.Price{Input: 1, Output: 2}}, "", "gpt-4o", atesor.Price{Input: 1, Output: 2, Source: atesor.PriceFromSpec}},
		{"the table", atesor.ModelSpec{Model: "gpt-4o"}, "gpt-4o-2024-08-06", "gpt-4o-2024-08-06", atesor.Price{Input: 2.5, Output: 10, Source: atesor.PriceFromTable}},
		{"a free model", atesor.ModelSpec{Model: "qwen/qwen3-coder:free"}, "", "qwen/qwen3-coder:free", atesor.Price{Source: atesor.PriceFreeModel}},
		{"unknown counts high", atesor.ModelSpec{Model: "llama-3-70b"}, "", "llama-3-70b", atesor.Price{Input: 3, Output: 12, Source: atesor.PriceUnknown}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, got := llm.ModelPrice(tt.spec, tt.answered)
			if id != tt.wantID || got != tt.want {
				t.Errorf("ModelPrice = %q %+v, want %q %+v", id, got, tt.wantID, tt.want)
			}
		})
	}
	if local.Source != "custom endpoint" {
		t.Errorf("ModelPrice changed the spec's price: %+v", local)
	}
	if c := llm.CostAt(atesor.Price{Input: 2, Output: 8}, 1_000_000, 500_000); math.Abs(c-6) > 1e-9 {
		t.Errorf("CostAt = %v, want 6", c)
	}
	if c := llm.CostAt(atesor.Price{}, 1e6, 1e6); c != 0 {
		t.Errorf("a free price costs %v", c)
	}
}

package atesor

// ModelSpec configures one chat model of a role's pool.
type ModelSpec struct {
	Provider string `json:"provider"`
	Role     Role   `json:"role"`
	Model    string `json:"model"`
	// Temperature is nil for models that take none (Anthropic).
	Temperature *float32 `json:"temperature,omitempty"`
	// Effort is the Anthropic output_config effort (low, medium, high).
	Effort string `json:"effort,omitempty"`
	// MaxTokens is the output token cap.
	MaxTokens int `json:"max_tokens"`
	// Fallbacks are the models an OpenRouter request lists in its models array.
	Fallbacks []string `json:"fallbacks,omitempty"`
}

// Usage counts the tokens and cost of model calls.
type Usage struct {
	Calls        int     `json:"calls"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		Calls:        u.Calls + o.Calls,
		InputTokens:  u.InputTokens + o.InputTokens,
		OutputTokens: u.OutputTokens + o.OutputTokens,
		CostUSD:      u.CostUSD + o.CostUSD,
	}
}

package atesor

import "maps"

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
	// Price is what the model costs. A Provider sets it when it knows better than the
	// built-in price table of package llm: a local model or a model on a company gateway
	// is &Price{} (free) or the price the gateway charges. Nil means the table; a model the table does not know is then charged high
	// (3.00 in, 12.00 out per million tokens, so an unknown model never counts as free)
	// and the pipeline reports a warning that names the model and how to set its price.
	// The CLI sets it from ATESOR_PRICE_INPUT and ATESOR_PRICE_OUTPUT, and to zero for a
	// custom endpoint (OPENAI_BASE_URL, ...) when those are unset.
	Price *Price `json:"price,omitempty"`
}

// Price is the price of a model in US dollars per million tokens.
type Price struct {
	// Input is the price of a million prompt tokens.
	Input float64 `json:"input_usd_per_million"`
	// Output is the price of a million completion tokens (thinking tokens included).
	Output float64 `json:"output_usd_per_million"`
	// Source says where the price came from, for reports: for example
	// "ATESOR_PRICE_INPUT/ATESOR_PRICE_OUTPUT" or "custom endpoint". Package llm fills
	// in its own sources ([PriceFromTable], [PriceUnknown], ...) and [PriceFromSpec]
	// when a ModelSpec's price has none.
	Source string `json:"source,omitempty"`
}

// Sources of a [Price] that package llm reports in [Usage.Prices].
const (
	// PriceFromSpec: the ModelSpec's Price, which named no source.
	PriceFromSpec = "model spec"
	// PriceFromTable: the built-in price table of package llm.
	PriceFromTable = "price table"
	// PriceFreeModel: a free model (an id ending in :free, or openrouter/free).
	PriceFreeModel = "free model"
	// PriceReported: the provider reported the cost of each answer (OpenRouter's
	// usage.cost); the per-million numbers are then not used.
	PriceReported = "reported by the provider"
	// PriceUnknown: a model neither the spec nor the table prices, charged at the high
	// default for unknown paid models.
	PriceUnknown = "unknown model, charged at the default for unknown paid models"
)

// Usage counts the tokens and cost of model calls.
type Usage struct {
	Calls        int     `json:"calls"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	// Prices holds, by model id, the price each model's calls were charged at and where
	// it came from. Nil when no call was priced.
	Prices map[string]Price `json:"prices,omitempty"`
}

// Add returns the sum of two usages. A model priced in both keeps o's price.
func (u Usage) Add(o Usage) Usage {
	sum := Usage{
		Calls:        u.Calls + o.Calls,
		InputTokens:  u.InputTokens + o.InputTokens,
		OutputTokens: u.OutputTokens + o.OutputTokens,
		CostUSD:      u.CostUSD + o.CostUSD,
	}
	if len(u.Prices)+len(o.Prices) > 0 {
		sum.Prices = maps.Clone(u.Prices)
		if sum.Prices == nil {
			sum.Prices = map[string]Price{}
		}
		maps.Copy(sum.Prices, o.Prices)
	}
	return sum
}

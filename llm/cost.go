package llm

import "strings"

// Prices in USD per million tokens.
type price struct{ in, out float64 }

// unknownPaid is the price of a paid model missing from the table: it counts high, not
// free.
var unknownPaid = price{3.00, 12.00}

func priceOf(modelID string) price {
	switch modelID {
	case "gpt-4o":
		return price{2.50, 10.00}
	case "gpt-4o-mini":
		return price{0.15, 0.60}
	case "gemini-flash-lite-latest":
		return price{0.10, 0.40}
	case "gemini-flash-latest":
		return price{0.30, 2.50}
	case "claude-haiku-5-5":
		return price{0.10, 0.50}
	case "claude-sonnet-5-5":
		return price{2.00, 10.00}
	}
	// An OpenRouter id names the vendor first: openai/gpt-4o is gpt-4o.
	if i := strings.LastIndexByte(modelID, '/'); i >= 0 {
		if p := priceOf(modelID[i+1:]); p != unknownPaid {
			return p
		}
	}
	return unknownPaid
}

// IsFree reports whether a model costs nothing: an id ending in :free, or openrouter/free.
func IsFree(modelID string) bool {
	return strings.HasSuffix(modelID, ":free") || modelID == "openrouter/free"
}

// CostForUsage returns the cost in USD of a call to modelID that used the given input and
// output tokens, from the reference system's price table (USD per million tokens). A
// free model costs 0; a paid model not in the table costs 3.00 in and 12.00 out.
func CostForUsage(modelID string, inputTokens, outputTokens int) float64 {
	if IsFree(modelID) {
		return 0
	}
	p := priceOf(modelID)
	return (float64(max(inputTokens, 0))*p.in + float64(max(outputTokens, 0))*p.out) / 1e6
}

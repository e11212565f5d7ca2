package llm

import (
	"regexp"
	"strings"

	"github.com/eclipse-atesor/atesor-go"
)

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
	// A dated snapshot costs what its model costs: gpt-4o-2024-08-06 is gpt-4o.
	if loc := snapshotDate.FindStringIndex(modelID); loc != nil && loc[0] > 0 {
		return priceOf(modelID[:loc[0]])
	}
	return unknownPaid
}

// snapshotDate matches the date suffix of a model snapshot id (-2024-08-06, -20250929).
var snapshotDate = regexp.MustCompile(`-(\d{4}-\d{2}-\d{2}|\d{8})$`)

// pricedModel returns the id a call is priced by: the model that answered when it is free
// or in the table, else the model that was asked (an answering id the table does not know,
// such as an alias, must not turn a priced model into an unknown one).
func pricedModel(asked, answered string) string {
	if answered == "" || answered == asked || (!IsFree(answered) && priceOf(answered) == unknownPaid) {
		return asked
	}
	return answered
}

// IsFree reports whether a model costs nothing: an id ending in :free, or openrouter/free.
func IsFree(modelID string) bool {
	return strings.HasSuffix(modelID, ":free") || modelID == "openrouter/free"
}

// CostForUsage returns the cost in USD of a call to modelID that used the given input and
// output tokens, from the built-in price table (USD per million tokens). A
// free model costs 0; a paid model not in the table costs 3.00 in and 12.00 out.
func CostForUsage(modelID string, inputTokens, outputTokens int) float64 {
	if IsFree(modelID) {
		return 0
	}
	p := priceOf(modelID)
	return (float64(max(inputTokens, 0))*p.in + float64(max(outputTokens, 0))*p.out) / 1e6
}

// ModelPrice returns the price a call to spec is charged at and the model id it is
// charged under (answered, the model the provider says answered, when it is not empty;
// else spec.Model):
//
//   - spec.Price when the provider set one (its Source defaults to
//     [atesor.PriceFromSpec]): local models, gateways, ATESOR_PRICE_INPUT/OUTPUT;
//   - 0 for a free model ([IsFree]), source [atesor.PriceFreeModel];
//   - the built-in table ([CostForUsage]), source [atesor.PriceFromTable];
//   - else 3.00 in and 12.00 out per million tokens, source [atesor.PriceUnknown]: an
//     unknown model counts high, never free. Callers report it, naming the model and
//     how to set its price ([UnknownPriceHint]).
func ModelPrice(spec atesor.ModelSpec, answered string) (string, atesor.Price) {
	id := spec.Model
	if answered != "" {
		id = answered
	}
	if spec.Price != nil {
		p := *spec.Price
		if p.Source == "" {
			p.Source = atesor.PriceFromSpec
		}
		return id, p
	}
	priced := pricedModel(spec.Model, answered)
	if IsFree(priced) {
		return id, atesor.Price{Source: atesor.PriceFreeModel}
	}
	p := priceOf(priced)
	src := atesor.PriceFromTable
	if p == unknownPaid {
		src = atesor.PriceUnknown
	}
	return id, atesor.Price{Input: p.in, Output: p.out, Source: src}
}

// CostAt returns the cost in USD of the given tokens at price p.
func CostAt(p atesor.Price, inputTokens, outputTokens int) float64 {
	return (float64(max(inputTokens, 0))*max(p.Input, 0) + float64(max(outputTokens, 0))*max(p.Output, 0)) / 1e6
}

// UnknownPriceHint says how to price a model the table does not know; it ends the
// warning the pipeline reports for such a model.
const UnknownPriceHint = "set its price in US dollars per million tokens with ATESOR_PRICE_INPUT and ATESOR_PRICE_OUTPUT (0 for a local model), or, from Go, in the Price field of the provider's ModelSpec"

package graph

import (
	"fmt"
	"slices"
	"sort"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/llm"
)

// addUsage adds a model call's usage to the run's and warns, once per model and run,
// about a model charged at the high default because nothing prices it: the warning
// names the model and how to set its price (an event and a log record).
func (r *run) addUsage(s *atesor.State, u atesor.Usage) {
	var unknown []string
	for id, p := range u.Prices {
		if _, seen := s.Usage.Prices[id]; !seen && p.Source == atesor.PriceUnknown {
			unknown = append(unknown, id)
		}
	}
	s.Usage = s.Usage.Add(u)
	sort.Strings(unknown)
	for _, id := range slices.Compact(unknown) {
		p := u.Prices[id]
		line := fmt.Sprintf("warning: model %s has no known price, so it is charged $%.2f in / $%.2f out per million tokens (the cost limit counts it); %s",
			id, p.Input, p.Output, llm.UnknownPriceHint)
		r.log.Warn("model without a known price", "model", id, "input_usd_per_million", p.Input, "output_usd_per_million", p.Output, "hint", llm.UnknownPriceHint)
		r.emit(atesor.Event{Kind: atesor.EventWarning, Node: r.current, Model: id, Line: line})
	}
}

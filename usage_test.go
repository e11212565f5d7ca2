package atesor

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUsageAddMergesPrices(t *testing.T) {
	a := Usage{Calls: 1, CostUSD: 0.5, Prices: map[string]Price{"m1": {Input: 1, Output: 2, Source: "x"}}}
	b := Usage{Calls: 2, CostUSD: 0.25, Prices: map[string]Price{"m2": {Source: PriceFreeModel}, "m1": {Input: 3, Output: 4, Source: "y"}}}
	got := a.Add(b)
	want := Usage{Calls: 3, CostUSD: 0.75, Prices: map[string]Price{"m1": {Input: 3, Output: 4, Source: "y"}, "m2": {Source: PriceFreeModel}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Add (-want +got):\n%s", d)
	}
	if a.Prices["m1"].Input != 1 || len(a.Prices) != 1 {
		t.Errorf("Add changed its receiver: %+v", a.Prices)
	}
	if (Usage{Calls: 1}).Add(Usage{Calls: 1}).Prices != nil {
		t.Error("usages without prices gained a price map")
	}
}

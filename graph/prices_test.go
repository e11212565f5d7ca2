package graph

import (
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
)

func TestUnknownModelPriceWarnsOnceAndIsReported(t *testing.T) {
	h := newHarness(t, true)
	h.failsOnce(m64Error)
	h.builds(0, "riscv64-glibc-hello")
	h.prov.Queue(atesor.RoleFixer, fixAnswer(`sed -i 's/ -m64//' Makefile`))
	if res := h.run(); !res.Verified {
		t.Fatalf("status = %s (%s)", res.Status, res.Reason)
	}
	var warned []string
	for _, e := range h.events {
		if strings.Contains(e.Line, "has no known price") {
			warned = append(warned, e.Line)
		}
	}
	// The fixer's model answered once; the planner's and summarizer's models were asked
	// (their queues are empty, so they answered nothing and were not priced).
	if len(warned) != 1 || !strings.Contains(warned[0], "model fake-fixer") || !strings.Contains(warned[0], "ATESOR_PRICE_INPUT") ||
		!strings.Contains(warned[0], "ModelSpec") || !strings.Contains(warned[0], "$3.00 in / $12.00 out") {
		t.Errorf("price warnings %q", warned)
	}
	rep := h.report()
	if p, ok := rep.LLM.Prices["fake-fixer"]; !ok || p.Source != atesor.PriceUnknown || p.Input != 3 {
		t.Errorf("report prices %+v", rep.LLM.Prices)
	}
}

func TestProviderPriceIsUsedWithoutWarning(t *testing.T) {
	h := newHarness(t, true)
	h.prov = fake.New(fake.WithPrice(atesor.Price{Source: "local model server"}))
	h.failsOnce(m64Error)
	h.builds(0, "riscv64-glibc-hello")
	h.prov.Queue(atesor.RoleFixer, fixAnswer(`sed -i 's/ -m64//' Makefile`))
	if res := h.run(); !res.Verified {
		t.Fatalf("status = %s (%s)", res.Status, res.Reason)
	}
	for _, e := range h.events {
		if strings.Contains(e.Line, "no known price") {
			t.Errorf("warning for a priced model: %s", e.Line)
		}
	}
	rep := h.report()
	if rep.LLM.CostUSD != 0 || rep.LLM.Calls == 0 || rep.LLM.Prices["fake-fixer"] != (atesor.Price{Source: "local model server"}) {
		t.Errorf("llm usage %+v", rep.LLM)
	}
}

package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/provider"
)

// endpointCheckTimeout bounds doctor's GET /models: a wrong address must not hang it.
const endpointCheckTimeout = 10 * time.Second

// modelLister is implemented by providers that can list their endpoint's models
// (provider/openai).
type modelLister interface {
	Models(ctx context.Context) ([]string, error)
}

// doctorEndpoint reports the configured models and prices and, for a custom endpoint,
// lists the endpoint's models and says whether each configured model is among them.
func doctorEndpoint(ctx context.Context, r *report, s provider.Settings) {
	models := configuredModels(s)
	// One line per model: "model m for planner, scout (from ATESOR_MODEL)".
	var order []string
	byModel := map[string][]string{}
	for _, role := range atesor.Roles() {
		if m := s.Models[role]; m != "" {
			key := m + " (from " + modelSource(role) + ")"
			if byModel[key] == nil {
				order = append(order, key)
			}
			byModel[key] = append(byModel[key], string(role))
		}
	}
	for _, k := range order {
		roles := strings.Join(byModel[k], ", ")
		if len(byModel[k]) == len(atesor.Roles()) {
			roles = "every role"
		}
		r.info("model %s for %s", k, roles)
	}
	switch {
	case s.Price != nil:
		r.info("models priced at $%g in / $%g out per million tokens (%s)", s.Price.Input, s.Price.Output, s.Price.Source)
	default:
		r.info("models priced by the built-in table; a model it does not know counts $3/$12 per million tokens until %s/%s are set", provider.EnvPriceInput, provider.EnvPriceOutput)
	}
	if s.BaseURL == "" {
		return
	}
	base := provider.RedactURL(s.BaseURL)
	r.info("endpoint %s (from %s)", base, s.BaseURLVariable)
	p, err := provider.New(ctx, s.Provider, s.Config())
	if err != nil {
		r.problem("", "%v", err)
		return
	}
	lister, ok := p.(modelLister)
	if !ok {
		r.info("the %s provider cannot list the endpoint's models; the first port shows whether it answers", s.Provider)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, endpointCheckTimeout)
	defer cancel()
	ids, err := lister.Models(ctx)
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("no answer from %s within %s", base, endpointCheckTimeout)
		}
		r.problem("", "the endpoint does not answer GET /models: %v; check %s (the API root, for example http://<server>:<port>/v1) and that the server is running", err, s.BaseURLVariable)
		return
	}
	const shown = 20
	list := strings.Join(ids[:min(len(ids), shown)], ", ")
	if len(ids) > shown {
		list += fmt.Sprintf(", ... (%d more)", len(ids)-shown)
	}
	if len(ids) == 0 {
		list = "none"
	}
	r.ok("the endpoint answers; it serves %d model(s): %s", len(ids), list)
	for _, m := range models {
		if slices.Contains(ids, m) {
			r.ok("model %s is served by the endpoint", m)
			continue
		}
		hint := fmt.Sprintf("set %s (or %s) to one of the served models", provider.EnvModel, provider.ModelVariable(atesor.RoleFixer))
		if len(ids) == 0 {
			hint = "load a model into the server, then set " + provider.EnvModel + " to its id"
		}
		r.problem("", "model %s is not among the endpoint's models: %s", m, hint)
	}
}

// configuredModels lists the first model of each role's pool, without repeats.
func configuredModels(s provider.Settings) []string {
	var out []string
	for _, role := range atesor.Roles() {
		m := s.Models[role]
		if m == "" {
			e, ok := provider.DefaultModel(s.Provider, role)
			if !ok {
				continue
			}
			m = e.Model
		}
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

func modelSource(role atesor.Role) string {
	if v := provider.ModelVariable(role); envOr(v, "") != "" {
		return v
	}
	return provider.EnvModel
}

// priceLines describes the price each model was charged at, sorted by model.
func priceLines(prices map[string]atesor.Price) []string {
	ids := slices.Sorted(maps.Keys(prices))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		p := prices[id]
		if p.Source == atesor.PriceReported {
			out = append(out, fmt.Sprintf("%s: %s", id, p.Source))
			continue
		}
		out = append(out, fmt.Sprintf("%s: $%g in / $%g out per million tokens (%s)", id, p.Input, p.Output, p.Source))
	}
	return out
}

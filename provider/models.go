package provider

import (
	"slices"

	"github.com/eclipse-atesor/atesor-go"
)

// Provider names, as LLM_PROVIDER takes them.
const (
	Gemini     = "gemini"
	OpenAI     = "openai"
	OpenRouter = "openrouter"
	Anthropic  = "anthropic"
	// None selects no provider: every LLM node of the pipeline uses its fallback.
	None = "none"
)

// OpenRouterFree is the OpenRouter free models router. It is always the last model of an
// OpenRouter pool and the last entry of every OpenRouter request's models array.
const OpenRouterFree = "openrouter/free"

// ModelEntry is one cell of the model table: the model a provider uses for a role.
type ModelEntry struct {
	// Model is the provider's model id.
	Model string
	// Temperature is nil when the model takes none (the Anthropic models reject it).
	Temperature *float32
	// Effort is the Anthropic output_config effort (low, medium, high); empty elsewhere.
	Effort string
}

func temp(t float32) *float32 { return &t }

// roleTemperature is the temperature of a role: low for the roles whose answers are
// commands and JSON, a little higher for prose.
func roleTemperature(role atesor.Role) float32 {
	switch role {
	case atesor.RoleFixer:
		return 0.2
	case atesor.RoleSupervisor, atesor.RoleBuilder:
		return 0
	default: // planner, scout, summarizer
		return 0.1
	}
}

// DefaultModels returns the role x provider model table, keyed by provider name and role:
// the same models the example files and recipe caches shared with Atesor's Python
// implementation were made with. Anthropic entries carry an effort and no temperature. The
// map is a fresh copy on every call.
func DefaultModels() map[string]map[atesor.Role]ModelEntry {
	type row struct {
		role                               atesor.Role
		gemini, openai, openrouter, claude string
		effort                             string
	}
	rows := []row{
		{atesor.RolePlanner, "gemini-flash-lite-latest", "gpt-4o", "openai/gpt-oss-120b:free", "claude-haiku-5-5", "medium"},
		{atesor.RoleScout, "gemini-flash-lite-latest", "gpt-4o", "qwen/qwen3-coder:free", "claude-haiku-5-5", "medium"},
		{atesor.RoleFixer, "gemini-flash-lite-latest", "gpt-4o", "openai/gpt-oss-120b:free", "claude-sonnet-5-5", "medium"},
		{atesor.RoleSummarizer, "gemini-flash-lite-latest", "gpt-4o-mini", "meta-llama/llama-3.3-70b-instruct:free", "claude-haiku-5-5", "low"},
		{atesor.RoleSupervisor, "gemini-flash-lite-latest", "gpt-4o-mini", "qwen/qwen3-coder:free", "claude-haiku-5-5", "low"},
		{atesor.RoleBuilder, "gemini-flash-lite-latest", "gpt-4o-mini", "qwen/qwen3-coder:free", "claude-sonnet-5-5", "medium"},
	}
	out := map[string]map[atesor.Role]ModelEntry{
		Gemini: {}, OpenAI: {}, OpenRouter: {}, Anthropic: {},
	}
	for _, r := range rows {
		t := roleTemperature(r.role)
		out[Gemini][r.role] = ModelEntry{Model: r.gemini, Temperature: temp(t)}
		out[OpenAI][r.role] = ModelEntry{Model: r.openai, Temperature: temp(t)}
		out[OpenRouter][r.role] = ModelEntry{Model: r.openrouter, Temperature: temp(t)}
		out[Anthropic][r.role] = ModelEntry{Model: r.claude, Effort: r.effort}
	}
	return out
}

// DefaultModel returns the table entry of a provider and role.
func DefaultModel(providerName string, role atesor.Role) (ModelEntry, bool) {
	e, ok := DefaultModels()[providerName][role]
	return e, ok
}

// DefaultOpenRouterFallbacks returns the 6 free models an OpenRouter pool falls back to,
// in order, when OPENROUTER_FALLBACK_MODELS is not set.
func DefaultOpenRouterFallbacks() []string {
	return []string{
		"qwen/qwen3-coder:free",
		"openai/gpt-oss-120b:free",
		"openai/gpt-oss-20b:free",
		"meta-llama/llama-3.3-70b-instruct:free",
		"qwen/qwen3-next-80b-a3b-instruct:free",
		"nvidia/nemotron-3-super-120b-a12b:free",
	}
}

// maxModelsArray is the number of entries OpenRouter accepts in a request's models array.
const maxModelsArray = 3

// OpenRouterModels returns the models array of an OpenRouter request whose model is
// active: the first 2 of fallbacks that are not the active model, then openrouter/free.
func OpenRouterModels(active string, fallbacks []string) []string {
	out := make([]string, 0, maxModelsArray)
	for _, m := range fallbacks {
		if len(out) == maxModelsArray-1 {
			break
		}
		if m == active || m == OpenRouterFree || m == "" {
			continue
		}
		out = append(out, m)
	}
	return append(out, OpenRouterFree)
}

// BuildPool returns the model pool of a role: the table's model first, then, for
// openrouter only, the fallbacks (fallbacks, or the 6 defaults when it is empty) and
// openrouter/free last; no model appears twice. Every spec gets maxTokens as its output
// cap; OpenRouter specs list the pool's named fallbacks in Fallbacks. An unknown provider
// or role gives an empty pool.
func BuildPool(providerName string, role atesor.Role, maxTokens int, fallbacks []string) []atesor.ModelSpec {
	return buildPool(providerName, role, "", maxTokens, fallbacks)
}

// buildPool is BuildPool with primary, when not empty, in place of the table's model.
func buildPool(providerName string, role atesor.Role, primary string, maxTokens int, fallbacks []string) []atesor.ModelSpec {
	e, ok := DefaultModel(providerName, role)
	if !ok {
		return nil
	}
	if primary != "" {
		e.Model = primary
	}
	spec := func(m string) atesor.ModelSpec {
		s := atesor.ModelSpec{Provider: providerName, Role: role, Model: m, Effort: e.Effort, MaxTokens: maxTokens}
		if e.Temperature != nil {
			s.Temperature = temp(*e.Temperature)
		}
		return s
	}
	if providerName != OpenRouter {
		return []atesor.ModelSpec{spec(e.Model)}
	}
	if len(fallbacks) == 0 {
		fallbacks = DefaultOpenRouterFallbacks()
	}
	models := []string{e.Model}
	for _, m := range fallbacks {
		if m != "" && m != OpenRouterFree && !slices.Contains(models, m) {
			models = append(models, m)
		}
	}
	named := slices.Clone(models[1:])
	models = append(models, OpenRouterFree)
	pool := make([]atesor.ModelSpec, 0, len(models))
	for _, m := range models {
		s := spec(m)
		s.Fallbacks = slices.Clone(named)
		pool = append(pool, s)
	}
	return pool
}

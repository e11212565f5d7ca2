// Package provider configures the model providers of Atesor: the role x provider model
// table ([DefaultModels]), the environment ([LoadSettings]: LLM_PROVIDER, the API key
// variables, the base-URL variables such as OPENAI_BASE_URL, ATESOR_MODEL and
// ATESOR_MODEL_<ROLE>, ATESOR_PRICE_INPUT and ATESOR_PRICE_OUTPUT,
// ATESOR_MAX_OUTPUT_TOKENS, ATESOR_LLM_TIMEOUT, OPENROUTER_FALLBACK_MODELS; the full
// list is [EnvVariables]), the model pools ([BuildPool]), and a registry that the
// provider packages join when they are imported:
//
//	import _ "github.com/eclipse-atesor/atesor-go/provider/all" // gemini, openai, openrouter, anthropic
//
//	p, err := provider.FromEnv(ctx) // nil, nil for LLM_PROVIDER=none
//
// An embedder that wants one provider imports only its package, so only that client is
// linked, and may build it from an explicit [Config] with the package's New function.
//
// # Local models and gateways
//
// LLM_PROVIDER=openai with OPENAI_BASE_URL reaches any server that speaks the OpenAI
// chat-completions protocol (llama.cpp, vLLM, Ollama, LM Studio, a company gateway). The
// API key is then optional, ATESOR_MODEL names the server's model, and the models cost 0
// unless ATESOR_PRICE_INPUT and ATESOR_PRICE_OUTPUT say otherwise ([Settings.Price],
// carried to every atesor.ModelSpec of the pool).
//
// # Errors
//
// Every provider's HTTP client goes through a [Tap], an http.RoundTripper that turns an
// HTTP error response into an *atesor.ProviderError (status, Retry-After, body without
// credentials), and [Wrap] attaches that error to the error the model returns, so callers
// use errors.As whatever client is underneath. The tap also turns off the Anthropic SDK's
// own retries and reads OpenRouter's reported cost.
package provider

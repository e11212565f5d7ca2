// Package openrouter is the OpenRouter provider of Atesor, over the eino-ext openrouter
// client (chat completions). Importing it registers the provider as "openrouter" for
// provider.FromEnv; [New] builds one from an explicit configuration.
//
// A role's pool is the table's model, then OPENROUTER_FALLBACK_MODELS (or 6 default free
// models), then openrouter/free. Every request carries a models array (the first 2 pool
// fallbacks that are not the active model, then openrouter/free) and asks for usage
// accounting, so the reported cost is read back.
package openrouter

// Package anthropic is the Anthropic provider of Atesor, over the eino-ext claude client
// (messages API). Importing it registers the provider as "anthropic" for
// provider.FromEnv; [New] builds one from an explicit configuration.
//
// Claude models take no temperature. Each request sends max_tokens equal to the output
// cap (which covers the thinking tokens too), adaptive thinking, and the role's effort
// as output_config.effort. The SDK's own retries are off: the tap marks every error
// response X-Should-Retry: false, and the pool logic of package llm decides.
package anthropic

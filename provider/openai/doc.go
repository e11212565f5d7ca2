// Package openai is the OpenAI provider of Atesor, over the eino-ext openai client
// (chat completions). Importing it registers the provider as "openai" for
// provider.FromEnv; [New] builds one from an explicit configuration.
package openai

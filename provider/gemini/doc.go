// Package gemini is the Google Gemini provider of Atesor, over the eino-ext gemini
// client (generateContent of the Gemini API). Importing it registers the provider as
// "gemini" for provider.FromEnv; [New] builds one from an explicit configuration.
package gemini

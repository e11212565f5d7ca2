// Package all links the four real providers (gemini, openai, openrouter, anthropic) into
// a program, so provider.FromEnv can build any of them:
//
//	import _ "github.com/eclipse-atesor/atesor-go/provider/all"
package all

package all

import (
	// Each import registers its provider with package provider.
	_ "github.com/eclipse-atesor/atesor-go/provider/anthropic"
	_ "github.com/eclipse-atesor/atesor-go/provider/gemini"
	_ "github.com/eclipse-atesor/atesor-go/provider/openai"
	_ "github.com/eclipse-atesor/atesor-go/provider/openrouter"
)

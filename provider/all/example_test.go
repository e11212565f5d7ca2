package all_test

import (
	"context"
	"fmt"

	"github.com/eclipse-atesor/atesor-go/provider"
	_ "github.com/eclipse-atesor/atesor-go/provider/all"
)

func ExampleFromLookup() {
	env := map[string]string{"LLM_PROVIDER": "openrouter", "OPENROUTER_API_KEY": "sk-or-example"}
	p, err := provider.FromLookup(context.Background(), func(k string) string { return env[k] })
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Name(), len(p.Pool("scout")), p.Pool("scout")[0].Model)

	_, err = provider.FromLookup(context.Background(), func(k string) string { return map[string]string{"LLM_PROVIDER": "openai"}[k] })
	fmt.Println(err)
	// Output:
	// openrouter 7 qwen/qwen3-coder:free
	// OPENAI_API_KEY is not set: set it to your openai API key, or choose another provider with LLM_PROVIDER (LLM_PROVIDER=none runs without a model)
}

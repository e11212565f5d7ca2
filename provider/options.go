package provider

import "github.com/cloudwego/eino/components/model"

// CallOptions are the per-call wishes package llm passes to a provider's chat model as
// model.Option values. A provider reads them with [GetCallOptions]; any other model
// ignores them.
type CallOptions struct {
	// JSON asks for a JSON object answer. A provider whose API has a JSON mode requests
	// it (OpenAI's response_format json_object); the caller still extracts the JSON from
	// the text, so a server that ignores the request works as well.
	JSON bool
}

// JSONOutput is the model.Option that sets [CallOptions.JSON]. Package llm passes it on
// every attempt of a validated call, and never on free-text calls (the recipe).
func JSONOutput() model.Option {
	return model.WrapImplSpecificOptFn(func(o *CallOptions) { o.JSON = true })
}

// GetCallOptions reads the [CallOptions] among opts.
func GetCallOptions(opts ...model.Option) CallOptions {
	return *model.GetImplSpecificOptions(&CallOptions{}, opts...)
}

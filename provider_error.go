package atesor

import (
	"fmt"
	"time"
)

// ProviderError is an HTTP error answered by a model provider. Bodies carry the texts
// that call handling branches on: "can only afford N", "use this slug instead: <id>",
// "free-models-per-day". It never holds an API key.
type ProviderError struct {
	Provider   string
	Model      string
	Status     int
	RetryAfter time.Duration
	Body       string
}

func (e *ProviderError) Error() string {
	body := e.Body
	if len(body) > 500 {
		body = body[:500] + "..."
	}
	s := fmt.Sprintf("%s model %s: HTTP %d", e.Provider, e.Model, e.Status)
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	if body != "" {
		s += ": " + body
	}
	return s
}

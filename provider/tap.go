package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/eclipse-atesor/atesor-go"
)

// Limits of what the tap reads from a response.
const (
	maxErrorBody   = 1 << 20  // error bodies are short; a larger one is cut
	maxSuccessBody = 32 << 20 // a JSON answer is read whole to find usage.cost
)

// Tap is the http.RoundTripper every provider's client goes through. For a response with
// an HTTP error status it
//   - builds a *atesor.ProviderError (status, Retry-After from the header in seconds or
//     as an HTTP date, Gemini's retryDelay or OpenRouter's X-RateLimit-Reset from the
//     body, and the body text with the request's credentials blanked out) and hands it
//     to the [Capture] of the request's context;
//   - sets X-Should-Retry: false, so the Anthropic SDK does not retry on its own and the
//     pool logic of package llm decides.
//
// For a successful JSON answer with a Capture in the context it reads the model that
// answered and OpenRouter's usage.cost. Transport errors (timeouts, refused connections)
// are handed to the Capture too, and end the context of a call made through [Wrap], so
// no SDK retries a failed connection on its own. The Tap never logs or returns API keys
// or headers.
type Tap struct {
	// Base is the transport requests go to; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Provider names the provider in the errors it builds.
	Provider string
	// Now reads HTTP-date Retry-After values; nil means time.Now.
	Now func() time.Time
	// Logger receives a debug record for each error response; nil logs nothing.
	Logger *slog.Logger
}

var _ http.RoundTripper = (*Tap)(nil)

// RoundTrip implements http.RoundTripper.
func (t *Tap) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	capt := captureFrom(req.Context())
	resp, err := base.RoundTrip(req)
	if err != nil {
		// Ending the call's context stops SDK-level retries of a failed connection (the
		// Anthropic SDK retries those whatever the response headers say).
		capt.abortWith(err)
		return resp, err
	}
	if resp.StatusCode >= 400 {
		resp.Header.Set("X-Should-Retry", "false")
		perr := t.failure(req, resp)
		capt.setFailure(perr)
		if t.Logger != nil {
			t.Logger.Debug("provider HTTP error", "provider", t.Provider, "status", perr.Status,
				"retry_after", perr.RetryAfter, "path", req.URL.Path)
		}
		return resp, nil
	}
	if capt != nil && isJSON(resp.Header.Get("Content-Type")) && resp.Body != nil {
		b, rerr := io.ReadAll(io.LimitReader(resp.Body, maxSuccessBody))
		resp.Body = rejoin(b, resp.Body)
		if rerr == nil {
			capt.setSuccess(b)
		}
	}
	return resp, nil
}

// failure reads the error response's body (putting it back for the SDK) and builds the
// ProviderError.
func (t *Tap) failure(req *http.Request, resp *http.Response) *atesor.ProviderError {
	var body []byte
	if resp.Body != nil {
		body, _ = io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body = rejoin(body, resp.Body)
	}
	now := t.Now
	if now == nil {
		now = time.Now
	}
	text := Redact(string(body), requestSecrets(req)...)
	return &atesor.ProviderError{
		Provider:   t.Provider,
		Status:     resp.StatusCode,
		RetryAfter: RetryAfter(resp.Header, body, now()),
		Body:       text,
	}
}

// rejoin gives the SDK the bytes the tap read followed by the rest of the body.
func rejoin(read []byte, rest io.ReadCloser) io.ReadCloser {
	return struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(read), rest), rest}
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// requestSecrets returns the credentials a request carries, to blank them out of texts.
func requestSecrets(req *http.Request) []string {
	var out []string
	for _, h := range []string{"Authorization", "X-Api-Key", "X-Goog-Api-Key", "Api-Key"} {
		v := strings.TrimSpace(req.Header.Get(h))
		if v == "" {
			continue
		}
		if scheme, rest, ok := strings.Cut(v, " "); ok && (strings.EqualFold(scheme, "Bearer") || strings.EqualFold(scheme, "Basic")) {
			v = strings.TrimSpace(rest)
		}
		out = append(out, v)
	}
	if req.URL != nil {
		if k := req.URL.Query().Get("key"); k != "" {
			out = append(out, k)
		}
	}
	return out
}

// Redact replaces every occurrence of each secret (of at least 4 characters) in s.
func Redact(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) >= 4 && strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return s
}

// Capture collects what the [Tap] saw for the requests of one model call. It is safe for
// concurrent use.
type Capture struct {
	mu           sync.Mutex
	failure      *atesor.ProviderError
	transportErr error
	cost         float64
	hasCost      bool
	model        string
	abort        context.CancelFunc // ends the call's context after a transport error
	aborted      bool
}

type captureKey struct{}

// WithCapture returns a context whose HTTP requests report to the returned Capture.
func WithCapture(ctx context.Context) (context.Context, *Capture) {
	c := &Capture{}
	return context.WithValue(ctx, captureKey{}, c), c
}

func captureFrom(ctx context.Context) *Capture {
	c, _ := ctx.Value(captureKey{}).(*Capture)
	return c
}

// Failure returns a copy of the last HTTP error response seen, or nil.
func (c *Capture) Failure() *atesor.ProviderError {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failure == nil {
		return nil
	}
	f := *c.failure
	return &f
}

// TransportErr returns the last transport error (timeout, refused connection), or nil.
func (c *Capture) TransportErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.transportErr
}

// Cost returns the cost in USD a successful answer reported (OpenRouter usage.cost).
func (c *Capture) Cost() (float64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cost, c.hasCost
}

// Model returns the model a successful answer says answered (OpenRouter may use a
// fallback of the models array), or "".
func (c *Capture) Model() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.model
}

func (c *Capture) setFailure(p *atesor.ProviderError) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.failure = p
	c.mu.Unlock()
}

// abortWith records a transport error and ends the call's context, if it has an abort
// function.
func (c *Capture) abortWith(err error) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.transportErr = err
	abort := c.abort
	c.aborted = abort != nil
	c.mu.Unlock()
	if abort != nil {
		abort()
	}
}

func (c *Capture) setAbort(cancel context.CancelFunc) {
	c.mu.Lock()
	c.abort = cancel
	c.mu.Unlock()
}

// wasAborted reports whether a transport error ended the call's context.
func (c *Capture) wasAborted() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.aborted
}

// setSuccess reads model and usage.cost from an answer body.
func (c *Capture) setSuccess(body []byte) {
	var doc struct {
		Model string `json:"model"`
		Usage *struct {
			Cost *float64 `json:"cost"`
		} `json:"usage"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.model = doc.Model
	if doc.Usage != nil && doc.Usage.Cost != nil {
		c.cost, c.hasCost = *doc.Usage.Cost, true
	}
}

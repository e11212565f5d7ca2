// Package wiretest holds the test server the provider packages' wire tests share: an
// httptest server that answers every request alike and records what it received.
package wiretest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/eclipse-atesor/atesor-go"
)

// Server answers every request with one status, headers and body, and records the
// requests. It is closed when the test ends.
type Server struct {
	// URL is the server's base URL.
	URL string

	mu       sync.Mutex
	requests []Request
}

// Request is one recorded request.
type Request struct {
	// Path is the URL path.
	Path string
	// Header holds the request headers.
	Header http.Header
	// Body is the JSON body decoded into a map (nil when it is not JSON).
	Body map[string]any
}

// New starts a server that answers with status, the headers of header and body, as
// application/json.
func New(t testing.TB, status int, header map[string]string, body string) *Server {
	t.Helper()
	s := &Server{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := Request{Path: r.URL.Path, Header: r.Header.Clone()}
		_ = json.NewDecoder(r.Body).Decode(&rec.Body)
		s.mu.Lock()
		s.requests = append(s.requests, rec)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Requests returns the recorded requests, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Last returns the last recorded request (the zero Request when there is none).
func (s *Server) Last() Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		return Request{}
	}
	return s.requests[len(s.requests)-1]
}

// Generate asks the chat model p makes for spec with one user message; a failure to
// make the model ends the test.
func Generate(t testing.TB, p atesor.Provider, spec atesor.ModelSpec) (*schema.Message, error) {
	t.Helper()
	m, err := p.ChatModel(context.Background(), spec)
	if err != nil {
		t.Fatalf("ChatModel(%s): %v", spec.Model, err)
	}
	return m.Generate(context.Background(), []*schema.Message{schema.UserMessage("hi")})
}

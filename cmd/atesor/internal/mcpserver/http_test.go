package mcpserver

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	atesor "github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/replay"
)

// TestListenLoopback: only loopback addresses are served.
func TestListenLoopback(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0", "localhost:0"} {
		ln, err := ListenLoopback(addr)
		if err != nil {
			if strings.Contains(addr, "::1") && strings.Contains(err.Error(), "cannot assign") {
				continue // a host without IPv6 loopback
			}
			t.Errorf("%s: %v", addr, err)
			continue
		}
		ln.Close()
	}
	for _, addr := range []string{"0.0.0.0:8765", ":8765", "[::]:8765", "192.0.2.1:8765", "example.invalid:8765", "127.0.0.1"} {
		ln, err := ListenLoopback(addr)
		if err == nil {
			ln.Close()
			t.Errorf("%s: served", addr)
			continue
		}
		if !strings.Contains(err.Error(), "--http") {
			t.Errorf("%s: %v does not name the flag", addr, err)
		}
	}
}

// doctorOnly answers doctor and fails everything else: enough to drive the transport.
type doctorOnly struct{}

var _ Operations = doctorOnly{}

var errNotHere = errors.New("not in this test")

func (doctorOnly) Port(context.Context, PortRequest, func(atesor.Event)) (*atesor.Result, error) {
	return nil, errNotHere
}
func (doctorOnly) Replay(context.Context, ReplayRequest, func(atesor.Event)) (*replay.Result, error) {
	return nil, errNotHere
}
func (doctorOnly) SandboxRun(context.Context, SandboxRequest) (atesor.CommandResult, error) {
	return atesor.CommandResult{}, errNotHere
}
func (doctorOnly) Recipe(context.Context, string, string) (*atesor.CachedRecipe, error) {
	return nil, errNotHere
}
func (doctorOnly) Doctor(_ context.Context, platform string) (*DoctorOutput, error) {
	return &DoctorOutput{Header: "platform " + platform, Sections: []DoctorSection{{Name: "Host tools",
		Findings: []DoctorFinding{{Level: "ok", Text: "bwrap installed"}}}}}, nil
}

// TestServeHTTP serves streamable HTTP on a loopback port: the SDK's client lists the
// tools and calls doctor over it; a request whose Host header names another machine
// (DNS rebinding) is refused.
func TestServeHTTP(t *testing.T) {
	srv, err := New(Options{Roots: []string{t.TempDir()}, OutDir: filepath.Join(t.TempDir(), "out"), Ops: doctorOnly{}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := ListenLoopback("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.ServeHTTP(ctx, ln) }()
	endpoint := "http://" + ln.Addr().String()

	client := mcp.NewClient(&mcp.Implementation{Name: "http-test"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 6 {
		t.Fatalf("tools %v, %v", tools, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "doctor", Arguments: map[string]any{"platform": "debian"}})
	if err != nil || res.IsError {
		t.Fatalf("doctor: %v %+v", err, res)
	}
	if sc, _ := res.StructuredContent.(map[string]any); sc["header"] != "platform debian" {
		t.Errorf("doctor over HTTP: %v", res.StructuredContent)
	}
	cs.Close()

	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "attacker.example.invalid"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign Host header got %s, want 403", resp.Status)
	}

	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeHTTP did not end with its context")
	}
}

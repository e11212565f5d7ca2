package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ListenLoopback listens on addr (host:port) when its host is a loopback address
// (127.0.0.1, ::1 or localhost): the server runs packages' builds and reads the files
// below its roots, so it is never offered to other machines.
func ListenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--http %q: want HOST:PORT, such as 127.0.0.1:8765: %w", addr, err)
	}
	if host != "localhost" {
		ip := net.ParseIP(host)
		if ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("--http %q: serve on a loopback address only (127.0.0.1:PORT or [::1]:PORT); the server runs builds and reads local files, so it is not offered to the network", addr)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	// localhost may resolve to anything the resolver says: what was bound is checked.
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		ln.Close()
		return nil, fmt.Errorf("--http %q bound %s, which is not a loopback address", addr, ln.Addr())
	}
	return ln, nil
}

// ServeHTTP serves the streamable HTTP transport on ln until ctx ends. Requests whose
// Host header is not a loopback name are refused (the SDK's DNS-rebinding guard).
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener) error {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv },
		&mcp.StreamableHTTPOptions{Logger: s.opts.Logger})
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = hs.Shutdown(sctx)
		case <-done:
		}
	}()
	err := hs.Serve(ln)
	close(done)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

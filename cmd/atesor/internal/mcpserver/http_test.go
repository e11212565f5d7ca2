package mcpserver

import (
	"strings"
	"testing"
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

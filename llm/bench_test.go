package llm_test

import (
	"context"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
	"github.com/eclipse-atesor/atesor-go/llm"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
)

// BenchmarkCall measures the overhead of a validated call (model construction, wall
// timer, goroutine, extraction, decoding, validation, usage) against the fake provider.
func BenchmarkCall(b *testing.B) {
	for _, bc := range []struct {
		name    string
		replies []string
	}{
		{"valid", []string{`{"name":"zlib"}`}},
		{"one critique", []string{`{"name":""}`, `{"name":"zlib"}`}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			p := fake.New()
			c := &llm.Client{Provider: p}
			req := llm.Request[answer]{Role: atesor.RoleScout, Messages: prompt(), Validate: validName}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				p.Queue(atesor.RoleScout, bc.replies...)
				b.StartTimer()
				if out := llm.Call(context.Background(), c, req); !out.OK() {
					b.Fatal(out.LastErr)
				}
			}
		})
	}
}

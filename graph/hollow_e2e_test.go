package graph

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eclipse-atesor/atesor-go"
	tier "github.com/eclipse-atesor/atesor-go/internal/e2e"
	"github.com/eclipse-atesor/atesor-go/internal/excerpt"
	"github.com/eclipse-atesor/atesor-go/provider/fake"
)

// simdsumPortable is simdsum_sse.c ported for real: the SSE path stays behind its
// architecture test and a portable loop serves every other target.
const simdsumPortable = `#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "simdsum.h"

/* simdsum_dot multiplies four lanes at a time with SSE, one at a time elsewhere. */
float simdsum_dot(const float *a, const float *b, size_t n)
{
	size_t i = 0;
	float s = 0;
#if defined(__SSE__)
	__m128 acc = _mm_setzero_ps();
	for (; i + 4 <= n; i += 4)
		acc = _mm_add_ps(acc, _mm_mul_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)));
	float lanes[4];
	_mm_storeu_ps(lanes, acc);
	s = lanes[0] + lanes[1] + lanes[2] + lanes[3];
#endif
	for (; i < n; i++)
		s += a[i] * b[i];
	return s;
}
`

func fixerAnswer(t *testing.T, desc string, action map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"analysis":                "xmmintrin.h is x86-only",
		"strategies":              []map[string]any{{"id": 1, "description": desc, "actions": []map[string]any{action}}},
		"recommended_strategy_id": 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestE2EHollowPorts ports testdata/packages/simdsum (its dot product is SSE-only) in
// the real sandbox twice with a scripted model: (1) the fixer empties simdsum_sse.c, the
// build passes, and the port ends not verified (class verify) naming simdsum_dot and the
// emptied file; (2) the fixer writes a portable fallback and the port verifies with its
// exports complete against the installed header.
func TestE2EHollowPorts(t *testing.T) {
	tier.Long(t)
	e2e(t)
	e := newE2EEnv(t)
	src, _ := filepath.Abs("../testdata/packages/simdsum")
	ctx := context.Background()

	start := time.Now()
	prov := fake.New()
	prov.Queue(atesor.RoleFixer, fixerAnswer(t, "drop the SSE code", map[string]any{"type": "command", "command": "cp /dev/null simdsum_sse.c"}))
	res, err := e.pipeline(t, prov, WithoutScriptedRepairs()).Run(ctx, atesor.Request{Source: src, MaxAttempts: 3, TestTimeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	rep := e.report(t, "simdsum")
	t.Logf("hollow port: %s (%s) in %s: %s; exports: %s", res.Status, res.FailureClass, time.Since(start).Round(time.Second), res.Reason, rep.Exports.Summary())
	if res.Verified || res.FailureClass != atesor.FailureVerify {
		st, _ := os.ReadFile(filepath.Join(e.out, "simdsum_state.json"))
		var s atesor.State
		_ = json.Unmarshal(st, &s)
		for _, er := range s.Errors {
			t.Logf("error (%s): %s", er.Node, excerpt.Head(er.Message, 400))
		}
		t.Fatalf("hollow port: status %s class %s, want not verified, class verify", res.Status, res.FailureClass)
	}
	if !strings.Contains(res.Reason, "simdsum_dot") || !strings.Contains(res.Reason, "emptied: simdsum_sse.c") {
		t.Errorf("reason %q does not name simdsum_dot and the emptied file", res.Reason)
	}
	if rep.Exports == nil || strings.Join(rep.Exports.MissingDeclared, ",") != "simdsum_dot" || rep.Exports.Declared != 3 {
		t.Errorf("exports = %+v", rep.Exports)
	}
	if r, _ := e.mem.Recipe(ctx, "simdsum", e.platform.SandboxKey()); r != nil {
		t.Error("the hollow port entered the recipe cache")
	}

	start = time.Now()
	prov = fake.New()
	prov.Queue(atesor.RoleFixer, fixerAnswer(t, "keep SSE behind __SSE__ and add a portable loop",
		map[string]any{"type": "create_file", "path": "simdsum_sse.c", "content": simdsumPortable}))
	out := t.TempDir()
	e.out = out
	res, err = e.pipeline(t, prov, WithoutScriptedRepairs()).Run(ctx, atesor.Request{Source: src, TestTimeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	rep = e.report(t, "simdsum")
	t.Logf("real port: %s in %s; exports: %s (headers from %s); tests: %s", res.Status, time.Since(start).Round(time.Second),
		rep.Exports.Summary(), rep.Exports.HeadersFrom, rep.Tests.Summary())
	if !res.Verified {
		t.Fatalf("real port: status %s (%s): %s", res.Status, res.FailureClass, res.Reason)
	}
	if len(rep.Removals) != 0 || !rep.Exports.Complete() || rep.Exports.Declared != 3 {
		t.Errorf("removals %+v, exports %+v", rep.Removals, rep.Exports)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "simdsum_recipe.md")); !strings.Contains(string(b), "3 of 3 functions declared") {
		t.Errorf("the recipe does not state the export check:\n%s", b)
	}
}

package provider

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/eclipse-atesor/atesor-go"
)

// No provider package is linked into this test binary.
func TestFromLookupNotLinked(t *testing.T) {
	getenv := func(k string) string {
		return map[string]string{"LLM_PROVIDER": "anthropic"}[k]
	}
	_, err := FromLookup(context.Background(), getenv)
	if err == nil || !strings.Contains(err.Error(), "github.com/eclipse-atesor/atesor-go/provider/anthropic") {
		t.Fatalf("err = %v, want the package to import", err)
	}
	p, err := FromLookup(context.Background(), func(k string) string {
		return map[string]string{"LLM_PROVIDER": "none"}[k]
	})
	if p != nil || err != nil {
		t.Fatalf("none: %v, %v", p, err)
	}
	_, err = FromLookup(context.Background(), func(k string) string {
		return map[string]string{"LLM_PROVIDER": "bogus"}[k]
	})
	if err == nil || !strings.Contains(err.Error(), "known providers are") {
		t.Fatalf("unknown: %v", err)
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	f := func(context.Context, Config) (atesor.Provider, error) { return nil, errors.New("test factory") }
	Register("test-dup", f)
	defer func() {
		if recover() == nil {
			t.Error("second Register did not panic")
		}
	}()
	Register("test-dup", f)
}

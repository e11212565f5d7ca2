package atesor

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

type genFunc func() (*schema.Message, error)

func (g genFunc) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	return g()
}

func TestGenerateOnlyStreamsOneChunk(t *testing.T) {
	m := GenerateOnly(genFunc(func() (*schema.Message, error) { return schema.AssistantMessage("hi", nil), nil }))
	sr, err := m.Stream(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	first, err := sr.Recv()
	if err != nil || first.Content != "hi" {
		t.Fatalf("%v %v", first, err)
	}
	if _, err := sr.Recv(); !errors.Is(err, io.EOF) {
		t.Errorf("second chunk: %v", err)
	}
	boom := GenerateOnly(genFunc(func() (*schema.Message, error) { return nil, errors.New("boom") }))
	if _, err := boom.Stream(context.Background(), nil); err == nil {
		t.Error("Stream hid the error")
	}
	if c, ok := m.(interface{ IsCallbacksEnabled() bool }); !ok || c.IsCallbacksEnabled() {
		t.Error("a model without callbacks reports them")
	}
}

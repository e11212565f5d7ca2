package provider_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// httpModel is a minimal chat model that posts to url and fails on an HTTP error, the
// way the SDKs do, with the key in its own error text.
type httpModel struct {
	hc  *http.Client
	url string
}

func (m httpModel) Generate(ctx context.Context, _ []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, m.url, nil)
	req.Header.Set("Authorization", "Bearer sk-secret-123")
	resp, err := m.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("sdk: status %d for key sk-secret-123", resp.StatusCode)
	}
	return schema.AssistantMessage("ok", nil), nil
}

func (m httpModel) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

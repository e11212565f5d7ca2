package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/eclipse-atesor/atesor-go/provider"
)

// maxModelsBody bounds the answer of GET /models.
const maxModelsBody = 8 << 20

// Models returns the ids of the models the endpoint serves (GET <base URL>/models, the
// listing every OpenAI-compatible server offers), sorted. It ends when ctx ends or the
// provider's HTTP timeout passes, whichever comes first. An HTTP error answer is an error
// wrapping *atesor.ProviderError; an answer that is not a model list says the URL is
// probably not the API root.
func (p *Provider) Models(ctx context.Context) ([]string, error) {
	base := p.Endpoint(DefaultBaseURL)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/models", nil)
	if err != nil {
		return nil, fmt.Errorf("list models at %s: %w", provider.RedactURL(base), err)
	}
	if k := p.Config().APIKey; k != "" {
		req.Header.Set("Authorization", "Bearer "+k)
	}
	req.Header.Set("Accept", "application/json")
	ctx, capt := provider.WithCapture(ctx)
	resp, err := p.HTTPClient().Do(req.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("list models at %s: %s", provider.RedactURL(base), provider.Redact(err.Error(), p.Config().APIKey))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		if f := capt.Failure(); f != nil {
			return nil, fmt.Errorf("list models at %s: HTTP %d: %s: %w", provider.RedactURL(base), f.Status, firstLine(f.Body), f)
		}
		return nil, fmt.Errorf("list models at %s: HTTP %d", provider.RedactURL(base), resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxModelsBody))
	if err != nil {
		return nil, fmt.Errorf("list models at %s: %w", provider.RedactURL(base), err)
	}
	ids, err := ParseModelList(body)
	if err != nil {
		return nil, fmt.Errorf("list models at %s: %w (is the URL the API root? it usually ends in /v1)", provider.RedactURL(base), err)
	}
	return ids, nil
}

// ParseModelList reads the ids of an OpenAI model list ({"data": [{"id": ...}, ...]}),
// sorted and without duplicates.
func ParseModelList(body []byte) ([]string, error) {
	var doc struct {
		Data *[]struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("the answer is not a JSON model list: %w", err)
	}
	if doc.Data == nil {
		return nil, errors.New(`the answer has no "data" list of models`)
	}
	seen := map[string]bool{}
	var ids []string
	for _, m := range *doc.Data {
		if m.ID != "" && !seen[m.ID] {
			seen[m.ID] = true
			ids = append(ids, m.ID)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

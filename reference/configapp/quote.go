package configapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// maxQuoteBytes bounds the quote source's answer.
const maxQuoteBytes = 1 << 20

// errNoQuoteURL is the quote page's answer while quoteServiceURL is unset.
var errNoQuoteURL = errors.New("quoteServiceURL is not set")

// quoteRecord is the part of a quoters record the page needs:
// {"type":"success","value":{"id":3,"quote":"..."}}.
type quoteRecord struct {
	Value struct {
		Quote string `json:"quote"`
	} `json:"value"`
}

// fetchQuote GETs exactly uri and returns its value.quote.
func (a *App) fetchQuote(ctx context.Context, uri string) (string, error) {
	if uri == "" {
		return "", errNoQuoteURL
	}
	if u, err := url.Parse(uri); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("quoteServiceURL %q is not an http(s) URL", uri)
	}
	ctx, cancel := context.WithTimeout(ctx, a.opts.QuoteTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
	if err != nil {
		return "", fmt.Errorf("quote source %s: %w", uri, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := a.opts.HTTPClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("quote source unreachable: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("quote source %s answered %d", uri, resp.StatusCode)
	}
	var rec quoteRecord
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxQuoteBytes)).Decode(&rec); err != nil || rec.Value.Quote == "" {
		return "", fmt.Errorf("quote source %s did not answer a quote record ({\"value\":{\"quote\":...}})", uri)
	}
	return rec.Value.Quote, nil
}

package configapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

const (
	// maxEnvironmentBytes bounds the configuration server's answer.
	maxEnvironmentBytes = 16 << 20
	// maxErrorBytes bounds the error body read from a failed answer.
	maxErrorBytes = 4 << 10
)

// configClient fetches the environment from the configuration server.
type configClient struct {
	http    *http.Client
	url     string // {config_url}/{name}/{profiles}[/{label}]
	timeout time.Duration
}

func newConfigClient(o Options) *configClient {
	return &configClient{
		http:    o.HTTPClient,
		url:     environmentURL(o.ConfigURL, o.Name, o.Profiles, o.Label),
		timeout: o.FetchTimeout,
	}
}

// environmentURL builds the request as Spring's client does: no profile is
// "default", profiles are joined by commas and a "/" in a label is written
// "(_)".
func environmentURL(base, name string, profiles []string, label string) string {
	esc := make([]string, len(profiles))
	for i, p := range profiles {
		esc[i] = escapeSegment(p)
	}
	p := strings.Join(esc, ",")
	if p == "" {
		p = "default"
	}
	u := base + "/" + escapeSegment(name) + "/" + p
	if label != "" {
		u += "/" + escapeSegment(strings.ReplaceAll(label, "/", "(_)"))
	}
	return u
}

// escapeSegment percent-encodes the bytes a path segment cannot hold and
// nothing else (RFC 3986 pchar): servers such as the reference refuse
// needless escapes like %28 for "(".
func escapeSegment(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; isPathChar(c) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func isPathChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0
}

// fetchError is a fetch that gave no usable configuration.
type fetchError struct {
	url    string
	status int // 0 when the server did not answer
	err    error
}

func (e *fetchError) Error() string {
	if e.status == 0 {
		return fmt.Sprintf("configuration server unreachable at %s: %v", e.url, e.err)
	}
	return fmt.Sprintf("configuration server answered %d for %s: %v", e.status, e.url, e.err)
}

func (e *fetchError) Unwrap() error { return e.err }

// retryable: no answer, or a server error that may pass. A 4xx (unknown
// label) will not change by asking again.
func (e *fetchError) retryable() bool { return e.status == 0 || e.status >= 500 }

// fetch asks once.
func (c *configClient) fetch(ctx context.Context) (*environment, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, &fetchError{url: c.url, err: err}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, &fetchError{url: c.url, err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &fetchError{url: c.url, status: resp.StatusCode, err: errors.New(errorMessage(resp.Body))}
	}
	var env environment
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxEnvironmentBytes)).Decode(&env); err != nil {
		return nil, &fetchError{url: c.url, status: resp.StatusCode, err: fmt.Errorf("not a configuration: %w", err)}
	}
	return &env, nil
}

// errorMessage extracts Spring's "message" from an error body, or returns
// the start of the body.
func errorMessage(body io.Reader) string {
	data, _ := io.ReadAll(io.LimitReader(body, maxErrorBytes))
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(data, &e) == nil && e.Message != "" {
		return e.Message
	}
	if s := strings.TrimSpace(string(data)); s != "" {
		return s
	}
	return "no message"
}

// fetchAtStart retries with exponential backoff while the server cannot be
// reached, then gives up with an error that names the URL.
func (c *configClient) fetchAtStart(ctx context.Context, o Options, log *slog.Logger) (*environment, error) {
	wait := o.RetryInitial
	for attempt := 1; ; attempt++ {
		log.Info("Fetching config from server at: "+o.ConfigURL, "url", c.url, "attempt", attempt)
		env, err := c.fetch(ctx)
		if err == nil {
			return env, nil
		}
		var fe *fetchError
		if attempt >= o.StartAttempts || (errors.As(err, &fe) && !fe.retryable()) {
			return nil, fmt.Errorf("configapp: cannot fetch the configuration from %s (%d attempt(s)): %w", c.url, attempt, err)
		}
		log.Warn("configuration server not available; retrying", "err", err, "wait", wait)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, fmt.Errorf("configapp: start cancelled while waiting for %s: %w", c.url, err)
		}
		wait = min(2*wait, o.RetryMax)
	}
}

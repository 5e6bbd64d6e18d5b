package auth

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// browser is a cookie-keeping HTTP client that follows redirects as a browser does, wherever they lead (a
// sign-in page may live on another origin than the authorization endpoint, as Hydra's login app does), except
// into the origins of the clients it plays: a redirect there is where the flow hands back to a client, and is
// kept, not followed.
type browser struct {
	client *http.Client
	// keep receives every exchange, each redirect hop apart, as the scenario's evidence.
	keep     func(*core.Exchange)
	stops    []string // origins (scheme://host[:port]) whose redirects are kept, not followed
	page     *core.Exchange
	pageURL  *url.URL
	redirect *url.URL // the last redirect into one of the stops
}

func newBrowser(base *http.Client, keep func(*core.Exchange)) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{client: &http.Client{
		Jar: jar, Timeout: base.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}, keep: keep}
}

// stopAt makes the browser keep, not follow, redirects into the origin of rawURL (a client's redirect URI).
func (b *browser) stopAt(rawURL string) {
	if o := originOf(rawURL); o != "" && !slices.Contains(b.stops, o) {
		b.stops = append(b.stops, o)
	}
}

// originOf is scheme://host[:port] of an absolute URL, "" for anything else.
func originOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}

// maxHops bounds the redirects one request may follow.
const maxHops = 10

// open performs a request and follows its redirects, at most maxHops, until one leads into a stop or out of
// HTTP (a custom scheme is a native client's redirect URI).
func (b *browser) open(req *http.Request) (*core.Exchange, error) {
	b.redirect = nil
	for hops := 0; ; hops++ {
		sent := time.Now()
		resp, err := b.client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL, err)
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, core.MaxBody))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		// The client added the cookies of its jar to req's header: the header is the one sent.
		ex := &core.Exchange{Method: req.Method, URL: req.URL.String(), RequestHeader: req.Header.Clone(), RequestBody: core.ReadRequestBody(req),
			Status: resp.StatusCode, Header: resp.Header, Body: body, Sent: sent, Received: time.Now()}
		if b.keep != nil {
			b.keep(ex)
		}
		b.page, b.pageURL = ex, req.URL
		loc := resp.Header.Get("Location")
		if resp.StatusCode < 300 || resp.StatusCode > 399 || loc == "" {
			return ex, nil
		}
		next, err := req.URL.Parse(loc)
		if err != nil {
			return ex, fmt.Errorf("redirect to an unparsable Location %q", loc)
		}
		if !b.follows(next) {
			b.redirect = next
			return ex, nil
		}
		if hops == maxHops {
			return ex, fmt.Errorf("more than %d redirects, the last from %s to %s", maxHops, req.URL, next)
		}
		if req, err = http.NewRequest(http.MethodGet, next.String(), nil); err != nil {
			return ex, err
		}
	}
}

func (b *browser) follows(u *url.URL) bool {
	if u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	return !slices.Contains(b.stops, originOf(u.String()))
}

// get opens a URL.
func (b *browser) get(rawURL string, accept string) (*core.Exchange, error) {
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	return b.open(req)
}

// submit sends the form with its fields.
func (b *browser) submit(fm *form) (*core.Exchange, error) {
	var req *http.Request
	var err error
	if fm.method == http.MethodPost {
		req, err = http.NewRequest(http.MethodPost, fm.action, strings.NewReader(fm.fields.Encode()))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	} else {
		u, perr := url.Parse(fm.action)
		if perr != nil {
			return nil, perr
		}
		u.RawQuery = fm.fields.Encode()
		req, err = http.NewRequest(http.MethodGet, u.String(), nil)
	}
	if err != nil {
		return nil, err
	}
	return b.open(req)
}

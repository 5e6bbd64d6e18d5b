package auth

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// browser is a cookie-keeping HTTP client that follows redirects as a browser does, but only to the origins
// the target file declares (core.Origins: a sign-in page may live on another origin than the authorization
// endpoint, as Hydra's login application does, which the file then names in allowedOrigins), and never into
// the origins of the clients it plays: a redirect there is where the flow hands back to a client, and is kept,
// not followed. A redirect anywhere else, or a form that would send its fields there, is an error that names
// where, and nothing is sent. Every request ends with the scenario's context, within core.RequestTimeout, and
// reads at most maxPage of a page.
type browser struct {
	client  *http.Client
	origins *core.Origins
	ctx     context.Context
	waiting func(string) func()
	// keep receives every exchange, each redirect hop apart, as the scenario's evidence.
	keep     func(*core.Exchange)
	stops    []string // origins (scheme://host[:port]) whose redirects are kept, not followed
	page     *core.Exchange
	pageURL  *url.URL
	redirect *url.URL // the last redirect into one of the stops
}

// maxPage bounds what the browser reads of a page: a sign-in or consent page is a few KiB.
const maxPage = 1 << 20

func newBrowser(run *core.Run, ctx context.Context, keep func(*core.Exchange)) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{client: &http.Client{
		Jar: jar, Timeout: core.RequestTimeout, Transport: core.NewTransport(run.Origins, nil),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}, origins: run.Origins, ctx: ctx, waiting: run.Waiting, keep: keep}
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
// HTTP (a custom scheme is a native client's redirect URI). A request or a redirect to an origin the target
// file does not declare is not sent: the error names where it would have gone.
func (b *browser) open(req *http.Request) (*core.Exchange, error) {
	b.redirect = nil
	var from *url.URL
	for hops := 0; ; hops++ {
		if err := b.origins.Check(req.URL); err != nil {
			if from != nil {
				return b.page, fmt.Errorf("the server sent the browser from %s to %w", core.Redacted(from), err)
			}
			return nil, fmt.Errorf("%s %w", req.Method, err)
		}
		ex, resp, err := b.send(req)
		if err != nil {
			return nil, err
		}
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
			return ex, fmt.Errorf("more than %d redirects, the last from %s to %s", maxHops, core.Redacted(req.URL), core.Redacted(next))
		}
		from = req.URL
		if req, err = http.NewRequest(http.MethodGet, next.String(), nil); err != nil {
			return ex, err
		}
	}
}

// send makes one request, under the browser's context, and keeps its exchange as the page.
func (b *browser) send(req *http.Request) (*core.Exchange, *http.Response, error) {
	sent := time.Now()
	req = req.WithContext(b.ctx)
	defer b.waiting("the browser's " + req.Method + " " + core.Redacted(req.URL))()
	resp, err := b.client.Do(req)
	if err != nil {
		if b.ctx.Err() != nil {
			return nil, nil, fmt.Errorf("%s %s: the run was stopped before the answer came: %w", req.Method, core.Redacted(req.URL), context.Cause(b.ctx))
		}
		return nil, nil, fmt.Errorf("%s %s: %w", req.Method, core.Redacted(req.URL), err)
	}
	body, cut, err := core.ReadBody(resp.Body, maxPage)
	resp.Body.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: reading the page: %w", req.Method, core.Redacted(req.URL), err)
	}
	// The client added the cookies of its jar to req's header: the header is the one sent.
	ex := &core.Exchange{Method: req.Method, URL: req.URL.String(), RequestHeader: req.Header.Clone(), RequestBody: core.ReadRequestBody(req),
		Status: resp.StatusCode, Header: resp.Header, Body: body, BodyCut: cut, Sent: sent, Received: time.Now()}
	if b.keep != nil {
		b.keep(ex)
	}
	b.page, b.pageURL = ex, req.URL
	return ex, resp, nil
}

// follows tells whether the browser follows a redirect: to http(s), outside the clients' origins. Whether the
// origin is declared is open's to check, which says where the browser was sent when it is not.
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

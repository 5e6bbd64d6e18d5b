package steps

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
)

// browser is a cookie-keeping HTTP client that follows redirects only while they stay on its origins (the
// authorization server, and the greeting client when it plays the flow): a redirect elsewhere is where the
// flow hands back to a client, and is kept.
type browser struct {
	client   *http.Client
	origin   string   // the authorization server
	others   []string // further origins it follows redirects to
	page     *exchange
	pageURL  *url.URL
	redirect *url.URL // the last redirect that left the origins
}

func newBrowser(origin string, base *http.Client, others ...string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{origin: origin, others: others, client: &http.Client{
		Jar: jar, Timeout: base.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// open performs a request and follows redirects within the origin, at most 10.
func (b *browser) open(req *http.Request) (*exchange, error) {
	b.redirect = nil
	for hops := 0; ; hops++ {
		resp, err := b.client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL, err)
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		ex := &exchange{method: req.Method, url: req.URL.String(), status: resp.StatusCode, header: resp.Header, body: body}
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
		if hops == 10 {
			return ex, fmt.Errorf("more than 10 redirects from %s", b.origin)
		}
		if req, err = http.NewRequest(http.MethodGet, next.String(), nil); err != nil {
			return ex, err
		}
	}
}

func (b *browser) follows(u *url.URL) bool {
	for _, o := range append([]string{b.origin}, b.others...) {
		if strings.HasPrefix(u.String(), o+"/") || u.String() == o {
			return true
		}
	}
	return false
}

// get opens a URL.
func (b *browser) get(rawURL string, accept string) (*exchange, error) {
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
func (b *browser) submit(fm *form) (*exchange, error) {
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

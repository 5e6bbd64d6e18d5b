package authtest

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// Browser keeps cookies and does not follow redirects, so tests see every
// step of a flow.
type Browser struct {
	t      testing.TB
	Client *http.Client
}

// NewBrowser returns a browser with an empty cookie jar.
func NewBrowser(t testing.TB) *Browser {
	jar, _ := cookiejar.New(nil)
	return &Browser{t: t, Client: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Do sends req with the browser's cookies.
func (b *Browser) Do(req *http.Request) Reply {
	b.t.Helper()
	resp, err := b.Client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return Reply{URL: req.URL, Status: resp.StatusCode, Header: resp.Header, Body: string(body)}
}

// Get fetches an absolute URL; accept, when set, is the Accept header.
func (b *Browser) Get(target string, accept ...string) Reply {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodGet, target, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	if len(accept) > 0 {
		req.Header.Set("Accept", accept[0])
	}
	return b.Do(req)
}

// Post sends a form to an absolute URL.
func (b *Browser) Post(target string, form url.Values) Reply {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.Do(req)
}

// Authorize follows an authorization request at the authorization server:
// the sign-in form when the browser is not signed in, then the consent page
// (every scope checked; approve or deny). It returns where the server sends
// the browser back to the client, without going there.
func (b *Browser) Authorize(authorizeURL, user, password string, approve bool) *url.URL {
	b.t.Helper()
	r := b.Get(authorizeURL)
	if r.Status == http.StatusFound && r.Location(b.t).Path == "/login" {
		r = b.signIn(r.Location(b.t), user, password)
		if r.Status != http.StatusFound {
			b.t.Fatalf("sign-in: %d %s", r.Status, r.Body)
		}
		r = b.Get(r.Location(b.t).String())
	}
	if r.Status == http.StatusOK {
		r = b.Post(r.URL.ResolveReference(&url.URL{Path: "/oauth/authorize"}).String(), consentForm(b.t, r.Body, approve))
	}
	if r.Status != http.StatusSeeOther && r.Status != http.StatusFound {
		b.t.Fatalf("the authorization server did not send the browser back: %d %s", r.Status, r.Body)
	}
	return r.Location(b.t)
}

func (b *Browser) signIn(login *url.URL, user, password string) Reply {
	b.t.Helper()
	page := b.Get(login.String())
	return b.Post(login.ResolveReference(&url.URL{Path: "/login.do"}).String(), url.Values{
		"username": {user}, "password": {password}, csrfField: {csrfOf(b.t, page.Body)},
	})
}

const (
	csrfField     = "X-Uaa-Csrf"
	approvalField = "user_oauth_approval"
)

var (
	csrfPattern     = regexp.MustCompile(`name="X-Uaa-Csrf" value="([^"]+)"`)
	checkboxPattern = regexp.MustCompile(`name="(scope\.\d+)" value="(scope\.[^"]+)"`)
)

func csrfOf(t testing.TB, page string) string {
	t.Helper()
	m := csrfPattern.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF field in page:\n%s", page)
	}
	return m[1]
}

// consentForm fills the consent form of page: every box checked.
func consentForm(t testing.TB, page string, approve bool) url.Values {
	t.Helper()
	decision := "false"
	if approve {
		decision = "true"
	}
	form := url.Values{csrfField: {csrfOf(t, page)}, approvalField: {decision}}
	for _, m := range checkboxPattern.FindAllStringSubmatch(page, -1) {
		form.Set(m[1], m[2])
	}
	return form
}

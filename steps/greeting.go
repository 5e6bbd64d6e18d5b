package steps

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/cucumber/godog"
)

// The greeting steps play a browser through the greeting client: its redirect to the authorization server,
// sign-in and consent there, and the page it renders with a fortune.

// greetingSteps play the greeting client's flow with the browser of the authorization code flow.
type greetingSteps struct {
	*flowSteps
}

func (w *greetingSteps) register(sc *godog.ScenarioContext) {
	sc.Step(`^a browser without a session opens the greeting client$`, w.openGreetingOnce)
	sc.Step(`^it is redirected to "([^"]+)" with a code request for the scopes "([^"]+)"$`, w.redirectedToAuthorize)
	sc.Step(`^the request has a state, a nonce and an S256 code challenge$`, w.requestHasStateNonceChallenge)
	sc.Step(`^the request's redirect URI is the greeting client's root$`, w.redirectURIIsGreetingRoot)
	sc.Step(`^a browser opens the greeting client$`, w.openGreeting)
	sc.Step(`^the browser is back at the greeting client$`, w.backAtGreeting)
	sc.Step(`^the greeting page shows a fortune$`, w.greetingShowsFortune)
	sc.Step(`^the greeting page says that access was denied, not that the server failed$`, w.greetingSaysWhatWentWrong)
	sc.Step(`^the user approves, and the state on the way back is changed$`, w.approveWithChangedState)
}

// greeting is the greeting client's base URL.
func (w *scenario) greeting() (string, error) {
	g := w.suite.env.Greeting
	if g == nil {
		return "", fmt.Errorf("the target declares no greeting client")
	}
	return g.URL, nil
}

// openGreetingOnce sends one request, without following the redirect, to see where it points.
func (w *greetingSteps) openGreetingOnce() error {
	base, err := w.greeting()
	if err != nil {
		return err
	}
	return w.send(request{method: http.MethodGet, url: base + "/"})
}

// authorizeRequest returns the query of the redirect the last answer made, after checking it goes to want.
func (w *greetingSteps) authorizeRequest(want string) (url.Values, error) {
	a, err := w.answer()
	if err != nil {
		return nil, err
	}
	if a.status < 300 || a.status > 399 {
		return nil, w.failf("status %d, want a redirect", a.status)
	}
	loc, err := url.Parse(a.header.Get("Location"))
	if err != nil {
		return nil, w.failf("the Location %q does not parse", a.header.Get("Location"))
	}
	if want != "" && loc.Scheme+"://"+loc.Host+loc.Path != want {
		return nil, w.failf("redirected to %s, want %s", loc, want)
	}
	return loc.Query(), nil
}

func (w *greetingSteps) redirectedToAuthorize(endpoint, scopes string) error {
	endpoint, err := w.expand(endpoint)
	if err != nil {
		return err
	}
	q, err := w.authorizeRequest(endpoint)
	if err != nil {
		return err
	}
	if q.Get("response_type") != "code" || q.Get("client_id") == "" {
		return w.failf("response_type=%q client_id=%q, want code and the client's id", q.Get("response_type"), q.Get("client_id"))
	}
	got := words(q.Get("scope"))
	for _, s := range words(scopes) {
		if !slices.Contains(got, s) {
			return w.failf("the requested scope %v lacks %s", got, s)
		}
	}
	return nil
}

func (w *greetingSteps) requestHasStateNonceChallenge() error {
	q, err := w.authorizeRequest("")
	if err != nil {
		return err
	}
	for _, k := range []string{"state", "nonce", "code_challenge"} {
		if q.Get(k) == "" {
			return w.failf("the authorization request has no %s", k)
		}
	}
	if q.Get("code_challenge_method") != "S256" {
		return w.failf("code_challenge_method is %q, want S256", q.Get("code_challenge_method"))
	}
	return nil
}

func (w *greetingSteps) redirectURIIsGreetingRoot() error {
	base, err := w.greeting()
	if err != nil {
		return err
	}
	q, err := w.authorizeRequest("")
	if err != nil {
		return err
	}
	if got := q.Get("redirect_uri"); got != base+"/" {
		return w.failf("redirect_uri is %q, want the client's root %q", got, base+"/")
	}
	return nil
}

// openGreeting starts a browser that follows redirects between the greeting client and the authorization
// server, and opens the greeting client's root.
func (w *greetingSteps) openGreeting() error {
	base, err := w.greeting()
	if err != nil {
		return err
	}
	w.browser = nil
	b, err := w.browserOf()
	if err != nil {
		return err
	}
	b.others = []string{base}
	w.last, err = b.get(base+"/", "")
	return err
}

func (w *greetingSteps) backAtGreeting() error {
	base, err := w.greeting()
	if err != nil {
		return err
	}
	b := w.browser
	if b == nil || b.pageURL == nil || !strings.HasPrefix(b.pageURL.String(), base+"/") {
		return w.failf("the browser is not at the greeting client (%s)", base)
	}
	return nil
}

func (w *greetingSteps) greetingShowsFortune() error {
	base, err := w.greeting()
	if err != nil {
		return err
	}
	if w.last, err = w.browser.get(base+"/", "application/json"); err != nil {
		return err
	}
	if w.last.status != http.StatusOK {
		return w.failf("the greeting page answered %d, want 200", w.last.status)
	}
	return w.pageHas("fortune")
}

// greetingSaysWhatWentWrong looks at the page the flow ended on: no fortune, and words that say access was
// denied.
func (w *greetingSteps) greetingSaysWhatWentWrong() error {
	a, err := w.answer()
	if err != nil {
		return err
	}
	if a.status >= 500 {
		return w.failf("the page answers %d: a denied consent is the user's choice, not a server error", a.status)
	}
	text := strings.ToLower(string(a.body))
	if !strings.Contains(text, "denied") {
		return w.failf("the page does not say that access was denied")
	}
	return nil
}

// approveWithChangedState approves, stops where the authorization server sends the browser back, and goes
// back with another state, as an attacker's link would.
func (w *greetingSteps) approveWithChangedState() error {
	b := w.browser
	others := b.others
	b.others = nil
	err := w.approve()
	b.others = others
	if err != nil {
		return err
	}
	if b.redirect == nil {
		return w.failf("the authorization server did not send the browser back")
	}
	back := *b.redirect
	q := back.Query()
	if q.Get("code") == "" {
		return w.failf("the redirect back carries no code: %s", back.String())
	}
	q.Set("state", "tampered-"+randomID())
	back.RawQuery = q.Encode()
	b.others = nil
	w.last, err = b.get(back.String(), "")
	b.others = others
	return err
}

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

func (gs *greetingSteps) register(sc *godog.ScenarioContext) {
	sc.Step(`^a browser without a session opens the greeting client$`, gs.openGreetingOnce)
	sc.Step(`^it is redirected to "([^"]+)" with a code request for the scopes "([^"]+)"$`, gs.redirectedToAuthorize)
	sc.Step(`^the request has a state, a nonce and an S256 code challenge$`, gs.requestHasStateNonceChallenge)
	sc.Step(`^the request's redirect URI is the greeting client's root$`, gs.redirectURIIsGreetingRoot)
	sc.Step(`^a browser opens the greeting client$`, gs.openGreeting)
	sc.Step(`^the browser is back at the greeting client$`, gs.backAtGreeting)
	sc.Step(`^the greeting page shows a fortune$`, gs.greetingShowsFortune)
	sc.Step(`^the greeting page says that access was denied, not that the server failed$`, gs.greetingSaysWhatWentWrong)
	sc.Step(`^the user approves, and the state on the way back is changed$`, gs.approveWithChangedState)
}

// greeting is the greeting client's base URL.
func (s *scenario) greeting() (string, error) {
	g := s.suite.env.Greeting
	if g == nil {
		return "", fmt.Errorf("the target declares no greeting client")
	}
	return g.URL, nil
}

// openGreetingOnce sends one request, without following the redirect, to see where it points.
func (gs *greetingSteps) openGreetingOnce() error {
	base, err := gs.greeting()
	if err != nil {
		return err
	}
	return gs.send(request{method: http.MethodGet, url: base + "/"})
}

// authorizeRequest returns the query of the redirect the last answer made, after checking it goes to want.
func (gs *greetingSteps) authorizeRequest(want string) (url.Values, error) {
	a, err := gs.answer()
	if err != nil {
		return nil, err
	}
	if a.status < 300 || a.status > 399 {
		return nil, gs.failf("status %d, want a redirect", a.status)
	}
	loc, err := url.Parse(a.header.Get("Location"))
	if err != nil {
		return nil, gs.failf("the Location %q does not parse", a.header.Get("Location"))
	}
	if want != "" && loc.Scheme+"://"+loc.Host+loc.Path != want {
		return nil, gs.failf("redirected to %s, want %s", loc, want)
	}
	return loc.Query(), nil
}

func (gs *greetingSteps) redirectedToAuthorize(endpoint, scopes string) error {
	endpoint, err := gs.expand(endpoint)
	if err != nil {
		return err
	}
	q, err := gs.authorizeRequest(endpoint)
	if err != nil {
		return err
	}
	if q.Get("response_type") != "code" || q.Get("client_id") == "" {
		return gs.failf("response_type=%q client_id=%q, want code and the client's id", q.Get("response_type"), q.Get("client_id"))
	}
	got := words(q.Get("scope"))
	for _, s := range words(scopes) {
		if !slices.Contains(got, s) {
			return gs.failf("the requested scope %v lacks %s", got, s)
		}
	}
	return nil
}

func (gs *greetingSteps) requestHasStateNonceChallenge() error {
	q, err := gs.authorizeRequest("")
	if err != nil {
		return err
	}
	for _, k := range []string{"state", "nonce", "code_challenge"} {
		if q.Get(k) == "" {
			return gs.failf("the authorization request has no %s", k)
		}
	}
	if q.Get("code_challenge_method") != "S256" {
		return gs.failf("code_challenge_method is %q, want S256", q.Get("code_challenge_method"))
	}
	return nil
}

func (gs *greetingSteps) redirectURIIsGreetingRoot() error {
	base, err := gs.greeting()
	if err != nil {
		return err
	}
	q, err := gs.authorizeRequest("")
	if err != nil {
		return err
	}
	if got := q.Get("redirect_uri"); got != base+"/" {
		return gs.failf("redirect_uri is %q, want the client's root %q", got, base+"/")
	}
	return nil
}

// openGreeting starts a browser that follows redirects between the greeting client and the authorization
// server, and opens the greeting client's root.
func (gs *greetingSteps) openGreeting() error {
	base, err := gs.greeting()
	if err != nil {
		return err
	}
	gs.browser = nil
	b, err := gs.browserOf()
	if err != nil {
		return err
	}
	b.others = []string{base}
	gs.last, err = b.get(base+"/", "")
	return err
}

func (gs *greetingSteps) backAtGreeting() error {
	base, err := gs.greeting()
	if err != nil {
		return err
	}
	b := gs.browser
	if b == nil || b.pageURL == nil || !strings.HasPrefix(b.pageURL.String(), base+"/") {
		return gs.failf("the browser is not at the greeting client (%s)", base)
	}
	return nil
}

func (gs *greetingSteps) greetingShowsFortune() error {
	base, err := gs.greeting()
	if err != nil {
		return err
	}
	if gs.last, err = gs.browser.get(base+"/", "application/json"); err != nil {
		return err
	}
	if gs.last.status != http.StatusOK {
		return gs.failf("the greeting page answered %d, want 200", gs.last.status)
	}
	return gs.pageHas("fortune")
}

// greetingSaysWhatWentWrong looks at the page the flow ended on: no fortune, and words that say access was
// denied.
func (gs *greetingSteps) greetingSaysWhatWentWrong() error {
	a, err := gs.answer()
	if err != nil {
		return err
	}
	if a.status >= 500 {
		return gs.failf("the page answers %d: a denied consent is the user's choice, not a server error", a.status)
	}
	text := strings.ToLower(string(a.body))
	if !strings.Contains(text, "denied") {
		return gs.failf("the page does not say that access was denied")
	}
	return nil
}

// approveWithChangedState approves, stops where the authorization server sends the browser back, and goes
// back with another state, as an attacker's link would.
func (gs *greetingSteps) approveWithChangedState() error {
	b := gs.browser
	others := b.others
	b.others = nil
	err := gs.approve()
	b.others = others
	if err != nil {
		return err
	}
	if b.redirect == nil {
		return gs.failf("the authorization server did not send the browser back")
	}
	back := *b.redirect
	q := back.Query()
	if q.Get("code") == "" {
		return gs.failf("the redirect back carries no code: %s", back.String())
	}
	q.Set("state", "tampered-"+randomID())
	back.RawQuery = q.Encode()
	b.others = nil
	gs.last, err = b.get(back.String(), "")
	b.others = others
	return err
}

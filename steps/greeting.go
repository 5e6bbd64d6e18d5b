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
	sc.Step(`^the fortune service refuses the token "([^"]+)" gets from "([^"]+)" for "([^"]+)"$`, gs.fortuneRefusesTokenOf)
	sc.Step(`^"([^"]+)" signs in with the password "([^"]+)" and approves if asked$`, gs.signInAndApprove)
	sc.Step(`^the greeting page shows no fortune$`, gs.greetingShowsNoFortune)
}

// fortuneRefusesTokenOf is the precondition of a scenario about a refused fortune call: a token the user gets
// for the scope, through the flow the greeting client would walk, is refused by the fortune service.
func (gs *greetingSteps) fortuneRefusesTokenOf(user, client, scope string) error {
	f := gs.suite.services().Fortune
	if f == nil {
		return Blockedf("the target declares no fortune service")
	}
	if _, err := gs.walk(user, client, scope, false); err != nil {
		return err
	}
	if err := gs.exchangeAsRegistered(); err != nil {
		return err
	}
	token, err := gs.expand("{access_token}")
	if err != nil {
		return err
	}
	if err := gs.api(request{method: http.MethodGet, url: f.URL + "/", bearer: token, accept: "text/plain"}); err != nil {
		return err
	}
	if gs.last.status != http.StatusUnauthorized && gs.last.status != http.StatusForbidden {
		return Blockedf("the fortune service answered %d to a token of %s for %q, not a refusal: the scenario "+
			"needs a user the fortune service refuses", gs.last.status, user, scope)
	}
	return nil
}

// signInAndApprove signs in and approves the consent page when the server shows one.
func (gs *greetingSteps) signInAndApprove(user, password string) error {
	if err := gs.signIn(user, password); err != nil {
		return err
	}
	if gs.browser.redirect != nil {
		return nil
	}
	if p, err := gs.page(); err == nil {
		if c, _ := p.consentPage(); c == nil {
			return nil // the greeting client's own page: the server asked nothing
		}
	}
	return gs.approve()
}

// greetingShowsNoFortune holds when the greeting page, asked for JSON, carries no fortune: after a refused
// fortune call, the refusal's body must not be shown as if it were a fortune.
func (gs *greetingSteps) greetingShowsNoFortune() error {
	base, err := gs.greeting()
	if err != nil {
		return err
	}
	if gs.last, err = gs.browser.get(base+"/", "application/json"); err != nil {
		return err
	}
	v, ok, err := gs.pageAttribute("fortune")
	if err != nil && gs.last.status < 300 {
		return err
	}
	if ok && strings.TrimSpace(v) != "" {
		return gs.failf("the page shows %q as a fortune, though the fortune service refuses this user's token", v)
	}
	return nil
}

// greeting is the greeting client's base URL.
func (s *scenario) greeting() (string, error) {
	g := s.suite.services().Greeting
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
	base, err := gs.greeting()
	if err != nil {
		return err
	}
	b := gs.browser
	stops := b.stops
	defer func() { b.stops = stops }()
	b.stopAt(base)
	if err := gs.approve(); err != nil {
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
	b.stops = stops
	gs.last, err = b.get(back.String(), "")
	return err
}

package fortune

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/steps/auth"
	"github.com/fortune-tck/fortune-tck/steps/core"
)

// The greeting steps play a browser through the greeting client: its redirect to the authorization server,
// sign-in and consent there, and the page it renders with a fortune.

// greetingSteps play the greeting client's flow with the browser of the authorization code flow, which the
// auth area's Session lends them.
type greetingSteps struct {
	*core.Scenario
	user *auth.Session
	// back is the way back the authorization server sent the browser to the greeting client with, held, not
	// followed (wayback.go).
	back *url.URL
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
	sc.Step(`^the fortune service refuses the token "([^"]+)" gets from "([^"]+)" for "([^"]+)"$`, gs.fortuneRefusesTokenOf)
	sc.Step(`^"([^"]+)" signs in with the password "([^"]+)" and approves if asked$`, gs.signInAndApprove)
	sc.Step(`^the greeting page shows no fortune$`, gs.greetingShowsNoFortune)
	sc.Step(`^in a browser of its own, the greeting client shows "([^"]+)" \(password "([^"]+)"\) a fortune$`, gs.stillShowsFortunes)
	gs.registerWayBack(sc)
}

// stillShowsFortunes is the control of a scenario in which the greeting client shows no fortune: in a new
// browser, a user whose token the fortune service takes signs in through it and must see a fortune. A client
// that shows none to anyone (its code exchange fails, it cannot reach the fortune service) shows none for a
// reason of its own, so the scenario is blocked rather than passed.
func (gs *greetingSteps) stillShowsFortunes(user, password string) error {
	user, password, err := gs.Expand2(user, password)
	if err != nil {
		return err
	}
	if err := gs.openGreeting(); err != nil {
		return err
	}
	if err := gs.user.SignInAndApproveIfAsked(user, password); err != nil {
		return err
	}
	if err := gs.openGreetingJSON(); err != nil {
		return err
	}
	if v, ok, _ := gs.PageAttribute("fortune"); gs.Last.Status != http.StatusOK || !ok || strings.TrimSpace(v) == "" {
		return core.Blockedf("the greeting client shows no fortune to %s either, whose token the fortune service "+
			"takes (status %d): that it showed none before says nothing about a refused call", user, gs.Last.Status)
	}
	return nil
}

// fortuneRefusesTokenOf is the precondition of a scenario about a refused fortune call: a token the user gets
// for the scope, through the flow the greeting client would walk, is refused by the fortune service.
func (gs *greetingSteps) fortuneRefusesTokenOf(user, client, scope string) error {
	f := gs.Services().Fortune
	if f == nil {
		return core.Blockedf("the target declares no fortune service")
	}
	token, err := gs.user.ObtainToken(user, client, scope)
	if err != nil {
		return err
	}
	if err := gs.API(core.Request{Method: http.MethodGet, URL: f.URL + "/", Bearer: token, Accept: "text/plain"}); err != nil {
		return err
	}
	if gs.Last.Status != http.StatusUnauthorized && gs.Last.Status != http.StatusForbidden {
		return core.Blockedf("the fortune service answered %d to a token of %s for %q, not a refusal: the scenario "+
			"needs a user the fortune service refuses", gs.Last.Status, user, scope)
	}
	return nil
}

// signInAndApprove signs in and approves the consent page when the server shows one.
func (gs *greetingSteps) signInAndApprove(user, password string) error {
	return gs.user.SignInAndApproveIfAsked(user, password)
}

// greetingShowsNoFortune holds when the greeting page, asked for JSON, carries no fortune: after a refused
// fortune call, the refusal's body must not be shown as if it were a fortune.
func (gs *greetingSteps) greetingShowsNoFortune() error {
	if err := gs.openGreetingJSON(); err != nil {
		return err
	}
	v, ok, err := gs.PageAttribute("fortune")
	if err != nil && gs.Last.Status < 300 {
		return err
	}
	if ok && strings.TrimSpace(v) != "" {
		return gs.Failf("the page shows %q as a fortune, though the fortune service refuses this user's token", v)
	}
	return nil
}

// openGreetingJSON opens the greeting page asked for JSON in the flow's browser: the page the harness reads
// the fortune from.
func (gs *greetingSteps) openGreetingJSON() error {
	base, err := greetingBase(gs.Scenario)
	if err != nil {
		return err
	}
	return gs.user.Browse(base+"/", "application/json")
}

// greetingBase is the greeting client's base URL.
func greetingBase(s *core.Scenario) (string, error) {
	g := s.Services().Greeting
	if g == nil {
		return "", fmt.Errorf("the target declares no greeting client")
	}
	return g.URL, nil
}

// openGreetingOnce sends one request, without following the redirect, to see where it points.
func (gs *greetingSteps) openGreetingOnce() error {
	base, err := greetingBase(gs.Scenario)
	if err != nil {
		return err
	}
	return gs.Send(core.Request{Method: http.MethodGet, URL: base + "/"})
}

// authorizeRequest returns the query of the redirect the last answer made, after checking it goes to want.
func (gs *greetingSteps) authorizeRequest(want string) (url.Values, error) {
	a, err := gs.Answer()
	if err != nil {
		return nil, err
	}
	if a.Status < 300 || a.Status > 399 {
		return nil, gs.Failf("status %d, want a redirect", a.Status)
	}
	loc, err := url.Parse(a.Header.Get("Location"))
	if err != nil {
		return nil, gs.Failf("the Location %q does not parse", a.Header.Get("Location"))
	}
	if want != "" && loc.Scheme+"://"+loc.Host+loc.Path != want {
		return nil, gs.Failf("redirected to %s, want %s", loc, want)
	}
	return loc.Query(), nil
}

func (gs *greetingSteps) redirectedToAuthorize(endpoint, scopes string) error {
	endpoint, err := gs.Expand(endpoint)
	if err != nil {
		return err
	}
	q, err := gs.authorizeRequest(endpoint)
	if err != nil {
		return err
	}
	if q.Get("response_type") != "code" || q.Get("client_id") == "" {
		return gs.Failf("response_type=%q client_id=%q, want code and the client's id", q.Get("response_type"), q.Get("client_id"))
	}
	got := core.Words(q.Get("scope"))
	for _, s := range core.Words(scopes) {
		if !slices.Contains(got, s) {
			return gs.Failf("the requested scope %v lacks %s", got, s)
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
			return gs.Failf("the authorization request has no %s", k)
		}
	}
	if q.Get("code_challenge_method") != "S256" {
		return gs.Failf("code_challenge_method is %q, want S256", q.Get("code_challenge_method"))
	}
	return nil
}

func (gs *greetingSteps) redirectURIIsGreetingRoot() error {
	base, err := greetingBase(gs.Scenario)
	if err != nil {
		return err
	}
	q, err := gs.authorizeRequest("")
	if err != nil {
		return err
	}
	if got := q.Get("redirect_uri"); got != base+"/" {
		return gs.Failf("redirect_uri is %q, want the client's root %q", got, base+"/")
	}
	return nil
}

// openGreeting starts a browser that follows redirects between the greeting client and the authorization
// server, and opens the greeting client's root.
func (gs *greetingSteps) openGreeting() error {
	base, err := greetingBase(gs.Scenario)
	if err != nil {
		return err
	}
	if err := gs.user.NewBrowser(); err != nil {
		return err
	}
	return gs.user.Browse(base+"/", "")
}

func (gs *greetingSteps) backAtGreeting() error {
	base, err := greetingBase(gs.Scenario)
	if err != nil {
		return err
	}
	if at := gs.user.PageURL(); at == nil || !strings.HasPrefix(at.String(), base+"/") {
		return gs.Failf("the browser is not at the greeting client (%s)", base)
	}
	return nil
}

func (gs *greetingSteps) greetingShowsFortune() error {
	if err := gs.openGreetingJSON(); err != nil {
		return err
	}
	if gs.Last.Status != http.StatusOK {
		return gs.Failf("the greeting page answered %d, want 200", gs.Last.Status)
	}
	return gs.PageHas("fortune")
}

// greetingSaysWhatWentWrong looks at the page the flow ended on: no fortune, and words that say access was
// denied, in the text a person reads (an HTML page's visible text: a link or a script that carries the error
// code access_denied says nothing to the user).
func (gs *greetingSteps) greetingSaysWhatWentWrong() error {
	a, err := gs.Answer()
	if err != nil {
		return err
	}
	if a.Status >= 500 {
		return gs.Failf("the page answers %d: a denied consent is the user's choice, not a server error", a.Status)
	}
	text := strings.ToLower(core.Excerpt(a.Header.Get("Content-Type"), a.Body, core.MaxBody))
	if !strings.Contains(text, "denied") {
		return gs.Failf("the page does not say that access was denied")
	}
	return nil
}

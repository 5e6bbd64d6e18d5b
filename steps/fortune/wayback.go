package fortune

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// The way-back steps play the redirect from the authorization server to the greeting client (RFC 6749 4.1.2)
// as a scenario's row says: the browser is stopped on its way back after the user approved, and sent back with
// the code and the state it was given, or with one of them changed, dropped, or replaced by an error.

func (gs *greetingSteps) registerWayBack(sc *godog.ScenarioContext) {
	sc.Step(`^the user approves, and the browser stops on its way back to the greeting client$`, gs.stopOnWayBack)
	sc.Step(`^(the browser|a browser without a session) comes back with (.+)$`, gs.comeBack)
	sc.Step(`^the greeting page shows no fortune but names the error "([^"]+)", and does not say access was denied$`, gs.namesError)
}

// stopOnWayBack approves the consent page and holds the redirect to the greeting client instead of following
// it. The redirect must be the greeting client's root with a code and a state, else the scenario is blocked:
// its rows change what a real way back carries, and prove nothing about one that never came.
func (gs *greetingSteps) stopOnWayBack() error {
	base, err := greetingBase(gs.Scenario)
	if err != nil {
		return err
	}
	gs.back = nil
	back, err := gs.user.ApproveStoppingAt(base)
	if err != nil {
		return err
	}
	if back == nil {
		return core.Blockedf("the authorization server did not send the browser back to the greeting client (%s) after the approval", base)
	}
	if at := back.Scheme + "://" + back.Host + back.Path; at != base+"/" {
		return core.Blockedf("the way back goes to %s, not to the greeting client's root %s/", at, base)
	}
	if q := back.Query(); q.Get("code") == "" || q.Get("state") == "" || q.Has("error") {
		return core.Blockedf("the way back carries %s, not a code and a state", paramNames(q))
	}
	gs.back = back
	return nil
}

// paramNames lists the names of a query's parameters (their values may be secrets: a code).
func paramNames(q url.Values) string {
	names := slices.Sorted(maps.Keys(q))
	if len(names) == 0 {
		return "no parameters"
	}
	return "the parameters " + strings.Join(names, ", ")
}

// wayBackForm is a way back as a row writes it: what it carries, then what becomes of the state (or, for a way
// back with the state alone, that it has no code).
var wayBackForm = regexp.MustCompile(`^(the code|the error "([a-z_]+)"|the state) and (the state|another state|no state|no code)$`)

// wayBackURL is the held way back changed as form says; the parameters the row does not name (an iss, say)
// stay as the authorization server wrote them.
func (gs *greetingSteps) wayBackURL(form string) (string, error) {
	if gs.back == nil {
		return "", core.Blockedf("no way back is held: the browser was not stopped on its way back to the greeting client")
	}
	m := wayBackForm.FindStringSubmatch(form)
	if m == nil {
		return "", fmt.Errorf(`%q is no way back this step knows: write the code, the error "<code>" or the state, `+
			"then: and the state, and another state, and no state, or (after the state) and no code", form)
	}
	q := gs.back.Query()
	carries, errorCode, state := m[1], m[2], m[3]
	switch {
	case (carries == "the state") != (state == "no code"):
		return "", fmt.Errorf("%q: only a way back with the state alone has no code", form)
	case errorCode != "":
		q.Del("code")
		q.Set("error", errorCode)
	case carries == "the state":
		q.Del("code")
	}
	switch state {
	case "another state":
		q.Set("state", "forged-"+core.RandomID())
	case "no state":
		q.Del("state")
	}
	u := *gs.back
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// comeBack sends a browser back to the greeting client as the row says: the browser that was stopped (with
// its session, following the redirects that follow), or a browser without a session of the greeting client
// (one request, its answer as it is).
func (gs *greetingSteps) comeBack(who, form string) error {
	u, err := gs.wayBackURL(form)
	if err != nil {
		return err
	}
	if who == "the browser" {
		return gs.user.Browse(u, "")
	}
	return gs.Send(core.Request{Method: http.MethodGet, URL: u})
}

// namesError checks the page a way back with an error ended on: an error page (4xx or 5xx, no fortune) whose
// text a person reads names the error the authorization server sent, and does not call it a denial, which
// only access_denied is (RFC 6749 4.1.2.1).
func (gs *greetingSteps) namesError(code string) error {
	a, err := gs.Answer()
	if err != nil {
		return err
	}
	if a.Status < 400 || a.Status > 599 {
		return gs.Failf("status %d, want an error page (4xx or 5xx) for the error %s", a.Status, code)
	}
	text := strings.ToLower(core.Excerpt(a.Header.Get("Content-Type"), a.Body, core.MaxBody))
	if !strings.Contains(text, strings.ToLower(code)) {
		return gs.Failf("the page does not name the error %s", code)
	}
	if strings.Contains(text, "denied") {
		return gs.Failf("the page says access was denied, though the authorization server sent %s, not access_denied", code)
	}
	return nil
}

package auth

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/cucumber/godog"
	"golang.org/x/net/html"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// The flow steps play a browser and a client through the authorization code flow of spec 3.1, over HTTP with
// a cookie jar; forms are found by what they do, not by their markup.

// flowSteps are the authorization code flow under way: the browser of its user, the client, and what the
// request and its answers carried.
type flowSteps struct {
	*core.Scenario
	srv      *Server
	ids      *identitySteps
	browser  *browser
	client   string // the client of the flow under way
	redirect string
	state    string
	verifier string
	code     string
	codeAt   time.Time      // when the redirect that brought the code was read: after the server issued it
	asked    string         // the scope of the flow's authorization request
	tokens   map[string]any // the last successful token response
	// access is the access token of the last successful token response, newestRefresh the newest refresh token any
	// of them carried; the flow writes them as {access_token} and {refresh_token} too, for the features.
	access, newestRefresh string
	refreshed             []string // refresh tokens in the order they were used
	// refreshedOK tells whether the last use of a refresh token was answered with new tokens.
	refreshedOK bool
	// signIns are what every sign-in of the scenario was answered, for the account steps (accounts.go).
	signIns []signInAnswer
}

func (fl *flowSteps) register(sc *godog.ScenarioContext) {
	sc.Step(`^the browser asks for a code for "([^"]+)" with the scope "([^"]+)"$`, func(client, scope string) error {
		return fl.askForCode(client, scope, "")
	})
	sc.Step(`^the browser asks for a code for "([^"]+)" with the scope "([^"]+)" and the redirect URI "([^"]+)"$`, fl.askForCode)
	sc.Step(`^the authorization server shows a sign-in page$`, fl.showsSignIn)
	sc.Step(`^"([^"]+)" signs in with the password "([^"]+)"$`, fl.signIn)
	sc.Step(`^the authorization server asks to authorize the scopes "([^"]+)"$`, fl.asksConsent)
	sc.Step(`^the user approves$`, fl.approve)
	sc.Step(`^the user denies$`, fl.deny)
	sc.Step(`^the user unticks every scope but "([^"]+)" and approves$`, fl.approveOnly)
	sc.Step(`^the browser has not been sent back to the client$`, fl.notSentBack)
	sc.Step(`^the browser is sent back to the redirect URI with a code and the same state$`, fl.sentBackWithCode)
	sc.Step(`^the browser is sent back to the redirect URI with the error "([^"]+)" and the same state$`, fl.sentBackWithError)
	sc.Step(`^the browser starts a new session$`, func() error { fl.browser = nil; return nil })
	sc.Step(`^"([^"]+)" obtains a code for "([^"]+)" with the scope "([^"]+)"$`, fl.obtainCode)
	sc.Step(`^"([^"]+)" has approved "([^"]+)" on a consent page for the scope "([^"]+)"$`, fl.approvedOnConsentPage)
	sc.Step(`^"([^"]+)" holds a token from "([^"]+)" for "([^"]+)"$`, func(user, client, scope string) error {
		return fl.holdToken(user, client, scope, false)
	})
	sc.Step(`^"([^"]+)" holds a token and a refresh token from "([^"]+)" for "([^"]+)"$`, func(user, client, scope string) error {
		return fl.holdToken(user, client, scope, true)
	})
	sc.Step(`^the client exchanges the code with its credentials as form fields$`, func() error {
		return fl.exchangeCode(codeExchange{auth: formFields})
	})
	sc.Step(`^the client exchanges the code with HTTP Basic authentication$`, func() error {
		return fl.exchangeCode(codeExchange{auth: httpBasic})
	})
	sc.Step(`^the client exchanges the code again$`, func() error {
		return fl.exchangeCode(codeExchange{auth: asRegistered})
	})
	sc.Step(`^the client exchanges the code with the secret "([^"]+)" as form fields$`, func(secret string) error {
		return fl.exchangeCode(codeExchange{auth: formFields, secret: secret})
	})
	sc.Step(`^the client exchanges the code with its credentials as form fields and the verifier "([^"]+)"$`, func(v string) error {
		return fl.exchangeCode(codeExchange{auth: formFields, verifier: v})
	})
	sc.Step(`^the token response carries an access token with the scope "([^"]+)"$`, fl.tokenCarries)
	sc.Step(`^the token response does not carry the scope "([^"]+)"$`, fl.tokenLacks)
	sc.Step(`^the token response has an id token$`, func() error { return fl.tokenHas("id_token") })
	sc.Step(`^the token response has a refresh token$`, func() error { return fl.tokenHas("refresh_token") })
	sc.Step(`^the client uses the refresh token$`, fl.useNewestRefreshToken)
	sc.Step(`^the client has used the refresh token$`, fl.haveUsedRefreshToken)
	sc.Step(`^the client uses the first refresh token again$`, fl.useFirstRefreshTokenAgain)
	sc.Step(`^the user information is requested with the access token$`, fl.userInfo)
	sc.Step(`^the answer names the user "([^"]+)" with the e-mail address "([^"]+)"$`, fl.userinfoNames)
	fl.registerIDTokenSteps(sc)
}

// browserOf is the flow's browser, a new one (without cookies) when the scenario has none.
func (fl *flowSteps) browserOf() (*browser, error) {
	if _, err := fl.srv.endpoint("authorization", func(e endpoints) string { return e.Authorization }); err != nil {
		return nil, err
	}
	if fl.browser == nil {
		fl.browser = newBrowser(fl.srv.run, fl.Context(), fl.Keep)
	}
	return fl.browser, nil
}

// askForCode sends the browser to the authorization endpoint with a fresh state, nonce and PKCE challenge; the
// redirect URI is the client's registered one unless the step names another.
func (fl *flowSteps) askForCode(client, scope, redirect string) error {
	client, scope, err := fl.Expand2(client, scope)
	if err != nil {
		return err
	}
	if redirect == "" {
		redirect = fl.ids.clients[client].RedirectURI
	}
	b, err := fl.browserOf()
	if err != nil {
		return err
	}
	b.stopAt(redirect)
	scope = strings.Join(core.Words(scope), " ") // {refresh_scopes} may be empty
	authorize := fl.srv.endpoints.Authorization
	fl.client, fl.redirect, fl.state, fl.asked = client, redirect, "state-"+core.RandomID()+core.RandomID(), scope
	fl.Vars["nonce"] = "nonce-" + core.RandomID()
	verifier, challenge := pkce()
	fl.verifier = verifier
	q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect}, "scope": {scope},
		"state": {fl.state}, "nonce": {fl.Vars["nonce"]}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
	if slices.Contains(core.Words(scope), "offline_access") {
		q.Set("prompt", "consent") // OpenID Connect Core 11: offline access is asked with prompt=consent
	}
	sep := "?"
	if strings.Contains(authorize, "?") {
		sep = "&"
	}
	req, err := http.NewRequest(http.MethodGet, authorize+sep+q.Encode(), nil)
	if err != nil {
		return err
	}
	fl.Last, err = b.open(req)
	return err
}

// page parses the browser's page with the target's page rules.
func (fl *flowSteps) page() (*page, error) {
	b, err := fl.browserOf()
	if err != nil {
		return nil, err
	}
	return b.parse(fl.srv.services().AuthServer.Pages)
}

func (fl *flowSteps) showsSignIn() error {
	_, err := fl.signInForm()
	return err
}

// signInForm is the form of the page that has a password field.
func (fl *flowSteps) signInForm() (*form, error) {
	p, err := fl.page()
	if err != nil {
		return nil, err
	}
	f, _, err := p.signInForm()
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, fl.Failf("no sign-in form (a form with a password field) on the page %s", fl.browser.pageURL)
	}
	return f, nil
}

// signIn fills the form that has a password field: the password there, the user name in its text field.
func (fl *flowSteps) signIn(user, password string) error {
	user, password, err := fl.Expand2(user, password)
	if err != nil {
		return err
	}
	p, err := fl.page()
	if err != nil {
		return err
	}
	f, pw, err := p.signInForm()
	if err != nil {
		return err
	}
	if f == nil {
		return fl.Failf("no sign-in form (a form with a password field) on the page %s", fl.browser.pageURL)
	}
	name := p.userField(f)
	if name == nil {
		return fl.Failf("the sign-in form has no field for the user name (a text or e-mail input)")
	}
	f.fields.Set(attr(name, "name"), user)
	f.fields.Set(attr(pw, "name"), password)
	if submit := first(f.inputs, func(n *html.Node) bool { return isButton(n) && meaning(n) >= 0 }); submit != nil {
		press(f, submit)
	}
	sent := time.Now()
	if fl.Last, err = fl.browser.submit(f); err != nil {
		return err
	}
	return fl.keepSignIn(user, sent)
}

// keepSignIn keeps what the sign-in sent at sent was just answered, as a person sees it, and when.
func (fl *flowSteps) keepSignIn(user string, sent time.Time) error {
	answered := time.Now()
	p, err := fl.page()
	if err != nil {
		return err
	}
	f, _, err := p.signInForm()
	if err != nil {
		return err
	}
	fl.signIns = append(fl.signIns, signInAnswer{user: user, status: fl.browser.page.Status, form: f != nil,
		text: visibleText(p.doc, user), sent: sent, answered: answered})
	return nil
}

// consentPage is the consent page the browser shows.
func (fl *flowSteps) consentPage() (*consent, error) {
	p, err := fl.page()
	if err != nil {
		return nil, err
	}
	c, err := p.consentPage()
	if err != nil {
		return nil, err
	}
	if c == nil {
		if r := fl.browser.redirect; r != nil {
			return nil, fl.Failf("no consent page: after the sign-in, the server sent the browser back to the client at "+
				"once (%s). Spec 3.1 asks the server to ask the user's consent to the scopes of a client the user has "+
				"not authorized; OpenID Connect Core 3.1.2.4 lets a server obtain consent by other means", r)
		}
		return nil, fl.Failf("no consent page (a form with an approve control: allow, approve, authorize, accept, continue, yes) at %s",
			fl.browser.pageURL)
	}
	return c, nil
}

func (fl *flowSteps) asksConsent(scopes string) error {
	c, err := fl.consentPage()
	if err != nil {
		return err
	}
	for _, s := range core.Words(scopes) {
		if !c.offers(s) {
			return fl.Failf("the consent page does not ask for the scope %s (no checkbox for it, and not in its text)", s)
		}
	}
	return nil
}

// approve approves every scope the consent page offers.
func (fl *flowSteps) approve() error {
	c, err := fl.consentPage()
	if err != nil {
		return err
	}
	fl.Last, err = fl.browser.submit(c.approval())
	return err
}

// deny clicks the consent page's deny control.
func (fl *flowSteps) deny() error {
	c, err := fl.consentPage()
	if err != nil {
		return err
	}
	f, err := c.refusal()
	if err != nil {
		return fl.Failf("%v", err)
	}
	fl.Last, err = fl.browser.submit(f)
	return err
}

// approveOnly unticks the consent page's boxes for every scope but the ones named, then approves: the page
// must offer a box per scope (the capability auth.scope-choice).
func (fl *flowSteps) approveOnly(keep string) error {
	c, err := fl.consentPage()
	if err != nil {
		return err
	}
	if len(c.checkboxes) == 0 {
		return fl.Failf("the consent page has no scope checkboxes to untick")
	}
	f := c.approval()
	kept := core.Words(keep)
	for _, cb := range c.checkboxes {
		name, value := attr(cb, "name"), cmp.Or(attr(cb, "value"), "on")
		if slices.ContainsFunc(kept, func(s string) bool { return strings.HasSuffix(value, s) || strings.HasSuffix(name, s) }) {
			continue
		}
		f.fields[name] = slices.DeleteFunc(f.fields[name], func(v string) bool { return v == value })
		if len(f.fields[name]) == 0 {
			delete(f.fields, name)
		}
	}
	fl.Last, err = fl.browser.submit(f)
	return err
}

// notSentBack holds when no redirect has left the authorization server for the client (so no code was issued).
func (fl *flowSteps) notSentBack() error {
	b, err := fl.browserOf()
	if err != nil {
		return err
	}
	if b.redirect != nil {
		return fl.Failf("the browser was sent back to the client: %s", b.redirect)
	}
	return nil
}

// handedBack returns the query of the redirect that left the authorization server for the client.
func (fl *flowSteps) handedBack() (url.Values, error) {
	b, err := fl.browserOf()
	if err != nil {
		return nil, err
	}
	r := b.redirect
	if r == nil {
		return nil, fl.Failf("the browser was not sent back to the client")
	}
	if base := strings.SplitN(r.String(), "?", 2)[0]; base != fl.redirect {
		return nil, fl.Failf("the browser was sent to %s, want the redirect URI %s", r, fl.redirect)
	}
	q := r.Query()
	if q.Get("state") != fl.state {
		return nil, fl.Failf("the state came back as %q, want %q", q.Get("state"), fl.state)
	}
	return q, nil
}

func (fl *flowSteps) sentBackWithCode() error {
	q, err := fl.handedBack()
	if err != nil {
		return err
	}
	fl.codeAt = time.Now()
	if fl.code = q.Get("code"); fl.code == "" {
		return fl.Failf("the redirect to the client carries no code: %s", fl.browser.redirect)
	}
	return nil
}

func (fl *flowSteps) sentBackWithError(code string) error {
	q, err := fl.handedBack()
	if err != nil {
		return err
	}
	if q.Get("error") != code || q.Get("code") != "" {
		return fl.Failf("the redirect carries error=%q code=%q, want error=%q and no code", q.Get("error"), q.Get("code"), code)
	}
	return nil
}

// obtainCode walks the whole flow for a user (flowWalk): a precondition, so what goes wrong names the step of
// the flow it went wrong at.
func (fl *flowSteps) obtainCode(user, client, scope string) error {
	_, err := fl.walk(user, client, scope, false)
	return err
}

// approvedOnConsentPage walks the flow and requires that the server asked for consent on the way: what a
// scenario about remembered consents starts from, or it would credit a server that never asks.
func (fl *flowSteps) approvedOnConsentPage(user, client, scope string) error {
	consented, err := fl.walk(user, client, scope, false)
	if err != nil {
		return err
	}
	if !consented {
		return core.Blockedf("%s was sent back to the client with a code without being asked for consent: a scenario "+
			"about a consent given before needs one given on a consent page", user)
	}
	return nil
}

// walk takes a new browser through the flow for a user and returns whether a consent page was approved.
func (fl *flowSteps) walk(user, client, scope string, refresh bool) (bool, error) {
	fl.browser = nil
	user, err := fl.Expand(user)
	if err != nil {
		return false, err
	}
	password, err := fl.Expand(fl.passwordOf(user))
	if err != nil {
		return false, err
	}
	if refresh {
		scope += " {refresh_scopes}"
	}
	return fl.walkToCode(user, password, client, scope)
}

// holdToken walks the flow and exchanges the code, as the client is registered to authenticate. The token
// must be what the step says: it carries the scopes asked for (a server may grant fewer, RFC 6749 3.3, and a
// scenario about a token with fortunes.read proves nothing with one without it), fortunes.read only when
// asked, and a refresh token when one is asked for.
func (fl *flowSteps) holdToken(user, client, scope string, refresh bool) error {
	if _, err := fl.walk(user, client, scope, refresh); err != nil {
		return err
	}
	if err := fl.exchangeAsRegistered(); err != nil {
		return err
	}
	if err := fl.grantedAsAsked(); err != nil {
		return err
	}
	if rt, _ := fl.tokens["refresh_token"].(string); refresh && rt == "" {
		return core.Blockedf("the token response carries no refresh token (the scope asked was %q); %s", fl.asked, fl.refreshHint())
	}
	return nil
}

// grantedAsAsked checks that the last token response grants the scopes the flow asked for, and fortunes.read
// only when asked.
func (fl *flowSteps) grantedAsAsked() error {
	got, err := fl.grantedScopes()
	if err != nil {
		return err
	}
	asked := core.Words(fl.asked)
	for _, s := range asked {
		if !slices.Contains(got, s) {
			return core.Blockedf("the server granted the scope %q, not the %q asked for: %s was not granted (RFC 6749 3.3 "+
				"lets a server grant less; the scenario needs the token it names)", strings.Join(got, " "), fl.asked, s)
		}
	}
	if slices.Contains(got, "fortunes.read") && !slices.Contains(asked, "fortunes.read") {
		return core.Blockedf("the server granted fortunes.read, which was not asked for (scope %q)", strings.Join(got, " "))
	}
	return nil
}

// passwordOf is the password of one of the scenario's users, written as the placeholder the steps expand.
func (fl *flowSteps) passwordOf(user string) string {
	if u, err := fl.Expand(user); err == nil && u == fl.Vars["outsider"] {
		return "{outsider_password}"
	}
	return "{password}"
}

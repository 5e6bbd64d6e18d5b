package steps

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
	"golang.org/x/net/html"
)

// The flow steps play a browser and a client through the authorization code flow of spec 3.1, over HTTP with
// a cookie jar; forms are found by what they do, not by their markup.

// flowSteps are the authorization code flow under way: the browser of its user, the client, and what the
// request and its answers carried.
type flowSteps struct {
	*scenario
	ids       *identitySteps
	browser   *browser
	client    string // the client of the flow under way
	redirect  string
	state     string
	verifier  string
	code      string
	tokens    map[string]any // the last successful token response
	refreshed []string       // refresh tokens in the order they were used
}

// clientAuth is how a client authenticates at the token endpoint.
type clientAuth int

const (
	formFields clientAuth = iota // client_id and client_secret as form fields
	httpBasic                    // HTTP Basic, form-encoded (RFC 6749 2.3.1)
)

// codeExchange is one exchange of the code; secret and verifier default to the client's and the flow's.
type codeExchange struct {
	auth             clientAuth
	secret, verifier string
}

func (w *flowSteps) register(sc *godog.ScenarioContext) {
	sc.Step(`^the browser asks for a code for "([^"]+)" with the scope "([^"]+)"$`, func(client, scope string) error {
		return w.askForCode(client, scope, "")
	})
	sc.Step(`^the browser asks for a code for "([^"]+)" with the scope "([^"]+)" and the redirect URI "([^"]+)"$`, w.askForCode)
	sc.Step(`^the authorization server shows a sign-in page$`, w.showsSignIn)
	sc.Step(`^"([^"]+)" signs in with the password "([^"]+)"$`, w.signIn)
	sc.Step(`^the authorization server asks to authorize the scopes "([^"]+)"$`, w.asksConsent)
	sc.Step(`^the user approves$`, w.approve)
	sc.Step(`^the user denies$`, w.deny)
	sc.Step(`^the user unticks every scope but "([^"]+)" and approves$`, w.approveOnly)
	sc.Step(`^the browser has not been sent back to the client$`, w.notSentBack)
	sc.Step(`^the browser is sent back to the redirect URI with a code and the same state$`, w.sentBackWithCode)
	sc.Step(`^the browser is sent back to the redirect URI with the error "([^"]+)" and the same state$`, w.sentBackWithError)
	sc.Step(`^the browser starts a new session$`, func() error { w.browser = nil; return nil })
	sc.Step(`^"([^"]+)" obtains a code for "([^"]+)" with the scope "([^"]+)"$`, w.obtainCode)
	sc.Step(`^"([^"]+)" holds a token from "([^"]+)" for "([^"]+)"$`, w.holdToken)
	sc.Step(`^the client exchanges the code with its credentials as form fields$`, func() error {
		return w.exchangeCode(codeExchange{auth: formFields})
	})
	sc.Step(`^the client exchanges the code with HTTP Basic authentication$`, func() error {
		return w.exchangeCode(codeExchange{auth: httpBasic})
	})
	sc.Step(`^the client exchanges the code with the secret "([^"]+)" as form fields$`, func(secret string) error {
		return w.exchangeCode(codeExchange{auth: formFields, secret: secret})
	})
	sc.Step(`^the client exchanges the code with its credentials as form fields and the verifier "([^"]+)"$`, func(v string) error {
		return w.exchangeCode(codeExchange{auth: formFields, verifier: v})
	})
	sc.Step(`^the token response carries an access token with the scope "([^"]+)"$`, w.tokenCarries)
	sc.Step(`^the token response does not carry the scope "([^"]+)"$`, w.tokenLacks)
	sc.Step(`^the token response has a refresh token and an id token$`, w.tokenHasRefreshAndID)
	sc.Step(`^the client uses the refresh token$`, w.useNewestRefreshToken)
	sc.Step(`^the client uses the first refresh token again$`, w.useFirstRefreshTokenAgain)
	sc.Step(`^the user information is requested with the access token$`, w.userInfo)
	sc.Step(`^the answer names the user "([^"]+)" with the e-mail address "([^"]+)"$`, w.userinfoNames)
	w.registerIDTokenSteps(sc)
}

func (w *flowSteps) browserOf() (*browser, error) {
	authorize, err := w.endpoint("authorization", func(e Endpoints) string { return e.Authorization })
	if err != nil {
		return nil, err
	}
	if w.browser == nil {
		u, err := url.Parse(authorize)
		if err != nil {
			return nil, err
		}
		w.browser = newBrowser(u.Scheme+"://"+u.Host, w.suite.http)
	}
	return w.browser, nil
}

// askForCode sends the browser to the authorization endpoint with a fresh state, nonce and PKCE challenge; the
// redirect URI is the client's registered one unless the step names another.
func (w *flowSteps) askForCode(client, scope, redirect string) error {
	client, scope, err := w.expand2(client, scope)
	if err != nil {
		return err
	}
	if redirect == "" {
		redirect = w.ids.redirects[client]
	}
	b, err := w.browserOf()
	if err != nil {
		return err
	}
	authorize := w.suite.endpoints.Authorization
	w.client, w.redirect, w.state = client, redirect, "state-"+randomID()+randomID()
	w.vars["nonce"] = "nonce-" + randomID()
	verifier, challenge := pkce()
	w.verifier = verifier
	q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect}, "scope": {scope},
		"state": {w.state}, "nonce": {w.vars["nonce"]}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
	sep := "?"
	if strings.Contains(authorize, "?") {
		sep = "&"
	}
	req, err := http.NewRequest(http.MethodGet, authorize+sep+q.Encode(), nil)
	if err != nil {
		return err
	}
	w.last, err = b.open(req)
	return err
}

// page parses the browser's page with the target's page rules.
func (w *flowSteps) page() (*page, error) {
	b, err := w.browserOf()
	if err != nil {
		return nil, err
	}
	return b.parse(w.suite.env.AuthServer.Pages)
}

func (w *flowSteps) showsSignIn() error {
	_, err := w.signInForm()
	return err
}

// signInForm is the form of the page that has a password field.
func (w *flowSteps) signInForm() (*form, error) {
	p, err := w.page()
	if err != nil {
		return nil, err
	}
	f, _, err := p.signInForm()
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, w.failf("no sign-in form (a form with a password field) on the page %s", w.browser.pageURL)
	}
	return f, nil
}

// signIn fills the form that has a password field: the password there, the user name in its text field.
func (w *flowSteps) signIn(user, password string) error {
	user, password, err := w.expand2(user, password)
	if err != nil {
		return err
	}
	p, err := w.page()
	if err != nil {
		return err
	}
	f, pw, err := p.signInForm()
	if err != nil {
		return err
	}
	if f == nil {
		return w.failf("no sign-in form (a form with a password field) on the page %s", w.browser.pageURL)
	}
	name := p.userField(f)
	if name == nil {
		return w.failf("the sign-in form has no field for the user name (a text or e-mail input)")
	}
	f.fields.Set(attr(name, "name"), user)
	f.fields.Set(attr(pw, "name"), password)
	if submit := first(f.inputs, func(n *html.Node) bool { return isButton(n) && meaning(n) >= 0 }); submit != nil {
		press(f, submit)
	}
	w.last, err = w.browser.submit(f)
	return err
}

// consentPage is the consent page the browser shows.
func (w *flowSteps) consentPage() (*consent, error) {
	p, err := w.page()
	if err != nil {
		return nil, err
	}
	c, err := p.consentPage()
	if err != nil {
		return nil, err
	}
	if c == nil {
		hint := ""
		if w.browser.redirect != nil {
			hint = " (the browser was sent back to the client without one: if the server remembers consents, " +
				"declare the capability auth.remembered-consent so that scenarios that need a consent page use fresh users)"
		}
		return nil, w.failf("no consent page (a form with an approve control: allow, approve, authorize, accept, continue, yes) at %s%s",
			w.browser.pageURL, hint)
	}
	return c, nil
}

func (w *flowSteps) asksConsent(scopes string) error {
	c, err := w.consentPage()
	if err != nil {
		return err
	}
	for _, s := range words(scopes) {
		if !c.offers(s) {
			return w.failf("the consent page does not ask for the scope %s (no checkbox for it, and not in its text)", s)
		}
	}
	return nil
}

// approve approves every scope the consent page offers.
func (w *flowSteps) approve() error {
	c, err := w.consentPage()
	if err != nil {
		return err
	}
	w.last, err = w.browser.submit(c.approval())
	return err
}

// deny clicks the consent page's deny control.
func (w *flowSteps) deny() error {
	c, err := w.consentPage()
	if err != nil {
		return err
	}
	f, err := c.refusal()
	if err != nil {
		return w.failf("%v", err)
	}
	w.last, err = w.browser.submit(f)
	return err
}

// approveOnly unticks the consent page's boxes for every scope but the ones named, then approves: the page
// must offer a box per scope (the capability auth.scope-choice).
func (w *flowSteps) approveOnly(keep string) error {
	c, err := w.consentPage()
	if err != nil {
		return err
	}
	if len(c.checkboxes) == 0 {
		return w.failf("the consent page has no scope checkboxes to untick")
	}
	f := c.approval()
	kept := words(keep)
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
	w.last, err = w.browser.submit(f)
	return err
}

// notSentBack holds when no redirect has left the authorization server for the client (so no code was issued).
func (w *flowSteps) notSentBack() error {
	b, err := w.browserOf()
	if err != nil {
		return err
	}
	if b.redirect != nil {
		return w.failf("the browser was sent back to the client: %s", b.redirect)
	}
	return nil
}

// handedBack returns the query of the redirect that left the authorization server for the client.
func (w *flowSteps) handedBack() (url.Values, error) {
	b, err := w.browserOf()
	if err != nil {
		return nil, err
	}
	r := b.redirect
	if r == nil {
		return nil, w.failf("the browser was not sent back to the client")
	}
	if base := strings.SplitN(r.String(), "?", 2)[0]; base != w.redirect {
		return nil, w.failf("the browser was sent to %s, want the redirect URI %s", r, w.redirect)
	}
	q := r.Query()
	if q.Get("state") != w.state {
		return nil, w.failf("the state came back as %q, want %q", q.Get("state"), w.state)
	}
	return q, nil
}

func (w *flowSteps) sentBackWithCode() error {
	q, err := w.handedBack()
	if err != nil {
		return err
	}
	if w.code = q.Get("code"); w.code == "" {
		return w.failf("the redirect to the client carries no code: %s", w.browser.redirect)
	}
	return nil
}

func (w *flowSteps) sentBackWithError(code string) error {
	q, err := w.handedBack()
	if err != nil {
		return err
	}
	if q.Get("error") != code || q.Get("code") != "" {
		return w.failf("the redirect carries error=%q code=%q, want error=%q and no code", q.Get("error"), q.Get("code"), code)
	}
	return nil
}

// obtainCode walks the whole flow for a user: sign-in, consent when asked, code.
func (w *flowSteps) obtainCode(user, client, scope string) error {
	w.browser = nil
	if err := w.askForCode(client, scope, ""); err != nil {
		return err
	}
	if err := w.signIn(user, w.passwordOf(user)); err != nil {
		return err
	}
	if w.browser.redirect == nil {
		if err := w.approve(); err != nil {
			return err
		}
	}
	return w.sentBackWithCode()
}

func (w *flowSteps) holdToken(user, client, scope string) error {
	if err := w.obtainCode(user, client, scope); err != nil {
		return err
	}
	if err := w.exchangeCode(codeExchange{auth: formFields}); err != nil {
		return err
	}
	if w.last.status != http.StatusOK {
		return w.failf("the code exchange answered %d, want 200", w.last.status)
	}
	return nil
}

// exchangeCode posts the code to the token endpoint, the client authenticating as the exchange says.
func (w *flowSteps) exchangeCode(x codeExchange) error {
	secret := cmp.Or(x.secret, w.ids.secrets[w.client])
	form := url.Values{"grant_type": {"authorization_code"}, "code": {w.code},
		"redirect_uri": {w.redirect}, "code_verifier": {cmp.Or(x.verifier, w.verifier)}}
	var client *credentials
	switch x.auth {
	case httpBasic:
		client = &credentials{w.client, secret}
	case formFields:
		form.Set("client_id", w.client)
		form.Set("client_secret", secret)
	}
	return w.tokenRequest(form, client)
}

// tokenRequest posts to the token endpoint and keeps a successful answer's tokens.
func (w *flowSteps) tokenRequest(form url.Values, client *credentials) error {
	if err := w.postToken(form, client); err != nil {
		return err
	}
	if w.last.status != http.StatusOK {
		return nil
	}
	obj, err := w.jsonObject()
	if err != nil {
		return err
	}
	w.tokens = obj
	w.learnSubject(obj)
	w.vars["access_token"], _ = obj["access_token"].(string)
	if rt, _ := obj["refresh_token"].(string); rt != "" {
		w.vars["refresh_token"] = rt
	}
	return nil
}

func (w *flowSteps) grantedScopes() ([]string, error) {
	if _, err := w.answer(); err != nil {
		return nil, err
	}
	obj, err := w.jsonObject()
	if err != nil {
		return nil, err
	}
	tok, _ := obj["access_token"].(string)
	typ, _ := obj["token_type"].(string)
	if tok == "" || !strings.EqualFold(typ, "bearer") {
		return nil, w.failf("the token response has no bearer access token")
	}
	scope, _ := obj["scope"].(string)
	return words(scope), nil
}

func (w *flowSteps) tokenCarries(scopes string) error {
	got, err := w.grantedScopes()
	if err != nil {
		return err
	}
	for _, s := range words(scopes) {
		if !slices.Contains(got, s) {
			return w.failf("the token's scope %v lacks %s", got, s)
		}
	}
	return nil
}

func (w *flowSteps) tokenLacks(scope string) error {
	got, err := w.grantedScopes()
	if err != nil {
		return err
	}
	if slices.Contains(got, scope) {
		return w.failf("the token's scope %v has %s", got, scope)
	}
	return nil
}

func (w *flowSteps) tokenHasRefreshAndID() error {
	obj, err := w.jsonObject()
	if err != nil {
		return err
	}
	for _, k := range []string{"refresh_token", "id_token"} {
		if s, _ := obj[k].(string); s == "" {
			return w.failf("the token response has no %s", k)
		}
	}
	return nil
}

// useNewestRefreshToken posts the refresh grant with the newest refresh token, and remembers it as used.
func (w *flowSteps) useNewestRefreshToken() error {
	rt := w.vars["refresh_token"]
	w.refreshed = append(w.refreshed, rt)
	return w.refresh(rt)
}

// useFirstRefreshTokenAgain posts the refresh grant again with the first refresh token used.
func (w *flowSteps) useFirstRefreshTokenAgain() error {
	if len(w.refreshed) == 0 {
		return fmt.Errorf("no refresh token was used before this step")
	}
	return w.refresh(w.refreshed[0])
}

func (w *flowSteps) refresh(token string) error {
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token},
		"client_id": {w.client}, "client_secret": {w.ids.secrets[w.client]}}
	return w.tokenRequest(form, nil)
}

func (w *flowSteps) userInfo() error {
	u, err := w.endpoint("userinfo", func(e Endpoints) string { return e.Userinfo })
	if err != nil {
		return err
	}
	return w.api(request{method: http.MethodGet, url: u, bearer: w.vars["access_token"]})
}

// untilExpired waits until the access token's lifetime, given in the token response, has passed: the one
// sleep of the auth features, bounded to 5 seconds.
func (w *flowSteps) untilExpired() error {
	exp, err := strconv.ParseFloat(fmt.Sprint(w.tokens["expires_in"]), 64)
	if err != nil || exp < 0 || exp > 4 {
		return fmt.Errorf("the access token lives %vs; a token that expires within 4s is needed here", exp)
	}
	time.Sleep(time.Duration(exp)*time.Second + 1100*time.Millisecond)
	return nil
}

// userinfoNames checks UAA's user information: the user's name as user_name or as OpenID Connect's
// preferred_username, and the e-mail address.
func (w *flowSteps) userinfoNames(user, email string) error {
	user, email, err := w.expand2(user, email)
	if err != nil {
		return err
	}
	obj, err := w.jsonObject()
	if err != nil {
		return err
	}
	if obj["user_name"] != user && obj["preferred_username"] != user {
		return w.failf("neither user_name (%s) nor preferred_username (%s) is %q", mustJSON(obj["user_name"]), mustJSON(obj["preferred_username"]), user)
	}
	if obj["email"] != email {
		return w.failf("email is %s, want %q", mustJSON(obj["email"]), email)
	}
	return nil
}

// passwordOf is the password of one of the scenario's users, written as the placeholder the steps expand.
func (w *flowSteps) passwordOf(user string) string {
	if u, err := w.expand(user); err == nil && u == w.vars["outsider"] {
		return "{outsider_password}"
	}
	return "{password}"
}

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
	sc.Step(`^"([^"]+)" holds a token from "([^"]+)" for "([^"]+)"$`, fl.holdToken)
	sc.Step(`^the client exchanges the code with its credentials as form fields$`, func() error {
		return fl.exchangeCode(codeExchange{auth: formFields})
	})
	sc.Step(`^the client exchanges the code with HTTP Basic authentication$`, func() error {
		return fl.exchangeCode(codeExchange{auth: httpBasic})
	})
	sc.Step(`^the client exchanges the code with the secret "([^"]+)" as form fields$`, func(secret string) error {
		return fl.exchangeCode(codeExchange{auth: formFields, secret: secret})
	})
	sc.Step(`^the client exchanges the code with its credentials as form fields and the verifier "([^"]+)"$`, func(v string) error {
		return fl.exchangeCode(codeExchange{auth: formFields, verifier: v})
	})
	sc.Step(`^the token response carries an access token with the scope "([^"]+)"$`, fl.tokenCarries)
	sc.Step(`^the token response does not carry the scope "([^"]+)"$`, fl.tokenLacks)
	sc.Step(`^the token response has a refresh token and an id token$`, fl.tokenHasRefreshAndID)
	sc.Step(`^the client uses the refresh token$`, fl.useNewestRefreshToken)
	sc.Step(`^the client uses the first refresh token again$`, fl.useFirstRefreshTokenAgain)
	sc.Step(`^the user information is requested with the access token$`, fl.userInfo)
	sc.Step(`^the answer names the user "([^"]+)" with the e-mail address "([^"]+)"$`, fl.userinfoNames)
	fl.registerIDTokenSteps(sc)
}

func (fl *flowSteps) browserOf() (*browser, error) {
	authorize, err := fl.endpoint("authorization", func(e Endpoints) string { return e.Authorization })
	if err != nil {
		return nil, err
	}
	if fl.browser == nil {
		u, err := url.Parse(authorize)
		if err != nil {
			return nil, err
		}
		fl.browser = newBrowser(u.Scheme+"://"+u.Host, fl.suite.http)
	}
	return fl.browser, nil
}

// askForCode sends the browser to the authorization endpoint with a fresh state, nonce and PKCE challenge; the
// redirect URI is the client's registered one unless the step names another.
func (fl *flowSteps) askForCode(client, scope, redirect string) error {
	client, scope, err := fl.expand2(client, scope)
	if err != nil {
		return err
	}
	if redirect == "" {
		redirect = fl.ids.redirects[client]
	}
	b, err := fl.browserOf()
	if err != nil {
		return err
	}
	authorize := fl.suite.endpoints.Authorization
	fl.client, fl.redirect, fl.state = client, redirect, "state-"+randomID()+randomID()
	fl.vars["nonce"] = "nonce-" + randomID()
	verifier, challenge := pkce()
	fl.verifier = verifier
	q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect}, "scope": {scope},
		"state": {fl.state}, "nonce": {fl.vars["nonce"]}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
	sep := "?"
	if strings.Contains(authorize, "?") {
		sep = "&"
	}
	req, err := http.NewRequest(http.MethodGet, authorize+sep+q.Encode(), nil)
	if err != nil {
		return err
	}
	fl.last, err = b.open(req)
	return err
}

// page parses the browser's page with the target's page rules.
func (fl *flowSteps) page() (*page, error) {
	b, err := fl.browserOf()
	if err != nil {
		return nil, err
	}
	return b.parse(fl.suite.env.AuthServer.Pages)
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
		return nil, fl.failf("no sign-in form (a form with a password field) on the page %s", fl.browser.pageURL)
	}
	return f, nil
}

// signIn fills the form that has a password field: the password there, the user name in its text field.
func (fl *flowSteps) signIn(user, password string) error {
	user, password, err := fl.expand2(user, password)
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
		return fl.failf("no sign-in form (a form with a password field) on the page %s", fl.browser.pageURL)
	}
	name := p.userField(f)
	if name == nil {
		return fl.failf("the sign-in form has no field for the user name (a text or e-mail input)")
	}
	f.fields.Set(attr(name, "name"), user)
	f.fields.Set(attr(pw, "name"), password)
	if submit := first(f.inputs, func(n *html.Node) bool { return isButton(n) && meaning(n) >= 0 }); submit != nil {
		press(f, submit)
	}
	fl.last, err = fl.browser.submit(f)
	return err
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
		hint := ""
		if fl.browser.redirect != nil {
			hint = " (the browser was sent back to the client without one: if the server remembers consents, " +
				"declare the capability auth.remembered-consent so that scenarios that need a consent page use fresh users)"
		}
		return nil, fl.failf("no consent page (a form with an approve control: allow, approve, authorize, accept, continue, yes) at %s%s",
			fl.browser.pageURL, hint)
	}
	return c, nil
}

func (fl *flowSteps) asksConsent(scopes string) error {
	c, err := fl.consentPage()
	if err != nil {
		return err
	}
	for _, s := range words(scopes) {
		if !c.offers(s) {
			return fl.failf("the consent page does not ask for the scope %s (no checkbox for it, and not in its text)", s)
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
	fl.last, err = fl.browser.submit(c.approval())
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
		return fl.failf("%v", err)
	}
	fl.last, err = fl.browser.submit(f)
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
		return fl.failf("the consent page has no scope checkboxes to untick")
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
	fl.last, err = fl.browser.submit(f)
	return err
}

// notSentBack holds when no redirect has left the authorization server for the client (so no code was issued).
func (fl *flowSteps) notSentBack() error {
	b, err := fl.browserOf()
	if err != nil {
		return err
	}
	if b.redirect != nil {
		return fl.failf("the browser was sent back to the client: %s", b.redirect)
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
		return nil, fl.failf("the browser was not sent back to the client")
	}
	if base := strings.SplitN(r.String(), "?", 2)[0]; base != fl.redirect {
		return nil, fl.failf("the browser was sent to %s, want the redirect URI %s", r, fl.redirect)
	}
	q := r.Query()
	if q.Get("state") != fl.state {
		return nil, fl.failf("the state came back as %q, want %q", q.Get("state"), fl.state)
	}
	return q, nil
}

func (fl *flowSteps) sentBackWithCode() error {
	q, err := fl.handedBack()
	if err != nil {
		return err
	}
	if fl.code = q.Get("code"); fl.code == "" {
		return fl.failf("the redirect to the client carries no code: %s", fl.browser.redirect)
	}
	return nil
}

func (fl *flowSteps) sentBackWithError(code string) error {
	q, err := fl.handedBack()
	if err != nil {
		return err
	}
	if q.Get("error") != code || q.Get("code") != "" {
		return fl.failf("the redirect carries error=%q code=%q, want error=%q and no code", q.Get("error"), q.Get("code"), code)
	}
	return nil
}

// obtainCode walks the whole flow for a user: sign-in, consent when asked, code.
func (fl *flowSteps) obtainCode(user, client, scope string) error {
	fl.browser = nil
	if err := fl.askForCode(client, scope, ""); err != nil {
		return err
	}
	if err := fl.signIn(user, fl.passwordOf(user)); err != nil {
		return err
	}
	if fl.browser.redirect == nil {
		if err := fl.approve(); err != nil {
			return err
		}
	}
	return fl.sentBackWithCode()
}

func (fl *flowSteps) holdToken(user, client, scope string) error {
	if err := fl.obtainCode(user, client, scope); err != nil {
		return err
	}
	if err := fl.exchangeCode(codeExchange{auth: formFields}); err != nil {
		return err
	}
	if fl.last.status != http.StatusOK {
		return fl.failf("the code exchange answered %d, want 200", fl.last.status)
	}
	return nil
}

// exchangeCode posts the code to the token endpoint, the client authenticating as the exchange says.
func (fl *flowSteps) exchangeCode(x codeExchange) error {
	secret := cmp.Or(x.secret, fl.ids.secrets[fl.client])
	form := url.Values{"grant_type": {"authorization_code"}, "code": {fl.code},
		"redirect_uri": {fl.redirect}, "code_verifier": {cmp.Or(x.verifier, fl.verifier)}}
	var client *credentials
	switch x.auth {
	case httpBasic:
		client = &credentials{fl.client, secret}
	case formFields:
		form.Set("client_id", fl.client)
		form.Set("client_secret", secret)
	}
	return fl.tokenRequest(form, client)
}

// tokenRequest posts to the token endpoint and keeps a successful answer's tokens.
func (fl *flowSteps) tokenRequest(form url.Values, client *credentials) error {
	if err := fl.postToken(form, client); err != nil {
		return err
	}
	if fl.last.status != http.StatusOK {
		return nil
	}
	obj, err := fl.jsonObject()
	if err != nil {
		return err
	}
	fl.tokens = obj
	fl.learnSubject(obj)
	fl.vars["access_token"], _ = obj["access_token"].(string)
	if rt, _ := obj["refresh_token"].(string); rt != "" {
		fl.vars["refresh_token"] = rt
	}
	return nil
}

func (fl *flowSteps) grantedScopes() ([]string, error) {
	if _, err := fl.answer(); err != nil {
		return nil, err
	}
	obj, err := fl.jsonObject()
	if err != nil {
		return nil, err
	}
	tok, _ := obj["access_token"].(string)
	typ, _ := obj["token_type"].(string)
	if tok == "" || !strings.EqualFold(typ, "bearer") {
		return nil, fl.failf("the token response has no bearer access token")
	}
	scope, _ := obj["scope"].(string)
	return words(scope), nil
}

func (fl *flowSteps) tokenCarries(scopes string) error {
	got, err := fl.grantedScopes()
	if err != nil {
		return err
	}
	for _, s := range words(scopes) {
		if !slices.Contains(got, s) {
			return fl.failf("the token's scope %v lacks %s", got, s)
		}
	}
	return nil
}

func (fl *flowSteps) tokenLacks(scope string) error {
	got, err := fl.grantedScopes()
	if err != nil {
		return err
	}
	if slices.Contains(got, scope) {
		return fl.failf("the token's scope %v has %s", got, scope)
	}
	return nil
}

func (fl *flowSteps) tokenHasRefreshAndID() error {
	obj, err := fl.jsonObject()
	if err != nil {
		return err
	}
	for _, k := range []string{"refresh_token", "id_token"} {
		if s, _ := obj[k].(string); s == "" {
			return fl.failf("the token response has no %s", k)
		}
	}
	return nil
}

// useNewestRefreshToken posts the refresh grant with the newest refresh token, and remembers it as used.
func (fl *flowSteps) useNewestRefreshToken() error {
	rt := fl.vars["refresh_token"]
	fl.refreshed = append(fl.refreshed, rt)
	return fl.refresh(rt)
}

// useFirstRefreshTokenAgain posts the refresh grant again with the first refresh token used.
func (fl *flowSteps) useFirstRefreshTokenAgain() error {
	if len(fl.refreshed) == 0 {
		return fmt.Errorf("no refresh token was used before this step")
	}
	return fl.refresh(fl.refreshed[0])
}

func (fl *flowSteps) refresh(token string) error {
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token},
		"client_id": {fl.client}, "client_secret": {fl.ids.secrets[fl.client]}}
	return fl.tokenRequest(form, nil)
}

func (fl *flowSteps) userInfo() error {
	u, err := fl.endpoint("userinfo", func(e Endpoints) string { return e.Userinfo })
	if err != nil {
		return err
	}
	return fl.api(request{method: http.MethodGet, url: u, bearer: fl.vars["access_token"]})
}

// untilExpired waits until the access token's lifetime, given in the token response, has passed: the one
// sleep of the auth features, bounded to 5 seconds.
func (fl *flowSteps) untilExpired() error {
	exp, err := strconv.ParseFloat(fmt.Sprint(fl.tokens["expires_in"]), 64)
	if err != nil || exp < 0 || exp > 4 {
		return fmt.Errorf("the access token lives %vs; a token that expires within 4s is needed here", exp)
	}
	time.Sleep(time.Duration(exp)*time.Second + 1100*time.Millisecond)
	return nil
}

// userinfoNames checks UAA's user information: the user's name as user_name or as OpenID Connect's
// preferred_username, and the e-mail address.
func (fl *flowSteps) userinfoNames(user, email string) error {
	user, email, err := fl.expand2(user, email)
	if err != nil {
		return err
	}
	obj, err := fl.jsonObject()
	if err != nil {
		return err
	}
	if obj["user_name"] != user && obj["preferred_username"] != user {
		return fl.failf("neither user_name (%s) nor preferred_username (%s) is %q", mustJSON(obj["user_name"]), mustJSON(obj["preferred_username"]), user)
	}
	if obj["email"] != email {
		return fl.failf("email is %s, want %q", mustJSON(obj["email"]), email)
	}
	return nil
}

// passwordOf is the password of one of the scenario's users, written as the placeholder the steps expand.
func (fl *flowSteps) passwordOf(user string) string {
	if u, err := fl.expand(user); err == nil && u == fl.vars["outsider"] {
		return "{outsider_password}"
	}
	return "{password}"
}

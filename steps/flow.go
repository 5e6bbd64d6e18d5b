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

func (w *world) registerFlowSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the browser asks for a code for "([^"]+)" with the scope "([^"]+)"$`, func(client, scope string) error {
		return w.askForCode(client, scope, "")
	})
	sc.Step(`^the browser asks for a code for "([^"]+)" with the scope "([^"]+)" and the redirect URI "([^"]+)"$`, w.askForCode)
	sc.Step(`^the authorization server shows a sign-in page$`, w.showsSignIn)
	sc.Step(`^"([^"]+)" signs in with the password "([^"]+)"$`, w.signIn)
	sc.Step(`^the authorization server asks to authorize the scopes "([^"]+)"$`, w.asksConsent)
	sc.Step(`^the user approves$`, func() error { return w.decide(true) })
	sc.Step(`^the user denies$`, func() error { return w.decide(false) })
	sc.Step(`^the user unticks every scope but "([^"]+)" and approves$`, w.approveOnly)
	sc.Step(`^the browser has not been sent back to the client$`, w.notSentBack)
	sc.Step(`^the browser is sent back to the redirect URI with a code and the same state$`, w.sentBackWithCode)
	sc.Step(`^the browser is sent back to the redirect URI with the error "([^"]+)" and the same state$`, w.sentBackWithError)
	sc.Step(`^the browser starts a new session$`, func() error { w.auth.browser = nil; return nil })
	sc.Step(`^"([^"]+)" obtains a code for "([^"]+)" with the scope "([^"]+)"$`, w.obtainCode)
	sc.Step(`^"([^"]+)" holds a token from "([^"]+)" for "([^"]+)"$`, w.holdToken)
	sc.Step(`^the client exchanges the code with its credentials as form fields$`, func() error {
		return w.exchangeCode("", false, "")
	})
	sc.Step(`^the client exchanges the code with HTTP Basic authentication$`, func() error { return w.exchangeCode("", true, "") })
	sc.Step(`^the client exchanges the code with the secret "([^"]+)" as form fields$`, func(secret string) error {
		return w.exchangeCode(secret, false, "")
	})
	sc.Step(`^the client exchanges the code with its credentials as form fields and the verifier "([^"]+)"$`, func(v string) error {
		return w.exchangeCode("", false, v)
	})
	sc.Step(`^the token response carries an access token with the scope "([^"]+)"$`, w.tokenCarries)
	sc.Step(`^the token response does not carry the scope "([^"]+)"$`, w.tokenLacks)
	sc.Step(`^the token response has a refresh token and an id token$`, w.tokenHasRefreshAndID)
	sc.Step(`^the answer redirects nowhere$`, w.redirectsNowhere)
	sc.Step(`^the answer is (\d{3}) with the error "([^"]+)"$`, w.answerIsError)
	sc.Step(`^the client uses the refresh token$`, func() error { return w.useRefreshToken(false) })
	sc.Step(`^the client uses the first refresh token again$`, func() error { return w.useRefreshToken(true) })
	sc.Step(`^the user information is requested with the access token$`, w.userInfo)
	sc.Step(`^the answer names the user "([^"]+)" with the e-mail address "([^"]+)"$`, w.userinfoNames)
	w.registerIDTokenSteps(sc)
}

func (w *world) browserOf() (*browser, error) {
	authorize, err := w.endpoint("authorization", func(e Endpoints) string { return e.Authorization })
	if err != nil {
		return nil, err
	}
	if w.auth.browser == nil {
		u, err := url.Parse(authorize)
		if err != nil {
			return nil, err
		}
		w.auth.browser = newBrowser(u.Scheme+"://"+u.Host, w.suite.http)
	}
	return w.auth.browser, nil
}

// askForCode sends the browser to the authorization endpoint with a fresh state, nonce and PKCE challenge; the
// redirect URI is the client's registered one unless the step names another.
func (w *world) askForCode(client, scope, redirect string) error {
	client, scope, err := w.expand2(client, scope)
	if err != nil {
		return err
	}
	if redirect == "" {
		redirect = w.auth.redirects[client]
	}
	b, err := w.browserOf()
	if err != nil {
		return err
	}
	authorize := w.suite.endpoints.Authorization
	w.auth.client, w.auth.redirect, w.auth.state = client, redirect, "state-"+randomID()+randomID()
	w.vars["nonce"] = "nonce-" + randomID()
	verifier, challenge := pkce()
	w.auth.verifier = verifier
	q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect}, "scope": {scope},
		"state": {w.auth.state}, "nonce": {w.vars["nonce"]}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
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
func (w *world) page() (*page, error) {
	b, err := w.browserOf()
	if err != nil {
		return nil, err
	}
	return b.parse(w.suite.env.AuthServer.Pages)
}

func (w *world) showsSignIn() error {
	_, err := w.signInForm()
	return err
}

// signInForm is the form of the page that has a password field.
func (w *world) signInForm() (*form, error) {
	p, err := w.page()
	if err != nil {
		return nil, err
	}
	f, _, err := p.signInForm()
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, w.failf("no sign-in form (a form with a password field) on the page %s", w.auth.browser.pageURL)
	}
	return f, nil
}

// signIn fills the form that has a password field: the password there, the user name in its text field.
func (w *world) signIn(user, password string) error {
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
		return w.failf("no sign-in form (a form with a password field) on the page %s", w.auth.browser.pageURL)
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
	w.last, err = w.auth.browser.submit(f)
	return err
}

// consentPage is the consent page the browser shows.
func (w *world) consentPage() (*consent, error) {
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
		if w.auth.browser.redirect != nil {
			hint = " (the browser was sent back to the client without one: if the server remembers consents, " +
				"declare the capability auth.remembered-consent so that scenarios that need a consent page use fresh users)"
		}
		return nil, w.failf("no consent page (a form with an approve control: allow, approve, authorize, accept, continue, yes) at %s%s",
			w.auth.browser.pageURL, hint)
	}
	return c, nil
}

func (w *world) asksConsent(scopes string) error {
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

// decide approves every scope, or clicks the deny control.
func (w *world) decide(approve bool) error {
	c, err := w.consentPage()
	if err != nil {
		return err
	}
	f := c.approval()
	if !approve {
		if f, err = c.refusal(); err != nil {
			return w.failf("%v", err)
		}
	}
	w.last, err = w.auth.browser.submit(f)
	return err
}

// approveOnly unticks the consent page's boxes for every scope but the ones named, then approves: the page
// must offer a box per scope (the capability auth.scope-choice).
func (w *world) approveOnly(keep string) error {
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
	w.last, err = w.auth.browser.submit(f)
	return err
}

// notSentBack holds when no redirect has left the authorization server for the client (so no code was issued).
func (w *world) notSentBack() error {
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
func (w *world) handedBack() (url.Values, error) {
	b, err := w.browserOf()
	if err != nil {
		return nil, err
	}
	r := b.redirect
	if r == nil {
		return nil, w.failf("the browser was not sent back to the client")
	}
	if base := strings.SplitN(r.String(), "?", 2)[0]; base != w.auth.redirect {
		return nil, w.failf("the browser was sent to %s, want the redirect URI %s", r, w.auth.redirect)
	}
	q := r.Query()
	if q.Get("state") != w.auth.state {
		return nil, w.failf("the state came back as %q, want %q", q.Get("state"), w.auth.state)
	}
	return q, nil
}

func (w *world) sentBackWithCode() error {
	q, err := w.handedBack()
	if err != nil {
		return err
	}
	if w.auth.code = q.Get("code"); w.auth.code == "" {
		return w.failf("the redirect to the client carries no code: %s", w.auth.browser.redirect)
	}
	return nil
}

func (w *world) sentBackWithError(code string) error {
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
func (w *world) obtainCode(user, client, scope string) error {
	w.auth.browser = nil
	if err := w.askForCode(client, scope, ""); err != nil {
		return err
	}
	if err := w.signIn(user, w.passwordOf(user)); err != nil {
		return err
	}
	if w.auth.browser.redirect == nil {
		if err := w.decide(true); err != nil {
			return err
		}
	}
	return w.sentBackWithCode()
}

func (w *world) holdToken(user, client, scope string) error {
	if err := w.obtainCode(user, client, scope); err != nil {
		return err
	}
	if err := w.exchangeCode("", false, ""); err != nil {
		return err
	}
	if w.last.status != http.StatusOK {
		return w.failf("the code exchange answered %d, want 200", w.last.status)
	}
	return nil
}

// exchangeCode posts the code to the token endpoint, the client authenticating with form fields or Basic.
func (w *world) exchangeCode(secret string, useBasic bool, verifier string) error {
	if secret == "" {
		secret = w.auth.secrets[w.auth.client]
	}
	if verifier == "" {
		verifier = w.auth.verifier
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {w.auth.code},
		"redirect_uri": {w.auth.redirect}, "code_verifier": {verifier}}
	var auth func(*http.Request)
	if useBasic {
		auth = basic(w.auth.client, secret)
	} else {
		form.Set("client_id", w.auth.client)
		form.Set("client_secret", secret)
	}
	return w.tokenRequest(form, auth)
}

// tokenRequest posts to the token endpoint and keeps a successful answer's tokens.
func (w *world) tokenRequest(form url.Values, auth func(*http.Request)) error {
	if err := w.postToken(form, auth); err != nil {
		return err
	}
	if w.last.status != http.StatusOK {
		return nil
	}
	obj, err := w.jsonObject()
	if err != nil {
		return err
	}
	w.auth.tokens = obj
	w.learnSubject(obj)
	w.vars["access_token"], _ = obj["access_token"].(string)
	if rt, _ := obj["refresh_token"].(string); rt != "" {
		w.vars["refresh_token"] = rt
	}
	return nil
}

func (w *world) grantedScopes() ([]string, error) {
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

func (w *world) tokenCarries(scopes string) error {
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

func (w *world) tokenLacks(scope string) error {
	got, err := w.grantedScopes()
	if err != nil {
		return err
	}
	if slices.Contains(got, scope) {
		return w.failf("the token's scope %v has %s", got, scope)
	}
	return nil
}

func (w *world) tokenHasRefreshAndID() error {
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

func (w *world) redirectsNowhere() error {
	a, err := w.answer()
	if err != nil {
		return err
	}
	if loc := a.header.Get("Location"); loc != "" || (a.status >= 300 && a.status < 400) {
		return w.failf("the answer redirects (%d to %q)", a.status, loc)
	}
	return nil
}

func (w *world) answerIsError(status int, code string) error {
	if err := w.answerIs(status); err != nil {
		return err
	}
	obj, err := w.jsonObject()
	if err != nil {
		return err
	}
	if obj["error"] != code {
		return w.failf("error is %v, want %q", obj["error"], code)
	}
	return nil
}

// useRefreshToken posts the refresh grant with the newest refresh token, or again with the first one used.
func (w *world) useRefreshToken(first bool) error {
	rt := w.vars["refresh_token"]
	if first {
		if len(w.auth.refreshed) == 0 {
			return fmt.Errorf("no refresh token was used before this step")
		}
		rt = w.auth.refreshed[0]
	} else {
		w.auth.refreshed = append(w.auth.refreshed, rt)
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt},
		"client_id": {w.auth.client}, "client_secret": {w.auth.secrets[w.auth.client]}}
	return w.tokenRequest(form, nil)
}

func (w *world) userInfo() error {
	u, err := w.endpoint("userinfo", func(e Endpoints) string { return e.Userinfo })
	if err != nil {
		return err
	}
	return w.send(http.MethodGet, u, requestBody{}, bearer(w.vars["access_token"]))
}

// untilExpired waits until the access token's lifetime, given in the token response, has passed: the one
// sleep of the auth features, bounded to 5 seconds.
func (w *world) untilExpired() error {
	exp, err := strconv.ParseFloat(fmt.Sprint(w.auth.tokens["expires_in"]), 64)
	if err != nil || exp < 0 || exp > 4 {
		return fmt.Errorf("the access token lives %vs; a token that expires within 4s is needed here", exp)
	}
	time.Sleep(time.Duration(exp)*time.Second + 1100*time.Millisecond)
	return nil
}

// userinfoNames checks UAA's user information: the user's name as user_name or as OpenID Connect's
// preferred_username, and the e-mail address.
func (w *world) userinfoNames(user, email string) error {
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
func (w *world) passwordOf(user string) string {
	if u, err := w.expand(user); err == nil && u == w.vars["outsider"] {
		return "{outsider_password}"
	}
	return "{password}"
}

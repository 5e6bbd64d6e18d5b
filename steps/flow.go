package steps

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
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
}

func (w *world) browserOf() (*browser, error) {
	as, err := w.authServer()
	if err != nil {
		return nil, err
	}
	if w.auth.browser == nil {
		w.auth.browser = newBrowser(as.URL, w.suite.http)
	}
	return w.auth.browser, nil
}

// askForCode sends the browser to /oauth/authorize with a fresh state, nonce and PKCE challenge.
func (w *world) askForCode(client, scope, redirect string) error {
	client, scope, err := w.expand2(client, scope)
	if err != nil {
		return err
	}
	if redirect == "" {
		redirect = redirectURI(client)
	}
	b, err := w.browserOf()
	if err != nil {
		return err
	}
	w.auth.client, w.auth.redirect, w.auth.state = client, redirect, "state-"+randomID()+randomID()
	w.vars["nonce"] = "nonce-" + randomID()
	verifier, challenge := pkce()
	w.auth.verifier = verifier
	q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect}, "scope": {scope},
		"state": {w.auth.state}, "nonce": {w.vars["nonce"]}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
	req, err := http.NewRequest(http.MethodGet, b.origin+"/oauth/authorize?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	w.last, err = b.open(req)
	return err
}

func (w *world) showsSignIn() error {
	_, err := w.signInForm()
	return err
}

// signInForm is the form of the page that has a password field.
func (w *world) signInForm() (*form, error) {
	b, err := w.browserOf()
	if err != nil {
		return nil, err
	}
	f, err := b.findForm(isPasswordInput)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, w.failf("no sign-in form (a form with a password field) on the page")
	}
	return f, nil
}

// signIn fills the form that has a password field: the password there, the user name in its text field.
func (w *world) signIn(user, password string) error {
	user, password, err := w.expand2(user, password)
	if err != nil {
		return err
	}
	f, err := w.signInForm()
	if err != nil {
		return err
	}
	for _, in := range f.inputs {
		switch strings.ToLower(attr(in, "type")) {
		case "password":
			f.fields.Set(attr(in, "name"), password)
		case "", "text", "email":
			if in.Data == "input" && attr(in, "name") != "" {
				f.fields.Set(attr(in, "name"), user)
			}
		}
	}
	w.last, err = w.auth.browser.submit(f)
	return err
}

func (w *world) consentForm() (*form, error) {
	b, err := w.browserOf()
	if err != nil {
		return nil, err
	}
	f, err := b.findForm(isApprovalControl)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, w.failf("no consent form (a form with user_oauth_approval) on the page")
	}
	return f, nil
}

func (w *world) asksConsent(scopes string) error {
	f, err := w.consentForm()
	if err != nil {
		return err
	}
	offered := map[string]bool{}
	for _, in := range f.inputs {
		if strings.EqualFold(attr(in, "type"), "checkbox") {
			offered[strings.TrimPrefix(attr(in, "value"), "scope.")] = true
		}
	}
	for _, s := range words(scopes) {
		if !offered[s] {
			return w.failf("the consent form offers no checkbox for the scope %s", s)
		}
	}
	return nil
}

// decide submits the consent form: approving ticks every scope, denying none.
func (w *world) decide(approve bool) error {
	f, err := w.consentForm()
	if err != nil {
		return err
	}
	if approve {
		for _, in := range f.inputs {
			if strings.EqualFold(attr(in, "type"), "checkbox") {
				f.fields.Add(attr(in, "name"), attr(in, "value"))
			}
		}
	}
	f.fields.Set("user_oauth_approval", fmt.Sprint(approve))
	w.last, err = w.auth.browser.submit(f)
	return err
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
	if err := w.signIn(user, "{password}"); err != nil {
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
	if err := w.postForm("/oauth/token", form, auth); err != nil {
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
	return w.authRequest(http.MethodGet, "/userinfo", nil, "", bearer(w.vars["access_token"]))
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

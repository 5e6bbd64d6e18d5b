package auth

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// The token steps of the flow: the client's exchange of the code, the refresh token grant, what the token
// response carries, and the user information the access token opens.

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

// asRegistered is the client authentication a precondition uses: the way the client is registered to
// authenticate (identitySteps.authenticate), not the one a scenario is about.
const asRegistered clientAuth = -1

// refreshHint says how a target gets refresh tokens issued.
func (fl *flowSteps) refreshHint() string {
	if rs := fl.srv.refreshScopes(); len(rs) > 0 {
		return fmt.Sprintf("the scopes %q were asked for to bring one: check that the web client is allowed the grant refresh_token", strings.Join(rs, " "))
	}
	return "if the server issues refresh tokens only for a scope such as offline_access (OpenID Connect Core 11), " +
		"name it in services.authServer.refreshScopes; and check that the web client is allowed the grant refresh_token"
}

// exchangeCode posts the code to the token endpoint, the client authenticating as the exchange says. A
// scenario that holds no code is blocked: an exchange of no code is refused whatever the server thinks of
// codes, verifiers and replays.
func (fl *flowSteps) exchangeCode(x codeExchange) error {
	if fl.code == "" {
		return core.Blockedf("no code to exchange: no redirect of this scenario brought the client a code")
	}
	secret := cmp.Or(x.secret, fl.ids.clients[fl.client].ClientSecret)
	form := url.Values{"grant_type": {"authorization_code"}, "code": {fl.code},
		"redirect_uri": {fl.redirect}, "code_verifier": {cmp.Or(x.verifier, fl.verifier)}}
	var client *core.Credentials
	switch x.auth {
	case asRegistered:
		client = fl.ids.authenticate(tokenEndpoint, fl.client, form)
		if x.secret != "" && client != nil {
			client.Password = x.secret
		}
	case httpBasic:
		client = &core.Credentials{Name: fl.client, Password: secret}
	case formFields:
		form.Set("client_id", fl.client)
		form.Set("client_secret", secret)
	}
	return fl.tokenRequest(form, client)
}

// tokenRequest posts to the token endpoint and keeps a successful answer's tokens.
func (fl *flowSteps) tokenRequest(form url.Values, client *core.Credentials) error {
	if err := fl.srv.postToken(fl.Scenario, form, client); err != nil {
		return err
	}
	if fl.Last.Status != http.StatusOK {
		return nil
	}
	fl.ids.noteWorked(fl.client, form, client)
	obj, err := fl.JSONObject()
	if err != nil {
		return err
	}
	fl.tokens = obj
	fl.learnSubject(obj)
	if fl.access, _ = obj["access_token"].(string); fl.access != "" {
		fl.Vars["access_token"] = fl.access
	} else {
		delete(fl.Vars, "access_token")
	}
	if rt, _ := obj["refresh_token"].(string); rt != "" {
		fl.newestRefresh = rt
		fl.Vars["refresh_token"] = rt
	}
	return nil
}

func (fl *flowSteps) grantedScopes() ([]string, error) {
	if _, err := fl.Answer(); err != nil {
		return nil, err
	}
	obj, err := fl.JSONObject()
	if err != nil {
		return nil, err
	}
	tok, _ := obj["access_token"].(string)
	typ, _ := obj["token_type"].(string)
	if tok == "" || !strings.EqualFold(typ, "bearer") {
		return nil, fl.Failf("the token response has no bearer access token")
	}
	switch scope := obj["scope"].(type) {
	case nil:
		// RFC 6749 5.1: scope is left out when it is the scope requested.
		return core.Words(fl.asked), nil
	case string:
		return core.Words(scope), nil
	default:
		// Read as no scope, it would let "does not carry the scope" pass on any token.
		return nil, fl.Failf("the token response's scope is %s, want a space-separated string (RFC 6749 5.1, 3.3)", core.MustJSON(scope))
	}
}

func (fl *flowSteps) tokenCarries(scopes string) error {
	got, err := fl.grantedScopes()
	if err != nil {
		return err
	}
	for _, s := range core.Words(scopes) {
		if !slices.Contains(got, s) {
			return fl.Failf("the token's scope %v lacks %s", got, s)
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
		return fl.Failf("the token's scope %v has %s", got, scope)
	}
	return nil
}

// tokenHas checks that the last token response carries a token of the kind (refresh_token, id_token).
func (fl *flowSteps) tokenHas(kind string) error {
	obj, err := fl.JSONObject()
	if err != nil {
		return err
	}
	if s, _ := obj[kind].(string); s == "" {
		return fl.Failf("the token response has no %s (the scope asked was %q)", kind, fl.asked)
	}
	return nil
}

// useNewestRefreshToken posts the refresh grant with the newest refresh token, and remembers it as used. A
// scenario without one is blocked: posting an empty refresh_token proves nothing about refreshing.
func (fl *flowSteps) useNewestRefreshToken() error {
	rt := fl.newestRefresh
	if rt == "" {
		return core.Blockedf("no refresh token to use: no token response of this scenario carried one; %s", fl.refreshHint())
	}
	fl.refreshed = append(fl.refreshed, rt)
	if err := fl.refresh(rt); err != nil {
		return err
	}
	fl.refreshedOK = fl.Last.Status == http.StatusOK
	return nil
}

// haveUsedRefreshToken is the precondition of a scenario about a used refresh token: it was used, and the
// server answered with new tokens.
func (fl *flowSteps) haveUsedRefreshToken() error {
	if err := fl.useNewestRefreshToken(); err != nil {
		return err
	}
	if !fl.refreshedOK {
		return fl.Failf("the refresh token grant answered %d, want 200", fl.Last.Status)
	}
	return nil
}

// useFirstRefreshTokenAgain posts the refresh grant again with the first refresh token used, which the server
// must have accepted before: a token refused the first time says nothing about reuse.
func (fl *flowSteps) useFirstRefreshTokenAgain() error {
	if len(fl.refreshed) == 0 || !fl.refreshedOK {
		return core.Blockedf("the refresh token was not used with success before this step")
	}
	return fl.refresh(fl.refreshed[0])
}

// refresh posts the refresh token grant, the client authenticating as it is registered to.
func (fl *flowSteps) refresh(token string) error {
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token}}
	return fl.tokenRequest(form, fl.ids.authenticate(tokenEndpoint, fl.client, form))
}

func (fl *flowSteps) userInfo() error {
	u, err := fl.srv.endpoint("userinfo", func(e endpoints) string { return e.Userinfo })
	if err != nil {
		return err
	}
	token, err := fl.accessToken() // blocked, not a request without a token, when none is held
	if err != nil {
		return err
	}
	return fl.API(core.Request{Method: http.MethodGet, URL: u, Bearer: token})
}

// accessToken is the access token the scenario's user holds: the last successful token response's. A scenario
// that holds none is blocked, and never sends the token's absence as if it were a token.
func (fl *flowSteps) accessToken() (string, error) {
	if fl.access == "" {
		return "", core.Blockedf("{access_token} is not there: no token response of this scenario carried an access token")
	}
	return fl.access, nil
}

// untilExpired waits until the access token's lifetime, given in the token response, has passed: the one
// sleep of the auth features, bounded to 5 seconds.
func (fl *flowSteps) untilExpired() error {
	exp, err := strconv.ParseFloat(fmt.Sprint(fl.tokens["expires_in"]), 64)
	if err != nil || exp < 0 || exp > 4 {
		return fmt.Errorf("the access token lives %vs; a token that expires within 4s is needed here", exp)
	}
	return fl.Sleep(time.Duration(exp)*time.Second + 1100*time.Millisecond)
}

// userinfoNames checks UAA's user information: the user's name as user_name or as OpenID Connect's
// preferred_username, and the e-mail address.
func (fl *flowSteps) userinfoNames(user, email string) error {
	user, email, err := fl.Expand2(user, email)
	if err != nil {
		return err
	}
	obj, err := fl.JSONObject()
	if err != nil {
		return err
	}
	if obj["user_name"] != user && obj["preferred_username"] != user {
		return fl.Failf("neither user_name (%s) nor preferred_username (%s) is %q", core.MustJSON(obj["user_name"]), core.MustJSON(obj["preferred_username"]), user)
	}
	if obj["email"] != email {
		return fl.Failf("email is %s, want %q", core.MustJSON(obj["email"]), email)
	}
	return nil
}

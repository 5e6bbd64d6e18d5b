package auth

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/steps/core"

	"github.com/cucumber/godog"
)

// checkTokenSteps ask the authorization server about tokens the flow got, as resource servers do: check_token,
// introspection, revocation. They read the flow's tokens, and remember the access token last reported active.
type checkTokenSteps struct {
	*core.Scenario
	flow *flowSteps
	// activeToken is the access token the server last reported active.
	activeToken string
}

func (ct *checkTokenSteps) register(sc *godog.ScenarioContext) {
	sc.Step(`^"([^"]+)" checks the access token$`, func(client string) error {
		return ct.checkToken(tokenCheck{client: client, accessToken: true})
	})
	sc.Step(`^"([^"]+)" checks the access token for the scopes "([^"]+)"$`, func(client, scopes string) error {
		return ct.checkToken(tokenCheck{client: client, accessToken: true, scopes: scopes})
	})
	sc.Step(`^"([^"]+)" checks the token "([^"]*)"$`, func(client, token string) error {
		return ct.checkToken(tokenCheck{client: client, token: token})
	})
	sc.Step(`^"([^"]+)" checks the access token with the secret "([^"]+)"$`, func(client, secret string) error {
		return ct.checkToken(tokenCheck{client: client, secret: secret, accessToken: true})
	})
	sc.Step(`^the access token is checked without credentials$`, func() error {
		return ct.checkToken(tokenCheck{accessToken: true})
	})
	sc.Step(`^the client revokes the access token$`, ct.revokeAccessToken)
	sc.Step(`^the authorization server reports the access token as active to "([^"]+)"$`, ct.tokenActive)
	sc.Step(`^the authorization server reports the access token as no longer active to "([^"]+)"$`, ct.tokenInactive)
	sc.Step(`^"([^"]+)" introspects the access token$`, func(client string) error {
		token, err := ct.flow.accessToken()
		if err != nil {
			return err
		}
		return ct.introspect(client, token)
	})
	sc.Step(`^the introspection answer says the token is active with the scope "([^"]+)"$`, ct.introspectionActive)
	sc.Step(`^the access token has expired$`, ct.flow.untilExpired)
	sc.Step(`^the token check answer has:$`, ct.tokenCheckHas)
}

// tokenCheck is one request to /check_token.
type tokenCheck struct {
	client string // HTTP Basic as this client; none when empty
	secret string // the client's secret when not its own
	token  string // the form field "token", left out when empty
	// accessToken sends the flow's access token as the token; blocked when the scenario holds none.
	accessToken bool
	// exact, when set, is the token sent, as it is (no placeholders expanded).
	exact  string
	scopes string // the form field "scopes", left out when empty
}

// checkToken posts a token to /check_token as a resource server does: HTTP Basic with the client's
// credentials, the token as the form field "token".
func (ct *checkTokenSteps) checkToken(c tokenCheck) error {
	client, token, err := ct.Expand2(c.client, c.token)
	if err != nil {
		return err
	}
	if c.accessToken {
		if token, err = ct.flow.accessToken(); err != nil {
			return err
		}
	}
	if c.exact != "" {
		token = c.exact
	}
	form := url.Values{}
	if token != "" {
		form.Set("token", token)
	}
	if c.scopes != "" {
		form.Set("scopes", c.scopes)
	}
	var auth *core.Credentials
	if client != "" {
		auth = &core.Credentials{Name: client, Password: cmp.Or(c.secret, ct.flow.ids.clients[client].ClientSecret)}
	}
	u, err := ct.flow.srv.endpoint("check_token", func(e endpoints) string { return e.CheckToken })
	if err != nil {
		return err
	}
	return ct.API(core.Request{Method: http.MethodPost, URL: u, Form: form, Basic: auth})
}

// revokeAccessToken revokes the access token at the revocation endpoint (RFC 7009), as the client it was
// issued to; the endpoint answers 200 whether or not it knew the token.
func (ct *checkTokenSteps) revokeAccessToken() error {
	u, err := ct.flow.srv.endpoint("revocation", func(e endpoints) string { return e.Revocation })
	if err != nil {
		return err
	}
	token, err := ct.flow.accessToken()
	if err != nil {
		return err
	}
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	basic := ct.flow.ids.authenticate(revocationEndpoint, ct.flow.client, form)
	if err := ct.API(core.Request{Method: http.MethodPost, URL: u, Form: form, Basic: basic}); err != nil {
		return err
	}
	switch method, from := ct.flow.ids.methodFor(revocationEndpoint, ct.flow.client); {
	case ct.Last.Status == http.StatusOK:
		return nil
	case ct.Last.Status == http.StatusUnauthorized && (from == fromWorked || from == fromTarget):
		return ct.Failf("the revocation endpoint refused the client's credentials (401) sent as %s, %s (RFC 7009 2.1: "+
			"the client authenticates as it does at the token endpoint)", methodName(method), from)
	case ct.Last.Status == http.StatusUnauthorized:
		return core.Blockedf("the revocation endpoint refused the client's credentials (401), sent as %s (%s), before "+
			"anything was revoked: name the client's method in services.authServer.fixtures.clients.web.authMethod, "+
			"or list it in the discovery document's revocation_endpoint_auth_methods_supported", methodName(method), from)
	}
	return ct.Failf("revocation answered %d, want 200 (RFC 7009 2.2)", ct.Last.Status)
}

// introspect posts a token to the introspection endpoint (RFC 7662) as the resource client.
func (ct *checkTokenSteps) introspect(client, token string) error {
	client, err := ct.Expand(client)
	if err != nil {
		return err
	}
	u, err := ct.flow.srv.endpoint("introspection", func(e endpoints) string { return e.Introspection })
	if err != nil {
		return err
	}
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	basic := ct.flow.ids.authenticate(introspectionEndpoint, client, form)
	return ct.API(core.Request{Method: http.MethodPost, URL: u, Form: form, Basic: basic})
}

// introspectionActive checks an RFC 7662 answer: 200, active true (a JSON boolean), scope a space-separated
// string that holds the scopes.
func (ct *checkTokenSteps) introspectionActive(scopes string) error {
	if err := ct.AnswerIs(http.StatusOK); err != nil {
		return err
	}
	obj, err := ct.JSONObject()
	if err != nil {
		return err
	}
	if obj["active"] != true {
		return ct.Failf("active is %s, want true", core.MustJSON(obj["active"]))
	}
	scope, ok := obj["scope"].(string)
	if !ok {
		return ct.Failf("scope is %s, want a space-separated string (RFC 7662 2.2)", core.MustJSON(obj["scope"]))
	}
	for _, s := range core.Words(scopes) {
		if !slices.Contains(core.Words(scope), s) {
			return ct.Failf("the introspected scope %q lacks %s", scope, s)
		}
	}
	return nil
}

// askAboutToken asks the authorization server about an access token the way a resource server would:
// check_token where the target has it, else introspection. It returns whether the token is active, after
// checking that the answer is one of the two the standard allows (check_token: 200 with the token's fields,
// or 400 invalid_token; introspection: 200 with a boolean active).
func (ct *checkTokenSteps) askAboutToken(client, token string) (bool, error) {
	if _, missing := ct.flow.srv.missing[features.SurfaceCheckToken]; !missing {
		if err := ct.checkToken(tokenCheck{client: client, exact: token}); err != nil {
			return false, err
		}
		if ct.Last.Status == http.StatusOK {
			obj, err := ct.JSONObject()
			if err != nil {
				return false, err
			}
			if obj["client_id"] == nil && obj["exp"] == nil {
				return false, ct.Failf("check_token answered 200 without the token's client_id or exp")
			}
			return true, nil
		}
		return false, ct.AnswerIsError(http.StatusBadRequest, "invalid_token")
	}
	if err := ct.introspect(client, token); err != nil {
		return false, err
	}
	if err := ct.AnswerIs(http.StatusOK); err != nil {
		return false, err
	}
	obj, err := ct.JSONObject()
	if err != nil {
		return false, err
	}
	active, ok := obj["active"].(bool)
	if !ok {
		return false, ct.Failf("introspection says active %s, want a boolean (RFC 7662 2.2)", core.MustJSON(obj["active"]))
	}
	return active, nil
}

// tokenActive is the precondition of a scenario that ends a token's life: the token is active before. It
// remembers the token, so that "no longer active" can be judged.
func (ct *checkTokenSteps) tokenActive(client string) error {
	token, err := ct.flow.accessToken()
	if err != nil {
		return err
	}
	active, err := ct.askAboutToken(client, token)
	if err != nil {
		return err
	}
	if !active {
		return ct.Failf("the access token the server has just issued is reported as not active")
	}
	ct.activeToken = token
	return nil
}

// tokenInactive holds when the access token reported active earlier in the scenario is reported as no longer
// active: check_token answers 400 invalid_token, or introspection active false. It asks about that token, the
// one the scenario ends the life of, even when a later token response (a replayed code the server accepted)
// brought another one. A token never seen active proves nothing by being inactive now.
func (ct *checkTokenSteps) tokenInactive(client string) error {
	if ct.activeToken == "" {
		return core.Blockedf("the access token was not reported active earlier in this scenario: that it is not active " +
			"now would prove nothing (the scenario needs the step: the authorization server reports the access token as active)")
	}
	active, err := ct.askAboutToken(client, ct.activeToken)
	if err != nil {
		return err
	}
	if active {
		if tok, _ := ct.flow.accessToken(); tok != ct.activeToken {
			return ct.Failf("the access token reported active before is still reported as active (a later token " +
				"response of this scenario brought another one)")
		}
		return ct.Failf("the access token is still reported as active")
	}
	return nil
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// tokenCheckHas checks each field of the answer for its JSON type and value. Values are literal (placeholders
// expanded), a space-separated set for arrays, or one of: any, later than now, now or earlier.
func (ct *checkTokenSteps) tokenCheckHas(table *godog.Table) error {
	obj, err := ct.JSONObject()
	if err != nil {
		return err
	}
	var problems []string
	for _, row := range table.Rows[1:] {
		field, typ, want := row.Cells[0].Value, row.Cells[1].Value, row.Cells[2].Value
		if want, err = ct.Expand(want); err != nil {
			return err
		}
		got, ok := obj[field]
		if !ok {
			problems = append(problems, field+": missing")
			continue
		}
		if p := checkField(got, typ, want); p != "" {
			problems = append(problems, fmt.Sprintf("%s: %s (got %s)", field, p, core.MustJSON(got)))
		}
	}
	if len(problems) > 0 {
		return ct.Failf("the token check answer is wrong:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

func checkField(got any, typ, want string) string {
	switch typ {
	case "string", "uuid":
		s, ok := got.(string)
		if !ok || s == "" {
			return "want a non-empty string"
		}
		if typ == "uuid" && !uuidPattern.MatchString(s) {
			return "want a UUID"
		}
		if want != "any" && s != want {
			return fmt.Sprintf("want %q", want)
		}
	case "integer":
		num, ok := got.(json.Number) // the body is decoded with UseNumber: a JSON string is no number
		if !ok {
			return "want a JSON number"
		}
		n, err := num.Int64()
		if err != nil {
			return "want an integer"
		}
		return checkTime(n, want)
	case "boolean":
		if _, ok := got.(bool); !ok {
			return "want a boolean"
		}
		if want != "any" && fmt.Sprint(got) != want {
			return "want " + want
		}
	case "array":
		list, ok := got.([]any)
		if !ok {
			return "want an array"
		}
		if want != "any" && !core.SameSet(list, core.Words(want)) {
			return fmt.Sprintf("want the set %q", want)
		}
	default:
		return "unknown type " + typ + " in the feature"
	}
	return ""
}

// checkTime judges seconds since the epoch, allowing 5 seconds of clock difference with the target.
func checkTime(n int64, want string) string {
	now := time.Now().Unix()
	switch want {
	case "any":
	case "later than now":
		if n <= now-5 {
			return "want a time later than now"
		}
	case "now or earlier":
		if n > now+5 || n < now-24*3600 {
			return "want a time of today, not later than now"
		}
	default:
		if fmt.Sprint(n) != want {
			return "want " + want
		}
	}
	return ""
}

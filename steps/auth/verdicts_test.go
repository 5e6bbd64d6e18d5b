package auth

import (
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// The tests of this file point the steps at fakeOP configured as the real servers that once got wrong
// verdicts: each verdict must be about the server's behaviour, never about a set-up the steps got wrong, and
// never a pass on what an earlier step failed to produce.

func mustPreflight(t *testing.T, op *fakeOP) *Server {
	t.Helper()
	s, err := op.suite(op.env())
	if err != nil {
		t.Fatalf("preflight: %v", err)
	}
	return s
}

// Hydra's sign-in page lives on its login app's origin; zitadel's issuer ends with a slash; one client is
// the web and the resource client: all of it is a sound set-up.
func TestPreflightAcceptsASignInPageElsewhereATrailingSlashAndOneClientForTwoRoles(t *testing.T) {
	op := startFakeOP(t, &fakeOP{loginElsewhere: true, issuerSlash: true, consent: true})
	s := mustPreflight(t, op)
	if got, want := s.endpoints.CheckToken, op.srv.URL+"/check_token"; got != want {
		t.Errorf("check_token is looked for at %s, want %s", got, want)
	}
	ct := scenarioSteps(s)
	if got := ct.flow.ids.clients[fakeClient].RedirectURI; got != fakeRedirect {
		t.Errorf("the web client's redirect URI is %q: the resource fixture of the same client overwrote it", got)
	}
}

// A server that issues refresh tokens only for offline_access is asked for it where its discovery document
// lists it; one that issues none blocks the scenarios that need one, and never gets an empty refresh_token.
func TestRefreshStepsAskForOfflineAccessAndBlockWithoutARefreshToken(t *testing.T) {
	op := startFakeOP(t, &fakeOP{refresh: "offline"})
	ct := scenarioSteps(mustPreflight(t, op))
	if err := ct.flow.holdToken("{user}", "{client}", "openid fortunes.read", true); err != nil {
		t.Fatalf("with offline_access listed: %v", err)
	}
	if !strings.Contains(ct.flow.asked, "offline_access") {
		t.Errorf("the scope asked was %q, want offline_access in it", ct.flow.asked)
	}

	op = startFakeOP(t, &fakeOP{refresh: "never", noRefreshGrant: true})
	ct = scenarioSteps(mustPreflight(t, op))
	err := ct.flow.holdToken("{user}", "{client}", "openid fortunes.read", true)
	if !core.IsBlocked(err) || !strings.Contains(err.Error(), "no refresh token") {
		t.Errorf("no refresh token issued: err = %v, want blocked, saying so", err)
	}
	ct = scenarioSteps(ct.flow.srv)
	if err := ct.flow.holdToken("{user}", "{client}", "openid fortunes.read", false); err != nil {
		t.Fatal(err)
	}
	if err := ct.flow.useNewestRefreshToken(); !core.IsBlocked(err) {
		t.Errorf("the refresh step without a refresh token: err = %v, want blocked", err)
	}
	if err := ct.flow.useFirstRefreshTokenAgain(); !core.IsBlocked(err) {
		t.Errorf("reusing a refresh token never used: err = %v, want blocked", err)
	}
}

// "No longer active" is judged only for a token seen active before: a server whose introspection calls every
// token inactive gets no credit for revocation.
func TestRevocationIsJudgedOnlyOnATokenSeenActive(t *testing.T) {
	op := startFakeOP(t, &fakeOP{})
	ct := scenarioSteps(mustPreflight(t, op))
	if err := ct.flow.holdToken("{user}", "{client}", "openid fortunes.read", false); err != nil {
		t.Fatal(err)
	}
	if err := ct.tokenInactive("{resource_client}"); !core.IsBlocked(err) {
		t.Errorf("inactive without having been active: err = %v, want blocked", err)
	}
	if err := ct.tokenActive("{resource_client}"); err != nil {
		t.Fatal(err)
	}
	if err := ct.revokeAccessToken(); err != nil {
		t.Fatal(err)
	}
	if err := ct.tokenInactive("{resource_client}"); err != nil {
		t.Errorf("a revoked token seen active before: %v", err)
	}

	never := startFakeOP(t, &fakeOP{})
	s := mustPreflight(t, never)
	never.neverActive = true // after preflight, which would refuse such a server
	ct = scenarioSteps(s)
	if err := ct.flow.holdToken("{user}", "{client}", "openid fortunes.read", false); err != nil {
		t.Fatal(err)
	}
	if err := ct.tokenActive("{resource_client}"); err == nil || core.IsBlocked(err) {
		t.Errorf("a fresh token called inactive: err = %v, want a failure", err)
	}
}

// Revocation and introspection use the method a client is registered with, from the fixture or discovery:
// a server that takes form fields only is not failed for refusing HTTP Basic.
func TestClientsAuthenticateAsTheServerAllows(t *testing.T) {
	op := startFakeOP(t, &fakeOP{postOnly: true})
	ct := scenarioSteps(mustPreflight(t, op))
	if err := ct.flow.holdToken("{user}", "{client}", "openid fortunes.read", false); err != nil {
		t.Fatal(err)
	}
	if err := ct.tokenActive("{resource_client}"); err != nil {
		t.Errorf("introspection: %v", err)
	}
	if err := ct.revokeAccessToken(); err != nil {
		t.Errorf("revocation: %v", err)
	}
	env := op.env()
	env.Target.Services.AuthServer.Fixtures.Clients.Web.AuthMethod = target.ClientSecretBasic
	if _, err := op.suite(env); err == nil || !strings.Contains(err.Error(), "code exchange") {
		t.Errorf("a fixture that names a method the server refuses: err = %v, want preflight to name the code exchange", err)
	}
}

// A server that holds a client to the method it registered and lists none for revocation (Hydra): revocation
// uses the method the token endpoint accepted, not HTTP Basic. When revocation refuses that same method, the
// failure says so, and is revocation's; when it refuses a method the suite guessed, the scenario is blocked
// with what to set.
func TestRevocationAuthenticatesAsTheTokenEndpointAccepted(t *testing.T) {
	op := startFakeOP(t, &fakeOP{postOnly: true, unlisted: true})
	ct := scenarioSteps(mustPreflight(t, op))
	if err := ct.flow.holdToken("{user}", "{client}", "openid fortunes.read", false); err != nil {
		t.Fatal(err)
	}
	if err := ct.revokeAccessToken(); err != nil {
		t.Errorf("revocation after form fields worked at the token endpoint: %v", err)
	}
	op.revokeRefuses = true
	if err := ct.flow.holdToken("{user}", "{client}", "openid fortunes.read", false); err != nil {
		t.Fatal(err)
	}
	err := ct.revokeAccessToken()
	if err == nil || core.IsBlocked(err) || !strings.Contains(err.Error(), "refused the client's credentials (401) sent as form fields (client_secret_post), the method the token endpoint accepted") {
		t.Errorf("revocation refusing the method the token endpoint took: err = %v, want a failure that says so", err)
	}

	// No token request succeeded in this scenario: the method is the suite's guess, and a refusal blocks.
	ct = scenarioSteps(mustPreflight(t, op))
	ct.flow.access = "a-token"
	if err := ct.revokeAccessToken(); !core.IsBlocked(err) || !strings.Contains(err.Error(), "revocation_endpoint_auth_methods_supported") {
		t.Errorf("a refusal of a guessed method: err = %v, want blocked, naming what to set", err)
	}
}

// Preflight walks the whole flow and names the first step that went wrong, with the field of the fixture.
func TestPreflightNamesTheStepThatWentWrong(t *testing.T) {
	cases := []struct {
		name string
		op   *fakeOP
		env  func(*Env)
		want []string
	}{
		{"wrong password", &fakeOP{}, func(e *Env) { e.Target.Services.AuthServer.Fixtures.Users.Reader.Password = "nope" },
			[]string{"fixtures.users.reader", "the sign-in", "refused the password of alice"}},
		{"unknown client", &fakeOP{}, func(e *Env) { e.Target.Services.AuthServer.Fixtures.Clients.Web.ClientID = "nobody" },
			[]string{"fixtures.clients.web", "the authorization request", "answered 400", "unknown client or redirect_uri"}},
		{"unregistered redirect URI", &fakeOP{}, func(e *Env) { e.Target.Services.AuthServer.Fixtures.Clients.Web.RedirectURI = "https://x.invalid/cb" },
			[]string{"fixtures.clients.web", "answered 400"}},
		// A server that fails, or signs no one in, at the authorization request is not the web client's fault.
		{"an authorization endpoint that fails", &fakeOP{authorizePage: "fails"}, nil,
			[]string{"services.authServer: signing alice in: the authorization request: the authorization endpoint answered 500: the server failed"}},
		{"no sign-in form", &fakeOP{authorizePage: "no-form"}, nil,
			[]string{"services.authServer: signing alice in: the authorization request: no sign-in form", "services.authServer.pages"}},
		{"a server error after sign-in", &fakeOP{errorAfterSignIn: true}, nil,
			[]string{"fixtures.users.reader", "the sign-in", "answered 500", "the session store is down"}},
		{"fortunes.read not granted", &fakeOP{drop: "fortunes.read"}, nil,
			[]string{"fixtures.users.reader", "fortunes.read was not granted", `"openid"`}},
		{"no refresh token though the grant is listed", &fakeOP{refresh: "never"}, nil,
			[]string{"no refresh token was issued", "refreshScopes"}},
		{"a resource client told the token is inactive", &fakeOP{neverActive: true}, nil,
			[]string{"fixtures.clients.resource", "not told that the reader's new token is active"}},
		{"consent remembered but not declared", &fakeOP{consent: true, rememberConsent: true}, nil,
			[]string{"remembered the consent", "auth.remembered-consent"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			op := startFakeOP(t, c.op)
			env := op.env()
			if c.env != nil {
				c.env(&env)
			}
			_, err := op.suite(env)
			if err == nil {
				t.Fatal("preflight passed")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\ndoes not say %q", err, w)
				}
			}
		})
	}
}

// A server without a consent page is told what spec 3.1 asks, not advised to declare a capability it lacks.
func TestNoConsentPageSaysWhatSpec31Asks(t *testing.T) {
	op := startFakeOP(t, &fakeOP{})
	fl := scenarioSteps(mustPreflight(t, op)).flow
	if err := fl.askForCode("{client}", "openid fortunes.read", ""); err != nil {
		t.Fatal(err)
	}
	if err := fl.signIn("{user}", "{password}"); err != nil {
		t.Fatal(err)
	}
	err := fl.approve()
	if err == nil || !strings.Contains(err.Error(), "Spec 3.1 asks") || strings.Contains(err.Error(), "declare") {
		t.Errorf("err = %v, want what spec 3.1 asks and no advice to declare a capability", err)
	}
}

// The evidence of an HTML page is its text, not its head and styles.
func TestEvidenceShowsThePageText(t *testing.T) {
	body := []byte(`<html><head><title>oops</title><style>` + strings.Repeat("p{color:red}", 80) + `</style>` +
		`<script>var x = 1</script></head><body><h1>server_error</h1><p>fortune service refused the token</p></body></html>`)
	got := core.Excerpt("text/html; charset=utf-8", body, 600)
	if !strings.Contains(got, "oops | server_error fortune service refused the token") || strings.Contains(got, "color") {
		t.Errorf("excerpt = %q", got)
	}
	if got := core.Excerpt("application/json", []byte(strings.Repeat("a", 700)), 600); !strings.HasSuffix(got, "(700 bytes in all)") {
		t.Errorf("a long body is cut without its size: %q", got[len(got)-40:])
	}
}

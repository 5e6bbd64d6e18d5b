package auth

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// The tests of this file point the steps at servers whose answers could make a check pass without looking at
// what it is about, or block a scenario whose behaviour was in fact exercised: each must get the verdict its
// behaviour earns.

// A replayed code is judged on the token the server reported active before the replay. A server that accepts the
// replay issues new tokens; that the first one is still active is a failure, not a scenario blocked for want of
// an active token.
func TestAReplayedCodeIsJudgedOnTheTokenSeenActive(t *testing.T) {
	for _, c := range []struct {
		replay   string
		status   int
		wantPass bool
	}{
		{"accepted", http.StatusOK, false},       // new tokens, the first one still active
		{"", http.StatusBadRequest, false},       // refused, the first token still active
		{"revokes", http.StatusBadRequest, true}, // refused, and the tokens of the code revoked
	} {
		t.Run("replay "+c.replay, func(t *testing.T) {
			op := startFakeOP(t, &fakeOP{replay: c.replay})
			ct := scenarioSteps(mustPreflight(t, op))
			if err := ct.flow.holdToken("{user}", "{client}", "openid fortunes.read", false); err != nil {
				t.Fatal(err)
			}
			if err := ct.tokenActive("{resource_client}"); err != nil {
				t.Fatal(err)
			}
			if err := ct.flow.exchangeCode(codeExchange{auth: asRegistered}); err != nil {
				t.Fatal(err)
			}
			if ct.Last.Status != c.status {
				t.Fatalf("the replay was answered %d, want %d", ct.Last.Status, c.status)
			}
			err := ct.tokenInactive("{resource_client}")
			switch {
			case c.wantPass && err != nil:
				t.Errorf("the tokens of the code were revoked: err = %v, want a pass", err)
			case !c.wantPass && (err == nil || core.IsBlocked(err) || !strings.Contains(err.Error(), "still reported as active")):
				t.Errorf("the token seen active is still active: err = %v, want a failure that says so", err)
			}
		})
	}
}

// A scope that is no space-separated string (RFC 6749 5.1) is not read as no scope at all: "does not carry
// fortunes.read" must not pass on a token response whose scope is ["openid", "fortunes.read"].
func TestAScopeThatIsNoStringIsNotAnEmptyScope(t *testing.T) {
	op := startFakeOP(t, &fakeOP{})
	fl := scenarioSteps(mustPreflight(t, op)).flow
	op.scopeArray = true // after preflight, which would refuse such a server
	if _, err := fl.walk("{user}", "{client}", "openid fortunes.read", false); err != nil {
		t.Fatal(err)
	}
	if err := fl.exchangeCode(codeExchange{auth: formFields}); err != nil {
		t.Fatal(err)
	}
	if err := fl.AnswerIsJSON(http.StatusOK); err != nil {
		t.Fatal(err)
	}
	err := fl.tokenLacks("fortunes.read")
	if err == nil || core.IsBlocked(err) || !strings.Contains(err.Error(), "space-separated") {
		t.Errorf("scope [\"openid\",\"fortunes.read\"]: tokenLacks(fortunes.read) = %v, want a failure that names the scope's form", err)
	}
	if err := fl.tokenCarries("openid"); err == nil {
		t.Error("tokenCarries(openid) passed on a scope that is no string")
	}
}

// Steps that use what an earlier step made (a code, an access token, an ID token) block the scenario when it
// is not there, rather than send its absence or fail the server for it.
func TestStepsBlockWithoutWhatEarlierStepsMade(t *testing.T) {
	op := startFakeOP(t, &fakeOP{})
	s := mustPreflight(t, op)

	fl := scenarioSteps(s).flow
	if err := fl.askForCode("{client}", "openid fortunes.read", ""); err != nil {
		t.Fatal(err)
	}
	// No code came back: an exchange of no code would be answered invalid_grant, which "a wrong PKCE verifier
	// gets invalid_grant" or "a code can be exchanged only once" would count as the behaviour they verify.
	if err := fl.exchangeCode(codeExchange{auth: formFields, verifier: "not-the-verifier"}); !core.IsBlocked(err) {
		t.Errorf("an exchange without a code: err = %v (answer %v), want blocked", err, fl.Last)
	}
	if err := fl.userInfo(); !core.IsBlocked(err) {
		t.Errorf("user information without an access token: err = %v, want blocked", err)
	}

	op.noIDToken = true
	fl = scenarioSteps(s).flow
	if err := fl.holdToken("{user}", "{client}", "openid fortunes.read", false); err != nil {
		t.Fatal(err)
	}
	if err := fl.userInfo(); err != nil {
		t.Fatal(err)
	}
	if err := fl.AnswerIsJSON(http.StatusOK); err != nil {
		t.Fatal(err)
	}
	if err := fl.subIsIDTokenSubject(); !core.IsBlocked(err) {
		t.Errorf("userinfo's sub compared with an ID token that never came: err = %v, want blocked", err)
	}
}

// "The provisioning API has no user named ..." reads the list a SCIM filter answers however the server spells
// it: SCIM 2.0's "Resources" (RFC 7644 3.4.2) as well as UAA's "resources". A list it cannot find is no empty list.
func TestNoUserNamedLooksAtTheListTheServerAnswers(t *testing.T) {
	for _, scim2 := range []bool{false, true} {
		uaa := startFakeUAA(t)
		uaa.scim2 = scim2
		s := newServer(uaa.env())
		if err := s.Preflight(context.Background()); err != nil {
			t.Fatal(err)
		}
		ids := newIdentitySteps(s, s.newScenario())
		pv := &provisioningSteps{Scenario: ids.Scenario, ids: ids}
		ac := &accountSteps{Scenario: ids.Scenario, ids: ids}
		if err := pv.obtainAdminToken(); err != nil {
			t.Fatal(err)
		}
		if err := ac.noUserNamed("{user}"); err != nil {
			t.Errorf("scim2=%t: no such user: %v", scim2, err)
		}
		// The server said no, and made the user all the same.
		if err := pv.createUser("{user}", ""); err != nil {
			t.Fatal(err)
		}
		if err := ac.noUserNamed("{user}"); err == nil || core.IsBlocked(err) {
			t.Errorf("scim2=%t: the user is there: err = %v, want a failure", scim2, err)
		}
	}

	// An answer without its list proves nothing.
	ids := newIdentitySteps(newServer(Env{}), core.NewScenario(core.NewRun(nil)))
	if _, err := ids.scimResources(map[string]any{"totalResults": 1}); err == nil {
		t.Error("a list answer without its list: want an error, not an empty list")
	}
}

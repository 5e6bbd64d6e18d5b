package fortune

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/fortune-tck/fortune-tck/steps/auth"
	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// heldToken stands for the auth area's Session: the user holds token, granted scopes.
type heldToken struct {
	token  string
	scopes []string
}

func (h heldToken) AccessToken() (string, error) {
	if h.token == "" {
		return "", core.Blockedf("no token")
	}
	return h.token, nil
}
func (h heldToken) Carries(scope string) bool {
	return h.token != "" && slices.Contains(h.scopes, scope)
}
func (h heldToken) Identity() auth.Identity { return auth.Identity{User: "alice", Client: "web"} }

// fortuneService answers a fortune to the bearer token good, and 401 to anything else; refuseAll refuses every
// request, as a service that cannot reach the authorization server (or serves nothing at the path) does.
func fortuneService(t *testing.T, refuseAll bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refuseAll || r.Header.Get("Authorization") != "Bearer good" {
			w.Header().Set("WWW-Authenticate", "Bearer")
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("A fortune."))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func fortuneStepsFor(srv *httptest.Server, user holder) *fortuneSteps {
	c := core.NewScenario(core.NewRun(&target.Target{Services: target.Services{Fortune: &target.Service{URL: srv.URL}}}))
	return &fortuneSteps{Scenario: c, user: user}
}

// "The request is refused" after a call with another token than the user's counts only when the fortune
// service answers the user's own token with fortunes.read: a service that refuses everything has shown
// nothing about no token, a malformed, forged or tampered one.
func TestARefusalCountsOnlyWhereTheUsersTokenIsAnswered(t *testing.T) {
	calls := map[string]func(fs *fortuneSteps) error{
		"no token":        func(fs *fortuneSteps) error { return fs.callFortune("/", "", false) },
		"a malformed one": func(fs *fortuneSteps) error { return fs.callFortune("/", "not.a-token", false) },
		"a forged one": func(fs *fortuneSteps) error {
			tok, err := fs.forgedToken()
			if err != nil {
				return err
			}
			return fs.callFortune("/", tok, false)
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			fs := fortuneStepsFor(fortuneService(t, false), heldToken{"good", []string{"openid", "fortunes.read"}})
			if err := call(fs); err != nil {
				t.Fatal(err)
			}
			if err := fs.requestRefused(); err != nil {
				t.Errorf("an honest fortune service: %v, want a pass", err)
			}
			if fs.Last.Status != http.StatusUnauthorized {
				t.Errorf("the answer judged is %d, want the refusal's 401", fs.Last.Status)
			}

			fs = fortuneStepsFor(fortuneService(t, true), heldToken{"good", []string{"openid", "fortunes.read"}})
			if err := call(fs); err != nil {
				t.Fatal(err)
			}
			if err := fs.requestRefused(); !core.IsBlocked(err) {
				t.Errorf("a fortune service that refuses every token: err = %v, want blocked", err)
			}
		})
	}

	// The user's own token refused (revoked, expired, without fortunes.read): the scenario itself says why, and
	// the user's token is no control.
	fs := fortuneStepsFor(fortuneService(t, true), heldToken{"good", []string{"openid"}})
	if err := fs.callFortune("/", "good", true); err != nil {
		t.Fatal(err)
	}
	if err := fs.requestRefused(); err != nil {
		t.Errorf("the user's own token refused: %v, want a pass", err)
	}
}

// Without Chromium on the harness's machine the real-browser scenario is blocked: the greeting client did
// nothing wrong.
func TestNoChromiumBlocksTheRealBrowserScenario(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	srv := fortuneService(t, false)
	c := core.NewScenario(core.NewRun(&target.Target{Services: target.Services{Greeting: &target.Service{URL: srv.URL}}}))
	cr := &chromiumSteps{Scenario: c}
	if err := cr.chromiumOpensGreeting(); !core.IsBlocked(err) {
		t.Errorf("Chromium not installed: err = %v, want blocked", err)
	}
}

// A page "says" access was denied in the text a person reads, not in a link or a script that carries the
// authorization server's error code.
func TestADeniedPageSaysSoInItsText(t *testing.T) {
	gs := &greetingSteps{Scenario: core.NewScenario(core.NewRun(nil))}
	page := func(body string) {
		gs.Last = &core.Exchange{Status: http.StatusOK, Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, Body: []byte(body)}
	}
	page(`<html><body><h1>Hello</h1><a href="/login?error=access_denied">Sign in</a><script>var e="access_denied"</script></body></html>`)
	if err := gs.greetingSaysWhatWentWrong(); err == nil {
		t.Error("a page that says nothing of a denial, its link and script aside: want a failure")
	}
	page(`<html><body><h1>Access denied</h1><p>You did not allow reading fortunes.</p></body></html>`)
	if err := gs.greetingSaysWhatWentWrong(); err != nil {
		t.Errorf("a page that says access was denied: %v", err)
	}
}

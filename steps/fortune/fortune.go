// Package fortune holds the steps of the fortune service and of its clients: calls to the fortune service with
// the tokens the scenario's user holds (fortune.go), the greeting client's flow (greeting.go) and the same flow
// in a real headless browser (chromium.go). What they know of the user, its tokens and its browser, comes from
// the auth area's Session.
package fortune

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/steps/auth"
	"github.com/fortune-tck/fortune-tck/steps/core"
)

// fortuneSteps call the fortune service with the tokens the scenario's user holds, which the auth area's
// Session gives them; they remember the last call they made, to judge a refusal.
type fortuneSteps struct {
	*core.Scenario
	user holder
	last *fortuneCall
}

// holder is what the fortune steps know of the scenario's user: the auth area's Session.
type holder interface {
	// AccessToken is the access token the user holds; blocked when none.
	AccessToken() (string, error)
	// Carries tells whether that token was granted the scope.
	Carries(scope string) bool
	Identity() auth.Identity
}

// fortuneCall is a call to the fortune service: the path, and whether it presented the token the user holds.
type fortuneCall struct {
	path string
	held bool
}

func (fs *fortuneSteps) register(sc *godog.ScenarioContext) {
	sc.Step(`^the fortune service is called at "([^"]+)" with the access token$`, func(path string) error {
		token, err := fs.user.AccessToken() // blocked, not a call without a token, when none is held
		if err != nil {
			return err
		}
		return fs.callFortune(path, token, true)
	})
	sc.Step(`^the fortune service is called at "([^"]+)" with no token$`, func(path string) error {
		return fs.callFortune(path, "", false)
	})
	sc.Step(`^the fortune service is called at "([^"]+)" with the token "([^"]+)"$`, func(path, token string) error {
		token, err := fs.Expand(token)
		if err != nil {
			return err
		}
		return fs.callFortune(path, token, false)
	})
	sc.Step(`^the fortune service is called at "([^"]+)" with a token signed by a key of its own$`, func(path string) error {
		token, err := fs.forgedToken()
		if err != nil {
			return err
		}
		return fs.callFortune(path, token, false)
	})
	sc.Step(`^the fortune service is called at "([^"]+)" with the access token with its last character changed$`, func(path string) error {
		t, err := fs.user.AccessToken()
		if err != nil {
			return err
		}
		last := "A"
		if strings.HasSuffix(t, "A") {
			last = "B"
		}
		return fs.callFortune(path, t[:len(t)-1]+last, false)
	})
	sc.Step(`^the fortune service is called at "([^"]+)" with the Authorization header "([^"]*)"$`, func(path, header string) error {
		return fs.callWithAuthorization(path, header)
	})
	sc.Step(`^the fortune service is called at "([^"]+)" with the Authorization headers "([^"]*)" and "([^"]*)"$`, func(path, first, second string) error {
		return fs.callWithAuthorization(path, first, second)
	})
	sc.Step(`^the answer is a fortune$`, fs.answerIsFortune)
	sc.Step(`^the request is refused$`, fs.requestRefused)
	sc.Step(`^the answer is (\d{3}) with a Bearer challenge$`, func(status int) error { return fs.bearerChallenge(status, "") })
	sc.Step(`^the answer is (\d{3}) with a Bearer challenge with the error "([^"]+)"$`, fs.bearerChallenge)
}

// Bind registers the fortune service's, the greeting client's and Chromium's steps of one scenario, each with
// state of its own; user is the auth area's Session of the scenario, and artifacts the folder screenshots go to.
func Bind(c *core.Scenario, sc *godog.ScenarioContext, user *auth.Session, artifacts string) {
	(&fortuneSteps{Scenario: c, user: user}).register(sc)
	(&greetingSteps{Scenario: c, user: user}).register(sc)
	(&chromiumSteps{Scenario: c, artifacts: artifacts}).register(sc)
}

// callFortune calls the fortune service at a path with a token (none when empty); held says whether the token
// is the one the user holds.
func (fs *fortuneSteps) callFortune(path, token string, held bool) error {
	f := fs.Services().Fortune
	if f == nil {
		return fmt.Errorf("the target declares no fortune service")
	}
	fs.last = &fortuneCall{path: path, held: held}
	return fs.Send(core.Request{Method: http.MethodGet, URL: f.URL + path, Bearer: token})
}

// callWithAuthorization calls the fortune service at a path with Authorization headers written out, each with
// its placeholders ({access_token}) expanded: the forms of the header a scenario's row names, sent as they
// are, one header line per value. A refusal of such a call counts only where the service takes the user's
// token in the plain form (refusalIsTheTokens).
func (fs *fortuneSteps) callWithAuthorization(path string, headers ...string) error {
	f := fs.Services().Fortune
	if f == nil {
		return fmt.Errorf("the target declares no fortune service")
	}
	values, err := fs.ExpandAll(headers...)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(fs.Context(), http.MethodGet, f.URL+path, nil)
	if err != nil {
		return err
	}
	req.Header["Authorization"] = values
	fs.last = &fortuneCall{path: path}
	return fs.Do(req)
}

func (fs *fortuneSteps) answerIsFortune() error {
	a, err := fs.Answer()
	if err != nil {
		return err
	}
	if a.Status != http.StatusOK {
		return fs.Failf("status %d, want 200 and a fortune", a.Status)
	}
	if ct := a.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		return fs.Failf("Content-Type %q, want text/plain", ct)
	}
	if strings.TrimSpace(string(a.Body)) == "" {
		return fs.Failf("the fortune is empty")
	}
	return nil
}

// requestRefused accepts any refusal: the spec leaves status and body open, but a refusal is a 4xx answer.
// A refusal of a call that did not present the user's token counts only where the fortune service answers the
// user's token with fortunes.read at the same path (refusalIsTheTokens).
func (fs *fortuneSteps) requestRefused() error {
	a, err := fs.Answer()
	if err != nil {
		return err
	}
	if a.Status < 400 || a.Status > 499 {
		return fs.Failf("status %d, want the request refused (4xx)", a.Status)
	}
	return fs.refusalIsTheTokens()
}

// refusalIsTheTokens calls the fortune service again at the path of the refused call, with the token the user
// holds, when that token carries fortunes.read and is not the one refused: a service that refuses it too (it
// cannot reach the authorization server, it has its own credentials wrong, it serves nothing at the path)
// refuses every call, and its refusal of no token, or of a malformed, forged or tampered one, shows nothing
// about those tokens. The scenario is then blocked; the refusal stays the scenario's last answer otherwise. A
// refused call with the user's own token (revoked, expired, without fortunes.read) is judged by its scenario.
func (fs *fortuneSteps) refusalIsTheTokens() error {
	call := fs.last
	if call == nil || call.held || fs.user == nil || !fs.user.Carries("fortunes.read") {
		return nil
	}
	token, err := fs.user.AccessToken()
	if err != nil {
		return nil
	}
	refused := fs.Last
	if err := fs.callFortune(call.path, token, true); err != nil {
		return err
	}
	if fs.Last.Status != http.StatusOK {
		return core.Blockedf("the fortune service refuses the user's own token with fortunes.read at %s too (status %d): "+
			"that it refused the request before shows nothing about the token it carried", call.path, fs.Last.Status)
	}
	fs.Last, fs.last = refused, call
	return nil
}

// bearerChallenge checks an RFC 6750 refusal: the status, a Bearer challenge and its error attribute, or no
// error attribute at all when want is empty (a request that sent no token). Like any refusal of a call without
// the user's own token, it counts only where the service takes that token (refusalIsTheTokens).
func (fs *fortuneSteps) bearerChallenge(status int, want string) error {
	if err := fs.AnswerIs(status); err != nil {
		return err
	}
	h := fs.Last.Header.Get("WWW-Authenticate")
	if !strings.HasPrefix(strings.ToLower(h), "bearer") {
		return fs.Failf("WWW-Authenticate is %q, want a Bearer challenge", h)
	}
	has := strings.Contains(h, "error=")
	if want == "" && has {
		return fs.Failf("WWW-Authenticate is %q: without a token there is no error to report (RFC 6750 3.1)", h)
	}
	if want != "" && !strings.Contains(h, fmt.Sprintf(`error="%s"`, want)) {
		return fs.Failf("WWW-Authenticate is %q, want error=%q", h, want)
	}
	return fs.refusalIsTheTokens()
}

// forgedToken is a well-formed RS256 JWT with every claim a real token has, signed by a key the
// authorization server never saw: a resource server that accepts it does not validate tokens.
func (fs *fortuneSteps) forgedToken() (string, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", err
	}
	now, who := time.Now().Unix(), fs.user.Identity()
	header := map[string]string{"alg": "RS256", "typ": "JWT", "kid": "tck-" + core.RandomID()}
	claims := map[string]any{
		"jti": core.RandomID(), "sub": who.UserID, "user_id": who.UserID, "user_name": who.User,
		"client_id": who.Client, "cid": who.Client, "azp": who.Client,
		"scope": []string{"openid", "fortunes.read"}, "aud": []string{who.Client, "openid", "fortunes"},
		"iss": who.Issuer, "iat": now, "exp": now + 3600, "grant_type": "authorization_code",
	}
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signing := enc(header) + "." + enc(claims)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		return "", err
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

package steps

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
)

// fortuneSteps call the fortune service with the tokens the scenario holds; they keep no state of their own.
type fortuneSteps struct {
	*scenario
}

func (fs *fortuneSteps) register(sc *godog.ScenarioContext) {
	sc.Step(`^the fortune service is called at "([^"]+)" with the access token$`, func(path string) error {
		token, err := fs.expand("{access_token}") // blocked, not a call without a token, when none is held
		if err != nil {
			return err
		}
		return fs.callFortune(path, token)
	})
	sc.Step(`^the fortune service is called at "([^"]+)" with no token$`, func(path string) error {
		return fs.callFortune(path, "")
	})
	sc.Step(`^the fortune service is called at "([^"]+)" with the token "([^"]+)"$`, func(path, token string) error {
		token, err := fs.expand(token)
		if err != nil {
			return err
		}
		return fs.callFortune(path, token)
	})
	sc.Step(`^the fortune service is called at "([^"]+)" with a token signed by a key of its own$`, func(path string) error {
		token, err := fs.forgedToken()
		if err != nil {
			return err
		}
		return fs.callFortune(path, token)
	})
	sc.Step(`^the fortune service is called at "([^"]+)" with the access token with its last character changed$`, func(path string) error {
		t, err := fs.expand("{access_token}")
		if err != nil {
			return err
		}
		last := "A"
		if strings.HasSuffix(t, "A") {
			last = "B"
		}
		return fs.callFortune(path, t[:len(t)-1]+last)
	})
	sc.Step(`^the answer is a fortune$`, fs.answerIsFortune)
	sc.Step(`^the request is refused$`, fs.requestRefused)
	sc.Step(`^the answer is (\d{3}) with a Bearer challenge$`, func(status int) error { return fs.bearerChallenge(status, "") })
	sc.Step(`^the answer is (\d{3}) with a Bearer challenge with the error "([^"]+)"$`, fs.bearerChallenge)
}

func (fs *fortuneSteps) callFortune(path, token string) error {
	f := fs.suite.services().Fortune
	if f == nil {
		return fmt.Errorf("the target declares no fortune service")
	}
	return fs.send(request{method: http.MethodGet, url: f.URL + path, bearer: token})
}

func (fs *fortuneSteps) answerIsFortune() error {
	a, err := fs.answer()
	if err != nil {
		return err
	}
	if a.status != http.StatusOK {
		return fs.failf("status %d, want 200 and a fortune", a.status)
	}
	if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		return fs.failf("Content-Type %q, want text/plain", ct)
	}
	if strings.TrimSpace(string(a.body)) == "" {
		return fs.failf("the fortune is empty")
	}
	return nil
}

// requestRefused accepts any refusal: the spec leaves status and body open, but a refusal is a 4xx answer.
func (fs *fortuneSteps) requestRefused() error {
	a, err := fs.answer()
	if err != nil {
		return err
	}
	if a.status < 400 || a.status > 499 {
		return fs.failf("status %d, want the request refused (4xx)", a.status)
	}
	return nil
}

// bearerChallenge checks an RFC 6750 refusal: the status, a Bearer challenge and its error attribute, or no
// error attribute at all when want is empty (a request that sent no token).
func (fs *fortuneSteps) bearerChallenge(status int, want string) error {
	if err := fs.answerIs(status); err != nil {
		return err
	}
	h := fs.last.header.Get("WWW-Authenticate")
	if !strings.HasPrefix(strings.ToLower(h), "bearer") {
		return fs.failf("WWW-Authenticate is %q, want a Bearer challenge", h)
	}
	has := strings.Contains(h, "error=")
	if want == "" && has {
		return fs.failf("WWW-Authenticate is %q: without a token there is no error to report (RFC 6750 3.1)", h)
	}
	if want != "" && !strings.Contains(h, fmt.Sprintf(`error="%s"`, want)) {
		return fs.failf("WWW-Authenticate is %q, want error=%q", h, want)
	}
	return nil
}

// forgedToken is a well-formed RS256 JWT with every claim a real token has, signed by a key the
// authorization server never saw: a resource server that accepts it does not validate tokens.
func (fs *fortuneSteps) forgedToken() (string, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", err
	}
	now := time.Now().Unix()
	header := map[string]string{"alg": "RS256", "typ": "JWT", "kid": "tck-" + randomID()}
	claims := map[string]any{
		"jti": randomID(), "sub": fs.vars["user_id"], "user_id": fs.vars["user_id"], "user_name": fs.vars["user"],
		"client_id": fs.vars["client"], "cid": fs.vars["client"], "azp": fs.vars["client"],
		"scope": []string{"openid", "fortunes.read"}, "aud": []string{fs.vars["client"], "openid", "fortunes"},
		"iss": fs.suite.endpoints.Issuer, "iat": now, "exp": now + 3600, "grant_type": "authorization_code",
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

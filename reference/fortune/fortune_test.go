package fortune

import (
	"crypto/rand"
	"crypto/rsa"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/internal/authtest"
)

func TestFortuneForAValidToken(t *testing.T) {
	f := start(t, nil, Options{})
	token := f.as.UserTokens(t, authtest.User, authtest.Password, "openid fortunes.read").AccessToken
	for _, path := range []string{"/", "/deep/path/to/fortunes", "/x?y=1"} {
		wantFortune(t, f.get(t, path, token))
	}
	// The scheme in any case (RFC 9110 11.1), and more than one space before the token (RFC 6750 2.1: 1*SP).
	for _, authorization := range []string{"bearer " + token, "BEARER " + token, "Bearer  " + token} {
		wantFortune(t, f.call(t, http.MethodGet, "/", authorization))
	}
	r := f.call(t, http.MethodHead, "/", "Bearer "+token)
	if r.Status != http.StatusOK || r.Body != "" || r.Header.Get("Content-Length") == "" {
		t.Fatalf("HEAD: %d %q %v", r.Status, r.Body, r.Header)
	}
	if got := f.as.Calls("/check_token"); got != 7 {
		t.Errorf("%d calls to check_token, want one per request (7)", got)
	}
	if logs := f.logs.String(); !strings.Contains(logs, "msg=fortune client_id=greeting user_name=marissa") {
		t.Errorf("no debug log of whose token it was:\n%s", logs)
	}
}

func TestFortunesDiffer(t *testing.T) {
	f := start(t, nil, Options{})
	token := f.as.ResourceClient(t, "reader", 0, RequiredScope)
	seen := map[string]bool{}
	for range len(collection) {
		seen[wantFortune(t, f.get(t, "/", token))] = true
	}
	if len(seen) != len(collection) {
		t.Fatalf("%d requests gave %d different fortunes", len(collection), len(seen))
	}
}

func TestCollection(t *testing.T) {
	if len(collection) < 30 {
		t.Errorf("%d fortunes, want about 30", len(collection))
	}
	for _, c := range collection {
		if !strings.Contains(c, " -- ") {
			t.Errorf("%q names no author or source", c)
		}
	}
}

// TestRefusals covers every way a request is refused with check_token.
func TestRefusals(t *testing.T) {
	f := start(t, nil, Options{})
	user := f.as.UserTokens(t, authtest.User, authtest.Password, "openid fortunes.read")
	f.as.CreateUser(t, "outsider")
	outsider := f.as.UserTokens(t, "outsider", "pw", "openid fortunes.read").AccessToken
	revoked := f.as.UserTokens(t, authtest.User, authtest.Password, "openid fortunes.read").AccessToken
	f.as.Revoke(t, authtest.GreetingID, authtest.GreetingSecret, revoked)
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	forged := authtest.Forge(t, other, "my-own-key", authtest.Claims(t, user.AccessToken))
	tampered := user.AccessToken[:len(user.AccessToken)-1] + map[bool]string{true: "B", false: "A"}[strings.HasSuffix(user.AccessToken, "A")]
	expired := shortLivedToken(t, f.as)

	tests := []struct {
		name          string
		authorization []string
		status        int
		code, desc    string
	}{
		{"no token", nil, 401, "", ""},
		{"another scheme", []string{"Basic Zm9ydHVuZTpmb3J0dW5lLXNlY3JldA=="}, 401, "", ""},
		{"empty bearer", []string{"Bearer "}, 400, "invalid_request", "one token"},
		{"two tokens", []string{"Bearer a b"}, 400, "invalid_request", "one token"},
		{"not a b64token", []string{`Bearer "quoted"`}, 400, "invalid_request", "one token"},
		{"two headers", []string{"Bearer " + user.AccessToken, "Bearer " + user.AccessToken}, 400, "invalid_request", "one Authorization header"},
		{"malformed token", []string{"Bearer not.a-token"}, 401, "invalid_token", "Token was not recognised"},
		{"unknown to the server", []string{"Bearer " + forged}, 401, "invalid_token", "Token was not recognised"},
		{"tampered", []string{"Bearer " + tampered}, 401, "invalid_token", "Token was not recognised"},
		{"refresh token", []string{"Bearer " + user.RefreshToken}, 401, "invalid_token", "Token was not recognised"},
		{"too long", []string{"Bearer " + strings.Repeat("a", maxTokenBytes+1)}, 401, "invalid_token", "Token was not recognised"},
		{"revoked", []string{"Bearer " + revoked}, 401, "invalid_token", "The token has been revoked"},
		{"expired", []string{"Bearer " + expired}, 401, "invalid_token", "Token has expired"},
		{"user outside fortunes.read", []string{"Bearer " + outsider}, 403, "insufficient_scope", "Insufficient scope"},
		{"client without fortunes.read", []string{"Bearer " + f.as.ClientToken(t, "admin", "adminsecret")}, 403, "insufficient_scope", "Insufficient scope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.call(t, http.MethodGet, "/", tt.authorization...)
			wantRefusal(t, r, tt.status, tt.code, tt.desc)
			if tt.status == 403 && !strings.Contains(r.Header.Get("WWW-Authenticate"), `scope="fortunes.read"`) {
				t.Errorf("403 without scope=\"fortunes.read\": %q", r.Header.Get("WWW-Authenticate"))
			}
		})
	}
}

// TestOtherMethods: the token is checked first, then only GET and HEAD are
// served.
func TestOtherMethods(t *testing.T) {
	f := start(t, nil, Options{})
	reader := f.as.ResourceClient(t, "reader", 0, RequiredScope)
	stranger := f.as.ResourceClient(t, "stranger", 0, "openid")
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodOptions} {
		wantRefusal(t, f.call(t, method, "/"), 401, "", "")
		wantRefusal(t, f.call(t, method, "/", "Bearer "+stranger), 403, "insufficient_scope", "Insufficient scope")
		r := f.call(t, method, "/", "Bearer "+reader)
		if r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s with a good token: %d, Allow %q", method, r.Status, r.Header.Get("Allow"))
		}
	}
}

// TestAuthServerUnavailable: whenever the token cannot be checked, the
// answer is 503 and a log line, never a fortune.
func TestAuthServerUnavailable(t *testing.T) {
	as := authtest.Start(t)
	token := as.ResourceClient(t, "reader", 0, RequiredScope)
	down := authtest.Start(t)
	down.Close()
	tests := []struct {
		name string
		opts Options
		fail int
		log  string
	}{
		{"unreachable", Options{AuthURL: down.URL}, 0, "connection refused"},
		{"5xx", Options{}, http.StatusBadGateway, "check_token answered 502"},
		{"wrong client secret", Options{ClientSecret: "wrong"}, 0, "(401): check its id, secret"},
		{"client without authz.resource", Options{ClientID: "greeting", ClientSecret: "greeting-secret"}, 0, "(403): check its id, secret and authz.resource"},
		{"wrong URL", Options{AuthURL: as.URL + "/nowhere"}, 0, "check_token answered 404"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := start(t, as, tt.opts)
			as.FailWith(tt.fail)
			defer as.FailWith(0)
			r := f.get(t, "/", token)
			if r.Status != http.StatusServiceUnavailable || r.JSON(t)["error"] != "temporarily_unavailable" {
				t.Fatalf("want 503, got %d %s", r.Status, r.Body)
			}
			if logs := f.logs.String(); !strings.Contains(logs, "level=ERROR") || !strings.Contains(logs, tt.log) {
				t.Errorf("log lacks an error with %q:\n%s", tt.log, logs)
			}
		})
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	tests := []struct {
		opts Options
		want string
	}{
		{Options{AuthURL: "ftp://x"}, "invalid authorization server URL"},
		{Options{AuthURL: "http://"}, "invalid authorization server URL"},
		{Options{Validation: "magic"}, `unknown token validation "magic"`},
		{Options{CacheSize: -1}, "cache size -1"},
		{Options{CacheSize: 10, Validation: ValidateJWT}, "JWT validation makes no call to cache"},
		{Options{CacheTTL: -time.Second}, "must not be negative"},
	}
	for _, tt := range tests {
		if _, err := New(tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.opts, err, tt.want)
		}
	}
	if _, err := New(Options{}); err != nil {
		t.Errorf("zero options: %v", err)
	}
}

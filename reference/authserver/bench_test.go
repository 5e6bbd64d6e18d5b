package authserver

import (
	"github.com/fortune-tck/fortune-tck/internal/cpubench"
	"github.com/fortune-tck/fortune-tck/reference/authserver/store"

	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// BenchmarkCheckToken compares a resource server's call to check_token with
// a handler that only writes the same body:
//
//	Baseline         fixed JSON body, no work
//	CheckToken       a user's token: client authentication, JWT
//	                 verification, store lookups (client and user)
//	ClientCheckToken a client_credentials token, as the load figure sends:
//	                 the same without the user
func BenchmarkCheckToken(b *testing.B) {
	ts := newTestServer(b)
	tk := userTokens(b, ts, "openid fortunes.read")
	form := url.Values{"token": {tk.AccessToken}}.Encode()
	body := checkToken(b, ts, tk.AccessToken).body
	clientForm := url.Values{"token": {adminToken(b, ts)}}.Encode()

	b.Run("Baseline", func(b *testing.B) {
		benchPost(b, fixedJSON(body), "/check_token", true, form, nil)
	})
	b.Run("CheckToken", func(b *testing.B) {
		benchPost(b, ts, "/check_token", true, form, nil)
	})
	b.Run("ClientCheckToken", func(b *testing.B) {
		benchPost(b, ts, "/check_token", true, clientForm, nil)
	})
}

// BenchmarkCodeExchange compares the greeting client's code exchange with a
// handler that only writes a token response:
//
//	Baseline      fixed JSON body, no work
//	CodeExchange  client authentication, code checks, an RS256 access token
//	              and an ID token, storage
//
// Each exchange needs a fresh code, minted untimed.
func BenchmarkCodeExchange(b *testing.B) {
	ts := newTestServer(b)
	body := exchange(b, ts, mintCode(b, ts), nil).body
	form := func(code string) string {
		return url.Values{
			"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {greetingRedirect},
			"client_id": {"greeting"}, "client_secret": {"greeting-secret"},
		}.Encode()
	}

	b.Run("Baseline", func(b *testing.B) {
		benchPost(b, fixedJSON(body), "/oauth/token", false, form("x"), nil)
	})
	b.Run("CodeExchange", func(b *testing.B) {
		benchPost(b, ts, "/oauth/token", false, "", func() string { return form(mintCode(b, ts)) })
	})
}

// benchPost posts form to path through h, with the fortune client's HTTP
// Basic credentials when basic is set; next, when set, builds each request's
// form untimed (but not outside cpu-ns/op, the process's CPU time per
// request, which a busy machine disturbs less than ns/op).
func benchPost(b *testing.B, h http.Handler, path string, basic bool, form string, next func() string) {
	b.ReportAllocs()
	b.ResetTimer()
	defer cpubench.Report(b)()
	for b.Loop() {
		if next != nil {
			b.StopTimer()
			form = next()
			b.StartTimer()
		}
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if basic {
			req.SetBasicAuth("fortune", "fortune-secret")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("POST %s: %d %s", path, rec.Code, rec.Body)
		}
	}
}

func fixedJSON(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json;charset=UTF-8")
		_, _ = w.Write([]byte(body))
	})
}

// mintCode issues a code for marissa in process, as the consent step does.
func mintCode(b *testing.B, ts *testServer) string {
	b.Helper()
	ctx := context.Background()
	u, _ := ts.store.UserByName(DemoUserName)
	req := httptest.NewRequest(http.MethodGet, authorizeURL(authParams("openid fortunes.read")), nil)
	ar, err := ts.oauth.NewAuthorizeRequest(ctx, req)
	if err != nil {
		b.Fatal(err)
	}
	ar.GrantScope("openid")
	ar.GrantScope("fortunes.read")
	resp, err := ts.oauth.NewAuthorizeResponse(ctx, ar, store.NewUserSession(u, time.Now().UTC().Truncate(time.Second), "nonce-0123456789"))
	if err != nil {
		b.Fatal(err)
	}
	return resp.GetCode()
}

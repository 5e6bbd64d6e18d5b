package authserver

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// maxCheckTokenAllocs is check_token's allocation budget for a token it
// answered before, with the net/http server's part left out (the request
// is built beforehand, the recorder reused). It was 107 for a user's token
// and 76 for a client's before the work on check_token's cost (17 after);
// the test fails when a change brings copies, decodings or encodings back.
const maxCheckTokenAllocs = 18

func TestCheckTokenAllocations(t *testing.T) {
	ts := newTestServer(t)
	for name, token := range map[string]string{
		"user token":   userTokens(t, ts, "openid fortunes.read").AccessToken,
		"client token": adminToken(t, ts),
	} {
		t.Run(name, func(t *testing.T) {
			const runs = 50
			form := url.Values{"token": {token}}.Encode()
			reqs := make([]*http.Request, runs+1) // AllocsPerRun runs once more to warm up
			for i := range reqs {
				reqs[i] = httptest.NewRequest(http.MethodPost, "/check_token", strings.NewReader(form))
				reqs[i].Header.Set("Content-Type", "application/x-www-form-urlencoded")
				reqs[i].SetBasicAuth("fortune", "fortune-secret")
			}
			rec := httptest.NewRecorder()
			i := 0
			n := testing.AllocsPerRun(runs, func() {
				rec.Body.Reset()
				clear(rec.HeaderMap)
				ts.ServeHTTP(rec, reqs[i])
				i++
			})
			if rec.Code != http.StatusOK {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
			if n > maxCheckTokenAllocs {
				t.Errorf("%v allocations per check_token, want at most %d", n, maxCheckTokenAllocs)
			}
			t.Logf("%v allocations per check_token", n)
		})
	}
}

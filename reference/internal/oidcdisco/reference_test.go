package oidcdisco

import (
	"context"
	"net/http"
	"testing"

	"github.com/fortune-tck/fortune-tck/reference/internal/authtest"
)

// TestTheReferenceServer: the reference authorization server's document
// answers at both well-known places, names the issuer its tokens carry,
// and its user info and ID tokens carry preferred_username.
func TestTheReferenceServer(t *testing.T) {
	as := authtest.Start(t)
	issuer := as.URL + "/oauth/token"
	for _, where := range []string{as.URL + WellKnownPath, WellKnown(issuer)} {
		m, err := Fetch(context.Background(), noRedirects(), where, issuer)
		if err != nil {
			t.Fatal(err)
		}
		want := *UAA(as.URL)
		want.CheckTokenEndpoint, want.Source = "", where // no document lists check_token
		if *m != want {
			t.Errorf("%s: %+v", where, m)
		}
	}
	tk := as.UserTokens(t, authtest.User, authtest.Password, "openid fortunes.read")
	if iss := authtest.Claims(t, tk.AccessToken)["iss"]; iss != issuer {
		t.Errorf("access token iss %v, want %s", iss, issuer)
	}
	id := authtest.Claims(t, tk.IDToken)
	if id["iss"] != issuer || id["preferred_username"] != authtest.User {
		t.Errorf("ID token claims %v", id)
	}
	req, _ := http.NewRequest(http.MethodGet, as.URL+"/userinfo", nil)
	req.Header.Set("Authorization", "Bearer "+tk.AccessToken)
	if info := authtest.Send(t, req).JSON(t); info["preferred_username"] != authtest.User || info["user_name"] != authtest.User {
		t.Errorf("userinfo %v", info)
	}
}

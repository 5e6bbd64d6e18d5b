package authserver

import (
	"net/url"
	"strings"
	"testing"
)

// The answers of the provisioning endpoints that take a JSON body, to a
// request without a token, with a token lacking the scope, and with a body
// that does not decode, byte for byte (the auth features compare them):
// the endpoints share these checks, each with its own scope and error code.
func TestProvisioningRefusalsByteForByte(t *testing.T) {
	ts := newTestServer(t)
	admin := adminToken(t, ts)
	reader := tokensOf(t, post(t, ts, "/oauth/token", "admin:adminsecret", url.Values{"grant_type": {"client_credentials"}, "scope": {"scim.read clients.read"}})).AccessToken
	fortunes, _ := ts.store.GroupByName("fortunes.read")
	const (
		unauthorized = `{"error":"unauthorized","error_description":"Full authentication is required to access this resource"}` + "\n"
		insufficient = `{"error":"insufficient_scope","error_description":"Insufficient scope for this resource","scope":"SCOPE"}` + "\n"
		challenge    = `Bearer realm="oauth", error="insufficient_scope", error_description="Insufficient scope for this resource", scope="SCOPE"`
		undecodable  = `{"error":"CODE","error_description":"the body must be a JSON object"}` + "\n"
	)
	for _, e := range []struct{ path, scope, code string }{
		{"/Users", "scim.write", "invalid_scim_resource"},
		{"/Groups", "scim.write", "invalid_scim_resource"},
		{"/Groups/" + fortunes.ID + "/members", "scim.write", "invalid_scim_resource"},
		{"/oauth/clients", "clients.write", "invalid_client"},
	} {
		fill := strings.NewReplacer("SCOPE", e.scope, "CODE", e.code).Replace
		for _, c := range []struct {
			name, token, body string
			status            int
			challenge, want   string
		}{
			{"no token", "", `{}`, 401, `Bearer realm="oauth"`, unauthorized},
			{"read-only token", reader, `{}`, 403, fill(challenge), fill(insufficient)},
			{"not JSON", admin, `{"x":`, 400, "", fill(undecodable)},
			{"not an object", admin, `[1]`, 400, "", fill(undecodable)},
		} {
			r := api(t, ts, "POST", e.path, c.token, c.body)
			if r.status != c.status || r.header.Get("WWW-Authenticate") != c.challenge || r.body != c.want {
				t.Errorf("POST %s, %s: %d %q %q\nwant %d %q %q", e.path, c.name,
					r.status, r.header.Get("WWW-Authenticate"), r.body, c.status, c.challenge, c.want)
			}
		}
	}
}

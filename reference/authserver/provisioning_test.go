package authserver

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestProvisioningAsTheHarness provisions a user, a group, a membership and
// a client the way the harness does, then signs the user in with the client.
func TestProvisioningAsTheHarness(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.Demo = nil })
	admin := adminToken(t, ts)

	r := api(t, ts, "POST", "/Users", admin, `{"userName":"alice","name":{"givenName":"Alice","familyName":"Doe"},
		"emails":[{"value":"alice@test.org","primary":true}],"password":"s3cret"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("create user: %d %s", r.status, r.body)
	}
	user := r.json(t)
	if user["id"] == "" || user["userName"] != "alice" || user["active"] != true ||
		user["name"].(map[string]any)["givenName"] != "Alice" || user["emails"].([]any)[0].(map[string]any)["value"] != "alice@test.org" {
		t.Errorf("user: %v", user)
	}
	if _, ok := user["password"]; ok {
		t.Error("the password is echoed")
	}

	r = api(t, ts, "POST", "/Groups", admin, `{"displayName":"fortunes.read","description":"Read fortunes"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("create group: %d %s", r.status, r.body)
	}
	r = api(t, ts, "GET", "/Groups?filter="+url.QueryEscape(`displayName eq "fortunes.read"`), admin, "")
	list := r.json(t)
	resources, _ := list["resources"].([]any)
	if r.status != http.StatusOK || len(resources) != 1 || list["totalResults"] != 1.0 || list["startIndex"] != 1.0 ||
		list["itemsPerPage"] != 1.0 || list["schemas"] == nil {
		t.Fatalf("group list: %d %s", r.status, r.body)
	}
	groupID := resources[0].(map[string]any)["id"].(string)

	r = api(t, ts, "POST", "/Groups/"+groupID+"/members", admin, `{"value":"`+user["id"].(string)+`","type":"USER","origin":"uaa"}`)
	if r.status != http.StatusCreated || r.json(t)["value"] != user["id"] {
		t.Fatalf("add member: %d %s", r.status, r.body)
	}

	r = api(t, ts, "POST", "/oauth/clients", admin, `{"client_id":"greeting","client_secret":"greeting-secret","name":"Greeting",
		"scope":["openid","fortunes.read"],"authorized_grant_types":["authorization_code","refresh_token"],
		"authorities":["uaa.none"],"redirect_uri":["http://localhost:8100/"],"autoapprove":false}`)
	if r.status != http.StatusCreated {
		t.Fatalf("create client: %d %s", r.status, r.body)
	}
	if c := r.json(t); c["client_secret"] != nil || c["client_id"] != "greeting" || c["autoapprove"] == nil {
		t.Errorf("client: %v", c)
	}
	r = api(t, ts, "GET", "/oauth/clients/greeting", admin, "")
	if r.status != http.StatusOK || strings.Contains(r.body, "secret") {
		t.Fatalf("get client: %d %s", r.status, r.body)
	}

	b := newBrowser(t, ts)
	tk := tokensOf(t, exchange(t, ts, codeOf(t, b.approve(authParams("openid fortunes.read"), "alice", "s3cret")), nil))
	if tk.Scope != "openid fortunes.read" {
		t.Fatalf("scope %q", tk.Scope)
	}
}

func TestProvisioningStatuses(t *testing.T) {
	ts := newTestServer(t)
	admin := adminToken(t, ts)
	reader := tokensOf(t, post(t, ts, "/oauth/token", "admin:adminsecret", url.Values{"grant_type": {"client_credentials"}, "scope": {"scim.read clients.read"}})).AccessToken
	userToken := userTokens(t, ts, "openid").AccessToken
	marissa, _ := ts.store.userByName("marissa")
	fortunes, _ := ts.store.groupByName("fortunes.read")
	openid, _ := ts.store.groupByName("openid")
	user := `{"userName":"bob","password":"pw","emails":[{"value":"bob@test.org"}]}`
	client := `{"client_id":"c1","client_secret":"s","authorized_grant_types":["client_credentials"],"authorities":["x.y"]}`
	tests := []struct {
		name, method, path, token, body string
		status                          int
		err                             string
	}{
		{"user", "POST", "/Users", admin, user, 201, ""},
		{"duplicate user", "POST", "/Users", admin, `{"userName":"MARISSA","password":"pw","emails":[{"value":"m@test.org"}]}`, 409, "scim_resource_already_exists"},
		{"user without name", "POST", "/Users", admin, `{"password":"pw","emails":[{"value":"x@test.org"}]}`, 400, "invalid_scim_resource"},
		{"user without e-mail", "POST", "/Users", admin, `{"userName":"e","password":"pw"}`, 400, "invalid_scim_resource"},
		{"user with a long password", "POST", "/Users", admin, `{"userName":"l","password":"` + strings.Repeat("p", 73) + `","emails":[{"value":"l@test.org"}]}`, 400, "invalid_scim_resource"},
		{"not JSON", "POST", "/Users", admin, `{"userName":`, 400, "invalid_scim_resource"},
		{"wrong type", "POST", "/Users", admin, `{"userName":1}`, 400, "invalid_scim_resource"},
		{"no token", "POST", "/Users", "", user, 401, "unauthorized"},
		{"bad token", "POST", "/Users", "nope", user, 401, "invalid_token"},
		{"read-only token", "POST", "/Users", reader, user, 403, "insufficient_scope"},
		{"user token", "GET", "/Groups", userToken, "", 403, "insufficient_scope"},
		{"group", "POST", "/Groups", admin, `{"displayName":"g1"}`, 201, ""},
		{"duplicate group", "POST", "/Groups", admin, `{"displayName":"fortunes.read"}`, 409, "scim_resource_already_exists"},
		{"group with a space", "POST", "/Groups", admin, `{"displayName":"a b"}`, 400, "invalid_scim_resource"},
		{"list groups", "GET", "/Groups", reader, "", 200, ""},
		{"other filter", "GET", "/Groups?filter=" + url.QueryEscape(`displayName co "f"`), admin, "", 400, "invalid_filter"},
		{"list users", "GET", "/Users?filter=" + url.QueryEscape(`userName eq "marissa"`), reader, "", 200, ""},
		{"member", "POST", "/Groups/" + openid.ID + "/members", admin, `{"value":"` + marissa.ID + `"}`, 201, ""},
		{"member again", "POST", "/Groups/" + fortunes.ID + "/members", admin, `{"value":"` + marissa.ID + `","type":"USER","origin":"uaa"}`, 409, "member_already_exists"},
		{"unknown group", "POST", "/Groups/nope/members", admin, `{"value":"` + marissa.ID + `"}`, 404, "scim_resource_not_found"},
		{"unknown user", "POST", "/Groups/" + fortunes.ID + "/members", admin, `{"value":"nope"}`, 404, "scim_resource_not_found"},
		{"group member", "POST", "/Groups/" + fortunes.ID + "/members", admin, `{"value":"x","type":"GROUP"}`, 400, "invalid_scim_resource"},
		{"client", "POST", "/oauth/clients", admin, client, 201, ""},
		{"duplicate client", "POST", "/oauth/clients", admin, client, 409, "invalid_client"},
		{"client without grant", "POST", "/oauth/clients", admin, `{"client_id":"c2","client_secret":"s"}`, 400, "invalid_client"},
		{"unsupported grant", "POST", "/oauth/clients", admin, `{"client_id":"c3","client_secret":"s","authorized_grant_types":["password"]}`, 400, "invalid_client"},
		{"code without redirect", "POST", "/oauth/clients", admin, `{"client_id":"c4","client_secret":"s","authorized_grant_types":["authorization_code"]}`, 400, "invalid_client"},
		{"wildcard redirect", "POST", "/oauth/clients", admin, `{"client_id":"c5","client_secret":"s","authorized_grant_types":["authorization_code"],"redirect_uri":["http://localhost:8100/**"]}`, 400, "invalid_client"},
		{"client id with a colon", "POST", "/oauth/clients", admin, `{"client_id":"a:b","client_secret":"s","authorized_grant_types":["client_credentials"]}`, 400, "invalid_client"},
		{"bad autoapprove", "POST", "/oauth/clients", admin, `{"client_id":"c6","client_secret":"s","authorized_grant_types":["client_credentials"],"autoapprove":3}`, 400, "invalid_client"},
		{"client with a read token", "POST", "/oauth/clients", reader, client, 403, "insufficient_scope"},
		{"get client", "GET", "/oauth/clients/greeting", reader, "", 200, ""},
		{"unknown client", "GET", "/oauth/clients/nope", reader, "", 404, "invalid_client"},
		{"get client without token", "GET", "/oauth/clients/greeting", "", "", 401, "unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := api(t, ts, tt.method, tt.path, tt.token, tt.body)
			if r.status != tt.status {
				t.Fatalf("want %d, got %d %s", tt.status, r.status, r.body)
			}
			if tt.err != "" && r.json(t)["error"] != tt.err {
				t.Fatalf("want error %s: %s", tt.err, r.body)
			}
			if tt.status == 401 && !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without a Bearer challenge")
			}
		})
	}
}

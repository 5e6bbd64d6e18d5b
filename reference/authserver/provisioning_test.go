package authserver

import (
	"net/http"
	"net/url"
	"slices"
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
	marissa, _ := ts.store.UserByName("marissa")
	fortunes, _ := ts.store.GroupByName("fortunes.read")
	openid, _ := ts.store.GroupByName("openid")
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
		{"user with a long password", "POST", "/Users", admin, `{"userName":"l","password":"` + strings.Repeat("p", 73) + `","emails":[{"value":"l@test.org"}]}`, 400, "invalid_password"},
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

// TestDeletingWhatWasProvisioned removes a user, a group and a client the
// way the harness does at the end of a scenario (UAA's DELETE /Users/{id},
// /Groups/{id}, /oauth/clients/{id}): each answer is the record removed,
// the record is gone from every list, its name is free again, what hung on
// it (memberships, approvals, tokens) goes with it, and a second delete is
// a 404.
func TestDeletingWhatWasProvisioned(t *testing.T) {
	ts := newTestServer(t)
	admin := adminToken(t, ts)
	reader := tokensOf(t, post(t, ts, "/oauth/token", "admin:adminsecret", url.Values{"grant_type": {"client_credentials"}, "scope": {"scim.read clients.read"}})).AccessToken
	created := func(method, path, body string) map[string]any {
		t.Helper()
		r := api(t, ts, method, path, admin, body)
		if r.status != http.StatusCreated {
			t.Fatalf("%s %s: %d %s", method, path, r.status, r.body)
		}
		return r.json(t)
	}
	count := func(path string) int {
		t.Helper()
		r := api(t, ts, "GET", path, reader, "")
		if r.status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, r.status, r.body)
		}
		list := r.json(t)
		resources, _ := list["resources"].([]any)
		if list["totalResults"] != float64(len(resources)) {
			t.Errorf("GET %s: totalResults %v for %d resources", path, list["totalResults"], len(resources))
		}
		return len(resources)
	}
	alice := `{"userName":"alice","password":"s3cret","emails":[{"value":"alice@test.org"}]}`
	userID := created("POST", "/Users", alice)["id"].(string)
	fortunes, _ := ts.store.GroupByName("fortunes.read")
	created("POST", "/Groups/"+fortunes.ID+"/members", `{"value":"`+userID+`"}`)
	groupID := created("POST", "/Groups", `{"displayName":"tck.group"}`)["id"].(string)
	created("POST", "/Groups/"+groupID+"/members", `{"value":"`+userID+`"}`)
	client := `{"client_id":"c1","client_secret":"s","authorized_grant_types":["client_credentials"],"authorities":["x.y"]}`
	created("POST", "/oauth/clients", client)
	users, groups, clients := count("/Users"), count("/Groups"), count("/oauth/clients")

	// Alice signs in with the greeting client; c1 gets a token of its own.
	b := newBrowser(t, ts)
	aliceToken := tokensOf(t, exchange(t, ts, codeOf(t, b.approve(authParams("openid fortunes.read"), "alice", "s3cret")), nil)).AccessToken
	clientToken := tokensOf(t, post(t, ts, "/oauth/token", "c1:s", url.Values{"grant_type": {"client_credentials"}})).AccessToken
	marissa, _ := ts.store.UserByName(DemoUserName)
	if err := ts.store.Approve(marissa.ID, "c1", []string{"x.y"}); err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{aliceToken, clientToken} {
		if r := checkToken(t, ts, tok); r.status != http.StatusOK {
			t.Fatalf("check_token before the deletes: %d %s", r.status, r.body)
		}
	}
	if !ts.store.Approved(userID, GreetingClientID, []string{"openid", "fortunes.read"}) {
		t.Fatal("alice's approval of the greeting client was not remembered")
	}

	for _, tt := range []struct{ name, path, token, err string }{
		{"no token", "/Users/" + userID, "", "unauthorized"},
		{"read-only token", "/Users/" + userID, reader, "insufficient_scope"},
		{"read-only token for a group", "/Groups/" + groupID, reader, "insufficient_scope"},
		{"read-only token for a client", "/oauth/clients/c1", reader, "insufficient_scope"},
	} {
		if r := api(t, ts, "DELETE", tt.path, tt.token, ""); r.status/100 != 4 || r.json(t)["error"] != tt.err {
			t.Errorf("%s: DELETE %s answered %d %s, want %s", tt.name, tt.path, r.status, r.body, tt.err)
		}
	}

	r := api(t, ts, "DELETE", "/Users/"+userID, admin, "")
	if r.status != http.StatusOK || r.json(t)["userName"] != "alice" || r.json(t)["id"] != userID {
		t.Fatalf("DELETE /Users/{id}: %d %s, want 200 with the user removed", r.status, r.body)
	}
	if n := count("/Users"); n != users-1 {
		t.Errorf("%d users after the delete, want %d", n, users-1)
	}
	if count("/Users?filter="+url.QueryEscape(`userName eq "alice"`)) != 0 {
		t.Error("alice is still found by name")
	}
	for _, name := range []string{"fortunes.read", "tck.group"} {
		if g, _ := ts.store.GroupByName(name); slices.Contains(g.Members, userID) {
			t.Errorf("the group %s still has the removed user as a member: %v", name, g.Members)
		}
	}
	if ts.store.Approved(userID, GreetingClientID, []string{"openid"}) {
		t.Error("the removed user's approvals are still remembered")
	}
	if r := checkToken(t, ts, aliceToken); r.status == http.StatusOK {
		t.Errorf("check_token accepts a token of the removed user: %s", r.body)
	}
	if r := api(t, ts, "DELETE", "/Users/"+userID, admin, ""); r.status != http.StatusNotFound || r.json(t)["error"] != "scim_resource_not_found" {
		t.Errorf("a second DELETE /Users/{id}: %d %s, want 404", r.status, r.body)
	}
	created("POST", "/Users", alice) // the name is free again

	r = api(t, ts, "DELETE", "/Groups/"+groupID, admin, "")
	if r.status != http.StatusOK || r.json(t)["displayName"] != "tck.group" {
		t.Fatalf("DELETE /Groups/{id}: %d %s, want 200 with the group removed", r.status, r.body)
	}
	if n := count("/Groups"); n != groups-1 {
		t.Errorf("%d groups after the delete, want %d", n, groups-1)
	}
	if r := api(t, ts, "DELETE", "/Groups/"+groupID, admin, ""); r.status != http.StatusNotFound {
		t.Errorf("a second DELETE /Groups/{id}: %d %s, want 404", r.status, r.body)
	}
	created("POST", "/Groups", `{"displayName":"tck.group"}`)
	if g, _ := ts.store.GroupByName("fortunes.read"); len(g.Members) == 0 {
		t.Error("fortunes.read lost its other members")
	}

	r = api(t, ts, "DELETE", "/oauth/clients/c1", admin, "")
	if r.status != http.StatusOK || r.json(t)["client_id"] != "c1" || strings.Contains(r.body, "secret") {
		t.Fatalf("DELETE /oauth/clients/{id}: %d %s, want 200 with the client removed, without its secret", r.status, r.body)
	}
	if n := count("/oauth/clients"); n != clients-1 {
		t.Errorf("%d clients after the delete, want %d", n, clients-1)
	}
	if r := api(t, ts, "GET", "/oauth/clients/c1", admin, ""); r.status != http.StatusNotFound {
		t.Errorf("GET of the removed client: %d %s", r.status, r.body)
	}
	if ts.store.Approved(marissa.ID, "c1", []string{"x.y"}) {
		t.Error("approvals of the removed client are still remembered")
	}
	if r := checkToken(t, ts, clientToken); r.status == http.StatusOK {
		t.Errorf("check_token accepts a token of the removed client: %s", r.body)
	}
	if r := post(t, ts, "/oauth/token", "c1:s", url.Values{"grant_type": {"client_credentials"}}); r.status == http.StatusOK {
		t.Errorf("the removed client still gets tokens: %s", r.body)
	}
	if r := api(t, ts, "DELETE", "/oauth/clients/c1", admin, ""); r.status != http.StatusNotFound || r.json(t)["error"] != "invalid_client" {
		t.Errorf("a second DELETE /oauth/clients/{id}: %d %s, want 404 invalid_client", r.status, r.body)
	}
	created("POST", "/oauth/clients", client)
	if r := api(t, ts, "GET", "/oauth/clients?filter="+url.QueryEscape(`client_id eq "c1"`), reader, ""); r.status != http.StatusBadRequest {
		t.Errorf("GET /oauth/clients with a filter: %d %s, want 400 (filters are not supported)", r.status, r.body)
	}
}

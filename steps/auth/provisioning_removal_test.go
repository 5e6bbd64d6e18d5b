package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// fakeUAA is UAA's administration API in memory: users, groups with members, clients, and the admin client's
// tokens, which a test can make expire all at once.
type fakeUAA struct {
	srv *httptest.Server
	mu  sync.Mutex
	// users and clients map an id to a name; groups map an id to a group.
	users, clients map[string]string
	groups         map[string]*fakeGroup
	tokens         map[string]bool
	issued         int
	// keep makes the server answer 404 to every DELETE and keep the record, as one without the DELETE does.
	keep bool
	// race is a group another caller creates just before the steps do: their POST gets a 409.
	race string
	// scim2 lists what a filter finds as SCIM 2.0 writes it (RFC 7644 3.4.2: "Resources"), not as UAA does.
	scim2 bool
}

type fakeGroup struct {
	name    string
	members []string
}

const fakeAdmin, fakeAdminSecret = "admin", "admin/secret"

func startFakeUAA(t *testing.T) *fakeUAA {
	u := &fakeUAA{users: map[string]string{}, clients: map[string]string{fakeAdmin: fakeAdmin},
		groups: map[string]*fakeGroup{"g-openid": {name: "openid"}}, tokens: map[string]bool{}}
	m := http.NewServeMux()
	m.HandleFunc("POST /oauth/token", u.token)
	m.HandleFunc("POST /Users", u.authorized(u.createUser))
	m.HandleFunc("GET /Users", u.authorized(u.list))
	m.HandleFunc("DELETE /Users/{id}", u.authorized(u.remove))
	m.HandleFunc("POST /Groups", u.authorized(u.createGroup))
	m.HandleFunc("GET /Groups", u.authorized(u.list))
	m.HandleFunc("DELETE /Groups/{id}", u.authorized(u.remove))
	m.HandleFunc("POST /Groups/{id}/members", u.authorized(u.addMember))
	m.HandleFunc("POST /oauth/clients", u.authorized(u.createClient))
	m.HandleFunc("GET /oauth/clients/{id}", u.authorized(u.getClient))
	m.HandleFunc("DELETE /oauth/clients/{id}", u.authorized(u.remove))
	u.srv = httptest.NewServer(m)
	t.Cleanup(u.srv.Close)
	return u
}

func (u *fakeUAA) env() Env {
	return envOf(target.Services{AuthServer: &target.AuthServer{URL: u.srv.URL, Provisioning: &target.Provisioning{API: "uaa",
		ClientID: fakeAdmin, ClientSecret: fakeAdminSecret}}})
}

// expire makes every token issued so far invalid.
func (u *fakeUAA) expire() {
	u.mu.Lock()
	defer u.mu.Unlock()
	clear(u.tokens)
}

// state names what the server holds: users, groups (with their members' names) and clients.
func (u *fakeUAA) state() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []string
	for _, name := range u.users {
		out = append(out, "user "+name)
	}
	for _, g := range u.groups {
		var members []string
		for _, id := range g.members {
			members = append(members, u.users[id])
		}
		out = append(out, fmt.Sprintf("group %s %v", g.name, members))
	}
	for _, name := range u.clients {
		out = append(out, "client "+name)
	}
	slices.Sort(out)
	return out
}

func (u *fakeUAA) token(w http.ResponseWriter, r *http.Request) {
	id, secret, _ := r.BasicAuth()
	if id != "admin" || secret != "admin%2Fsecret" || r.PostFormValue("grant_type") != "client_credentials" {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.issued++
	tok := fmt.Sprintf("token-%d", u.issued)
	u.tokens[tok] = true
	writeJSON(w, http.StatusOK, map[string]any{"access_token": tok, "token_type": "bearer"})
}

func (u *fakeUAA) authorized(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		ok := u.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		u.mu.Unlock()
		if !ok {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token"})
			return
		}
		u.mu.Lock()
		defer u.mu.Unlock()
		h(w, r)
	}
}

func (u *fakeUAA) createUser(w http.ResponseWriter, r *http.Request) {
	var in struct{ UserName string }
	_ = json.NewDecoder(r.Body).Decode(&in)
	if slices.Contains(slices.Collect(maps.Values(u.users)), in.UserName) {
		writeJSON(w, http.StatusConflict, map[string]string{"error": "scim_resource_already_exists"})
		return
	}
	id := fmt.Sprintf("u-%d", len(u.users)+len(u.groups)+len(u.clients)+u.issued)
	u.users[id] = in.UserName
	writeJSON(w, http.StatusCreated, map[string]string{"id": id, "userName": in.UserName})
}

func (u *fakeUAA) createGroup(w http.ResponseWriter, r *http.Request) {
	var in struct{ DisplayName string }
	_ = json.NewDecoder(r.Body).Decode(&in)
	if in.DisplayName == u.race {
		u.groups["g-"+u.race] = &fakeGroup{name: u.race}
	}
	for _, g := range u.groups {
		if g.name == in.DisplayName {
			writeJSON(w, http.StatusConflict, map[string]string{"error": "scim_resource_already_exists"})
			return
		}
	}
	id := "g-" + in.DisplayName
	u.groups[id] = &fakeGroup{name: in.DisplayName}
	writeJSON(w, http.StatusCreated, map[string]string{"id": id, "displayName": in.DisplayName})
}

func (u *fakeUAA) addMember(w http.ResponseWriter, r *http.Request) {
	var in struct{ Value string }
	_ = json.NewDecoder(r.Body).Decode(&in)
	g, ok := u.groups[r.PathValue("id")]
	if !ok || u.users[in.Value] == "" {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "scim_resource_not_found"})
		return
	}
	g.members = append(g.members, in.Value)
	writeJSON(w, http.StatusCreated, map[string]string{"value": in.Value})
}

func (u *fakeUAA) createClient(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ClientID string `json:"client_id"`
	}
	_ = json.NewDecoder(r.Body).Decode(&in)
	if u.clients[in.ClientID] != "" {
		writeJSON(w, http.StatusConflict, map[string]string{"error": "invalid_client"})
		return
	}
	u.clients[in.ClientID] = in.ClientID
	writeJSON(w, http.StatusCreated, map[string]string{"client_id": in.ClientID})
}

func (u *fakeUAA) getClient(w http.ResponseWriter, r *http.Request) {
	if u.clients[r.PathValue("id")] == "" {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "invalid_client"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"client_id": r.PathValue("id")})
}

var fakeFilter = regexp.MustCompile(`^(userName|displayName) eq "(.*)"$`)

func (u *fakeUAA) list(w http.ResponseWriter, r *http.Request) {
	m := fakeFilter.FindStringSubmatch(r.URL.Query().Get("filter"))
	if m == nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_filter"})
		return
	}
	resources := []map[string]any{}
	for id, name := range u.users {
		if m[1] == "userName" && name == m[2] {
			resources = append(resources, map[string]any{"id": id, "userName": name})
		}
	}
	for id, g := range u.groups {
		if m[1] == "displayName" && g.name == m[2] {
			members := []map[string]string{}
			for _, m := range g.members {
				members = append(members, map[string]string{"value": m})
			}
			resources = append(resources, map[string]any{"id": id, "displayName": g.name, "members": members})
		}
	}
	key := "resources"
	if u.scim2 {
		key = "Resources"
	}
	writeJSON(w, http.StatusOK, map[string]any{key: resources, "totalResults": len(resources)})
}

// remove deletes a user (with its memberships), a group or a client.
func (u *fakeUAA) remove(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	_, user := u.users[id]
	_, group := u.groups[id]
	client := u.clients[id] != "" && strings.HasPrefix(r.URL.Path, "/oauth/clients/")
	if u.keep || !(user || group || client) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "not_found"})
		return
	}
	switch {
	case client:
		delete(u.clients, id)
	case user:
		delete(u.users, id)
		for _, g := range u.groups {
			g.members = slices.DeleteFunc(g.members, func(m string) bool { return m == id })
		}
	default:
		delete(u.groups, id)
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": id})
}

// The users, clients and groups the identity and provisioning steps create are removed when their scenario
// ends, also after the admin token expired; a group created because it was missing is the run's, removed by
// Cleanup; a group that was there stays; what was not created (a 409) is not removed.
func TestProvisionedIdentitiesAreRemovedAtTheEndOfTheirScenario(t *testing.T) {
	uaa := startFakeUAA(t)
	before := uaa.state()
	s := newServer(uaa.env())
	if err := s.Preflight(context.Background()); err != nil {
		t.Fatal(err)
	}

	// A scenario of another profile: its identities, made fresh through the provisioner.
	ids := newIdentitySteps(s, s.newScenario())
	for _, err := range []error{ids.ensureUser("{user}", "fortunes.read"), ids.ensureUser("{outsider}"),
		ids.ensureClient(clientSpec{Client: target.Client{ClientID: "{client}"}, scope: "openid fortunes.read", grants: "authorization_code"}),
		ids.ensureClient(clientSpec{Client: target.Client{ClientID: "{short_client}"}, scope: "openid", grants: "authorization_code", validity: 2})} {
		if err != nil {
			t.Fatal(err)
		}
	}
	// A scenario of the provisioning profile: the steps that speak the API themselves.
	own := newIdentitySteps(s, s.newScenario())
	pv := &provisioningSteps{Scenario: own.Scenario, ids: own}
	// Creating the same user or client twice (409) and a user without a token (401) make nothing.
	for _, err := range []error{pv.obtainAdminToken(), pv.ids.createGroup("{group}", "the scenario's"), pv.userExists("{user}"),
		pv.addMember("{user}", "{group}"), pv.addMember("{user}", "openid"), pv.addMember("{user}", "fortunes.read"),
		pv.createUser("{user}", "again"),
		pv.registerClientStep("{client}", "openid", "authorization_code", ""),
		pv.registerClientStep("{client}", "openid", "authorization_code", ""),
		pv.ids.sendAPI(core.Request{Method: http.MethodPost, URL: "/Users", JSON: userRecord("tck-nobody", "x")}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	during := uaa.state()
	if len(during) != len(before)+8 {
		t.Fatalf("the scenarios made %v, want 3 users, 3 clients and 2 groups more than %v", during, before)
	}
	uaa.expire()

	if err := ids.RemoveCreated(context.Background()); err != nil {
		t.Fatalf("removeCreated = %v", err)
	}
	for _, name := range []string{ids.Vars["user"], ids.Vars["outsider"]} {
		if slices.Contains(uaa.state(), "user "+name) {
			t.Errorf("the scenario's user %s is still there: %v", name, uaa.state())
		}
	}
	if !slices.Contains(uaa.state(), "user "+pv.Vars["user"]) {
		t.Errorf("another scenario's user went with the first one's: %v", uaa.state())
	}
	uaa.expire() // the token the removals hold expires too
	if err := pv.RemoveCreated(context.Background()); err != nil {
		t.Fatalf("removeCreated = %v", err)
	}
	want := append(slices.Clone(before), "group fortunes.read []")
	slices.Sort(want)
	if got := uaa.state(); !slices.Equal(got, want) {
		t.Errorf("after both scenarios the server holds %v, want %v: the missing group made for the run stays until its end", got, want)
	}
	if err := s.run.Cleanup(context.Background()); err != nil {
		t.Fatalf("Cleanup = %v", err)
	}
	if got := uaa.state(); !slices.Equal(got, before) {
		t.Errorf("after the run the server holds %v, want what it held before, %v", got, before)
	}
	if left := s.run.LeftBehind(); len(left) != 0 {
		t.Errorf("left behind: %v, want nothing", left)
	}
}

// What a server will not delete is named as left behind, with the reason: a record a DELETE answered 404 for
// and that is still there, and a group made for the run that someone else's user joined.
func TestProvisionedIdentitiesTheServerKeepsAreNamedAsLeftBehind(t *testing.T) {
	uaa := startFakeUAA(t)
	s := newServer(uaa.env())
	if err := s.Preflight(context.Background()); err != nil {
		t.Fatal(err)
	}
	ids := newIdentitySteps(s, s.newScenario())
	if err := ids.ensureUser("{user}", "fortunes.read"); err != nil {
		t.Fatal(err)
	}
	uaa.mu.Lock()
	uaa.users["someone"] = "someone"
	uaa.groups["g-fortunes.read"].members = append(uaa.groups["g-fortunes.read"].members, "someone")
	uaa.keep = true
	uaa.mu.Unlock()
	if err := ids.RemoveCreated(context.Background()); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("removeCreated = %v, want the 404 of a user that is still there", err)
	}
	uaa.mu.Lock()
	uaa.keep = false
	uaa.mu.Unlock()
	if err := s.run.Cleanup(context.Background()); err == nil || !strings.Contains(err.Error(), "members") {
		t.Errorf("Cleanup = %v, want the group kept for its members", err)
	}
	left := strings.Join(s.run.LeftBehind(), "\n")
	if !strings.Contains(left, "the user "+ids.Vars["user"]) || !strings.Contains(left, "the group fortunes.read") ||
		len(s.run.LeftBehind()) != 2 {
		t.Errorf("left behind: %v, want the user and the group named", s.run.LeftBehind())
	}
	if !slices.Contains(uaa.state(), "group fortunes.read ["+ids.Vars["user"]+" someone]") {
		t.Errorf("the server holds %v, want fortunes.read with its members", uaa.state())
	}
}

// A missing group that another run creates at the same moment is used as found: the 409 of the steps' POST is
// no failure, and the group is not theirs to remove.
func TestAMissingGroupAnotherRunCreatedMeanwhileIsNotRemoved(t *testing.T) {
	uaa := startFakeUAA(t)
	uaa.race = "fortunes.read"
	s := newServer(uaa.env())
	if err := s.Preflight(context.Background()); err != nil {
		t.Fatal(err)
	}
	ids := newIdentitySteps(s, s.newScenario())
	if err := ids.ensureUser("{user}", "fortunes.read"); err != nil {
		t.Fatalf("ensureUser = %v, want the group found after the 409", err)
	}
	if err := ids.RemoveCreated(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.run.Cleanup(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(uaa.state(), "group fortunes.read []") || len(s.run.LeftBehind()) != 0 {
		t.Errorf("the server holds %v, left behind %v: want the other run's group kept, and nothing named", uaa.state(), s.run.LeftBehind())
	}
}

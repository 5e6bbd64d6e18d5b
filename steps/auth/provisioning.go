package auth

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// The provisioning steps speak UAA's administration API (SCIM users and groups, client registrations): the
// profile "provisioning" verifies that API itself, where a target offers it.

// provisioningSteps verify the administration API; the identities they create are the scenario's.
type provisioningSteps struct {
	*core.Scenario
	ids *identitySteps
}

func (pv *provisioningSteps) register(sc *godog.ScenarioContext) {
	sc.Step(`^an admin token from the client credentials grant$`, pv.obtainAdminToken)
	sc.Step(`^the administrator creates the user "([^"]+)" with the password "([^"]+)"$`, pv.createUser)
	sc.Step(`^the administrator creates the user "([^"]+)" named "([^"]+)" "([^"]+)" with the e-mail address "([^"]+)" and the password "([^"]+)"$`, pv.createNamedUser)
	sc.Step(`^the created user is named "([^"]+)" "([^"]+)" with the e-mail address "([^"]+)"$`, pv.createdUserIs)
	sc.Step(`^the answer has a user id$`, pv.answerHasUserID)
	sc.Step(`^the user "([^"]+)" exists$`, pv.userExists)
	sc.Step(`^the administrator creates the group "([^"]+)" described as "([^"]+)"$`, pv.ids.createGroup)
	sc.Step(`^the administrator looks up the group "([^"]+)"$`, pv.ids.lookUpGroup)
	sc.Step(`^the lookup finds exactly one group named "([^"]+)"$`, pv.lookupFindsOne)
	sc.Step(`^the administrator adds "([^"]+)" to the group "([^"]+)"$`, pv.addMember)
	sc.Step(`^the administrator registers the client "([^"]+)" with scope "([^"]*)", grants "([^"]*)" and authorities "([^"]*)"$`, pv.registerClientStep)
	sc.Step(`^the administrator reads the client "([^"]+)"$`, pv.readClient)
	sc.Step(`^a user is created without a token$`, func() error {
		return pv.ids.sendAPI(core.Request{Method: http.MethodPost, URL: "/Users", JSON: userRecord("tck-nobody-"+core.RandomID(), "x")})
	})
	sc.Step(`^a client "([^"]+)" that has only the client credentials grant and no authorities$`, func(id string) error {
		return pv.ids.ensureClient(clientSpec{Client: target.Client{ClientID: id}, grants: "client_credentials"})
	})
	sc.Step(`^a client "([^"]+)" that has only the client credentials grant and the authorities "([^"]+)"$`, func(id, authorities string) error {
		return pv.ids.ensureClient(clientSpec{Client: target.Client{ClientID: id}, grants: "client_credentials", authorities: authorities})
	})
	sc.Step(`^"([^"]+)" creates a user with its own client credentials token$`, pv.createUserAs)
	sc.Step(`^"([^"]+)" registers a client with its own client credentials token$`, pv.registerClientAs)
}

// provisioning is the administration API of the target, for the steps that verify it.
func (ids *identitySteps) provisioning() (*adminAPI, error) {
	if _, err := ids.srv.authServer(); err != nil {
		return nil, err
	}
	if ids.srv.adminAPI == nil {
		return nil, core.Blockedf("the target declares no provisioning API")
	}
	return ids.srv.adminAPI, nil
}

// sendAPI sends a request to the administration API: its url is a path there. What a POST creates there (a
// user, a group, a client) is the scenario's, removed when it ends (provisioning_removal.go).
func (ids *identitySteps) sendAPI(r core.Request) error {
	p, err := ids.provisioning()
	if err != nil {
		return err
	}
	path := r.URL
	r.URL = p.URL + r.URL
	if err := ids.API(r); err != nil {
		return err
	}
	if r.Method == http.MethodPost {
		ids.registerMade(p, path, r.JSON)
	}
	return nil
}

// asAdmin sends a request to the administration API with the admin token.
func (ids *identitySteps) asAdmin(method, path string, body any) error {
	return ids.sendAPI(core.Request{Method: method, URL: path, JSON: body, Bearer: ids.adminToken})
}

func (pv *provisioningSteps) obtainAdminToken() error {
	p, err := pv.ids.provisioning()
	if err != nil {
		return err
	}
	pv.ids.adminToken, err = pv.ids.srv.clientCredentialsToken(pv.Scenario, p.ClientID, p.ClientSecret)
	return err
}

// userRecord is a SCIM user; e-mail addresses are <name>@test.org, as the features expect.
func userRecord(name, password string) map[string]any {
	return map[string]any{
		"userName": name, "password": password,
		"name":   map[string]string{"givenName": "Tck", "familyName": name},
		"emails": []map[string]any{{"value": name + "@test.org", "primary": true}},
	}
}

func (pv *provisioningSteps) createUser(name, password string) error {
	name, password, err := pv.Expand2(name, password)
	if err != nil {
		return err
	}
	return pv.ids.asAdmin(http.MethodPost, "/Users", userRecord(name, password))
}

// createNamedUser creates a user with every field of spec 2.1 given by the step.
func (pv *provisioningSteps) createNamedUser(name, given, family, email, password string) error {
	vals, err := pv.ExpandAll(name, given, family, email, password)
	if err != nil {
		return err
	}
	rec := userRecord(vals[0], vals[4])
	rec["name"] = map[string]string{"givenName": vals[1], "familyName": vals[2]}
	rec["emails"] = []map[string]any{{"value": vals[3], "primary": true}}
	return pv.ids.asAdmin(http.MethodPost, "/Users", rec)
}

// createdUserIs checks the SCIM user of the answer: name.givenName, name.familyName and one of emails[].value.
func (pv *provisioningSteps) createdUserIs(given, family, email string) error {
	vals, err := pv.ExpandAll(given, family, email)
	if err != nil {
		return err
	}
	obj, err := pv.JSONObject()
	if err != nil {
		return err
	}
	name, _ := obj["name"].(map[string]any)
	if name["givenName"] != vals[0] || name["familyName"] != vals[1] {
		return pv.Failf("the user's name is %s, want givenName %q and familyName %q", core.MustJSON(obj["name"]), vals[0], vals[1])
	}
	emails, _ := obj["emails"].([]any)
	for _, e := range emails {
		if m, _ := e.(map[string]any); m["value"] == vals[2] {
			return nil
		}
	}
	return pv.Failf("the user's emails are %s, want one with the value %q", core.MustJSON(obj["emails"]), vals[2])
}

func (pv *provisioningSteps) answerHasUserID() error {
	obj, err := pv.JSONObject()
	if err != nil {
		return err
	}
	id, _ := obj["id"].(string)
	if id == "" {
		return pv.Failf("the created user has no id")
	}
	pv.ids.remember(target.User{Username: fmt.Sprint(obj["userName"]), ID: id})
	return nil
}

// userExists creates a user with the scenario's password.
func (pv *provisioningSteps) userExists(name string) error {
	if err := pv.createUser(name, "{password}"); err != nil {
		return err
	}
	if pv.Last.Status != http.StatusCreated {
		return pv.Failf("creating the user answered %d, want 201", pv.Last.Status)
	}
	return pv.answerHasUserID()
}

func (ids *identitySteps) createGroup(name, description string) error {
	name, description, err := ids.Expand2(name, description)
	if err != nil {
		return err
	}
	return ids.asAdmin(http.MethodPost, "/Groups", map[string]string{"displayName": name, "description": description})
}

func (ids *identitySteps) lookUpGroup(name string) error {
	name, err := ids.Expand(name)
	if err != nil {
		return err
	}
	q := url.Values{"filter": {fmt.Sprintf("displayName eq %q", name)}}
	return ids.asAdmin(http.MethodGet, "/Groups?"+q.Encode(), nil)
}

func (pv *provisioningSteps) lookupFindsOne(name string) error {
	name, err := pv.Expand(name)
	if err != nil {
		return err
	}
	_, err = pv.ids.groupID(name, false)
	return err
}

// groupID looks a group up by name, and creates it when asked to and absent: then it is the run's, not the
// scenario's (createSharedGroup), and one that another caller created meanwhile is looked up again.
func (ids *identitySteps) groupID(name string, create bool) (string, error) {
	if err := ids.lookUpGroup(name); err != nil {
		return "", err
	}
	obj, err := ids.JSONObject()
	if err != nil {
		return "", err
	}
	resources, err := ids.scimResources(obj)
	if err != nil {
		return "", err
	}
	if len(resources) == 0 && create {
		if err := ids.createSharedGroup(name, "Read fortunes"); err != nil {
			return "", err
		}
		return ids.groupID(name, false)
	}
	if len(resources) != 1 {
		return "", ids.Failf("the lookup of group %s found %d groups, want 1", name, len(resources))
	}
	g, _ := resources[0].(map[string]any)
	id, _ := g["id"].(string)
	if g["displayName"] != name || id == "" {
		return "", ids.Failf("the group found is %v, want %s with an id", g, name)
	}
	return id, nil
}

// scimResources is the list of a SCIM list answer: "resources" as UAA writes it, or "Resources" as SCIM 2.0 does
// (RFC 7644 3.4.2). An answer without such a list is an error, never an empty list.
func (ids *identitySteps) scimResources(obj map[string]any) ([]any, error) {
	for _, key := range []string{"resources", "Resources"} {
		if v, ok := obj[key]; ok {
			list, ok := v.([]any)
			if !ok && v != nil {
				return nil, ids.Failf("%s is %s, want a list", key, short(core.MustJSON(v), 100))
			}
			return list, nil
		}
	}
	return nil, ids.Failf("the list answer has no resources (nor Resources) list")
}

func (pv *provisioningSteps) addMember(user, group string) error {
	user, group, err := pv.Expand2(user, group)
	if err != nil {
		return err
	}
	u, ok := pv.ids.users[user]
	if !ok {
		return fmt.Errorf("the user %s was not created in this scenario", user)
	}
	groupID, err := pv.ids.groupID(group, true)
	if err != nil {
		return err
	}
	member := map[string]string{"value": u.ID, "type": "USER", "origin": "uaa"}
	return pv.ids.asAdmin(http.MethodPost, "/Groups/"+url.PathEscape(groupID)+"/members", member)
}

func (pv *provisioningSteps) registerClientStep(id, scope, grants, authorities string) error {
	id, err := pv.Expand(id)
	if err != nil {
		return err
	}
	reg := map[string]any{
		"client_id": id, "client_secret": "secret-" + id, "name": id,
		"scope": core.Words(scope), "authorized_grant_types": core.Words(grants), "authorities": core.Words(authorities),
		"redirect_uri": []string{"https://" + id + ".client.invalid/callback"}, "autoapprove": false,
	}
	return pv.ids.asAdmin(http.MethodPost, "/oauth/clients", reg)
}

func (pv *provisioningSteps) readClient(id string) error {
	id, err := pv.Expand(id)
	if err != nil {
		return err
	}
	return pv.ids.asAdmin(http.MethodGet, "/oauth/clients/"+url.PathEscape(id), nil)
}

func (pv *provisioningSteps) createUserAs(client string) error {
	return pv.sendAsClient(client, "/Users", userRecord("tck-denied-"+core.RandomID(), "x"))
}

// registerClientAs registers a client with the client credentials token of another one.
func (pv *provisioningSteps) registerClientAs(client string) error {
	id := "tck-denied-" + core.RandomID()
	return pv.sendAsClient(client, "/oauth/clients", map[string]any{"client_id": id, "client_secret": "x",
		"scope": []string{"openid"}, "authorized_grant_types": []string{"client_credentials"}})
}

// sendAsClient posts a record to the provisioning API with a client credentials token of client.
func (pv *provisioningSteps) sendAsClient(client, path string, record map[string]any) error {
	client, err := pv.Expand(client)
	if err != nil {
		return err
	}
	token, err := pv.ids.srv.clientCredentialsToken(pv.Scenario, client, pv.ids.clients[client].ClientSecret)
	if err != nil {
		return err
	}
	return pv.ids.sendAPI(core.Request{Method: http.MethodPost, URL: path, JSON: record, Bearer: token})
}

// uaaProvisioner speaks UAA's API: SCIM users and groups, and /oauth/clients, with the admin client's token.
// What it creates is the scenario's, removed when the scenario ends.
type uaaProvisioner struct {
	*adminAPI
}

func (p *uaaProvisioner) token(ids *identitySteps) (string, error) {
	if ids.adminToken == "" {
		tok, err := ids.srv.clientCredentialsToken(ids.Scenario, p.ClientID, p.ClientSecret)
		if err != nil {
			return "", err
		}
		ids.adminToken = tok
	}
	return ids.adminToken, nil
}

func (p *uaaProvisioner) createUser(ids *identitySteps, u target.User, groups []string) (string, error) {
	tok, err := p.token(ids)
	if err != nil {
		return "", err
	}
	rec := userRecord(u.Username, u.Password)
	if err := ids.API(core.Request{Method: http.MethodPost, URL: p.URL + "/Users", JSON: rec, Bearer: tok}); err != nil {
		return "", err
	}
	ids.registerMade(p.adminAPI, "/Users", rec)
	if ids.Last.Status != http.StatusCreated {
		return "", ids.Failf("creating the user %s answered %d, want 201", u.Username, ids.Last.Status)
	}
	obj, err := ids.JSONObject()
	if err != nil {
		return "", err
	}
	id, _ := obj["id"].(string)
	if id == "" {
		return "", ids.Failf("the created user has no id")
	}
	for _, g := range groups {
		if err := p.addMember(ids, id, g); err != nil {
			return "", err
		}
	}
	return id, nil
}

func (p *uaaProvisioner) addMember(ids *identitySteps, userID, group string) error {
	groupID, err := ids.groupID(group, true)
	if err != nil {
		return err
	}
	member := map[string]string{"value": userID, "type": "USER", "origin": "uaa"}
	if err := ids.API(core.Request{Method: http.MethodPost, URL: p.URL + "/Groups/" + url.PathEscape(groupID) + "/members", JSON: member, Bearer: ids.adminToken}); err != nil {
		return err
	}
	if ids.Last.Status != http.StatusCreated && ids.Last.Status != http.StatusConflict {
		return ids.Failf("adding %s to %s answered %d", userID, group, ids.Last.Status)
	}
	return nil
}

func (p *uaaProvisioner) registerClient(ids *identitySteps, c clientSpec) error {
	tok, err := p.token(ids)
	if err != nil {
		return err
	}
	reg := map[string]any{
		"client_id": c.ClientID, "client_secret": c.ClientSecret, "name": c.ClientID,
		"scope": core.Words(c.scope), "authorized_grant_types": core.Words(c.grants), "authorities": core.Words(c.authorities),
		"redirect_uri": []string{c.RedirectURI}, "autoapprove": false,
	}
	if c.validity > 0 {
		reg["access_token_validity"] = c.validity
		reg["refresh_token_validity"] = c.validity
	}
	if c.refreshValidity > 0 {
		reg["refresh_token_validity"] = c.refreshValidity
	}
	if err := ids.API(core.Request{Method: http.MethodPost, URL: p.URL + "/oauth/clients", JSON: reg, Bearer: tok}); err != nil {
		return err
	}
	ids.registerMade(p.adminAPI, "/oauth/clients", reg)
	if ids.Last.Status != http.StatusCreated {
		return ids.Failf("registering the client %s answered %d, want 201", c.ClientID, ids.Last.Status)
	}
	return nil
}

// newProvisioner returns the provisioner of an administration API.
func newProvisioner(p *adminAPI) (provisioner, error) {
	switch p.API {
	case "", "uaa":
		return &uaaProvisioner{adminAPI: p}, nil
	}
	return nil, fmt.Errorf("no provisioner for the administration API %q", p.API)
}

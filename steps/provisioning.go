package steps

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/cucumber/godog"
)

// The provisioning steps speak UAA's API (SCIM users and groups, client registrations), so that they provision
// UAA and the reference alike.

func (w *world) registerProvisioningSteps(sc *godog.ScenarioContext) {
	sc.Step(`^an admin token from the client credentials grant$`, w.adminToken)
	sc.Step(`^the administrator creates the user "([^"]+)" with the password "([^"]+)"$`, w.createUser)
	sc.Step(`^the answer has a user id$`, w.answerHasUserID)
	sc.Step(`^the user "([^"]+)" exists$`, w.userExists)
	sc.Step(`^the user "([^"]+)" exists in the group "([^"]+)"$`, w.userExistsInGroup)
	sc.Step(`^the administrator creates the group "([^"]+)" described as "([^"]+)"$`, w.createGroup)
	sc.Step(`^the administrator looks up the group "([^"]+)"$`, w.lookUpGroup)
	sc.Step(`^the lookup finds exactly one group named "([^"]+)"$`, w.lookupFindsOne)
	sc.Step(`^the administrator adds "([^"]+)" to the group "([^"]+)"$`, w.addMember)
	sc.Step(`^the administrator registers the client "([^"]+)" with scope "([^"]*)", grants "([^"]*)" and authorities "([^"]*)"$`, w.registerClientStep)
	sc.Step(`^the administrator reads the client "([^"]+)"$`, w.readClient)
	sc.Step(`^the list field "([^"]+)" holds "([^"]*)"$`, w.listFieldHolds)
	sc.Step(`^the answer has no field "([^"]+)"$`, w.answerHasNoField)
	sc.Step(`^a user is created without a token$`, func() error {
		return w.postJSON("/Users", userRecord("tck-nobody-"+randomID(), "x"), nil)
	})
	sc.Step(`^a client "([^"]+)" that has only the client credentials grant and no authorities$`, func(id string) error {
		return w.ensureClient(id, "", "client_credentials", "", 0)
	})
	sc.Step(`^"([^"]+)" creates a user with its own client credentials token$`, w.createUserAs)
	sc.Step(`^the client "([^"]+)" may request "([^"]+)" with the grants "([^"]+)"$`, func(id, scope, grants string) error {
		return w.ensureClient(id, scope, grants, "", 0)
	})
	sc.Step(`^the client "([^"]+)" may request "([^"]+)" with the grants "([^"]+)" and tokens valid for (\d+) seconds?$`,
		func(id, scope, grants string, validity int) error {
			return w.ensureClient(id, scope, grants, "", validity)
		})
	sc.Step(`^a resource client "([^"]+)" with the authorities "([^"]+)"$`, func(id, authorities string) error {
		return w.ensureClient(id, "", "client_credentials", authorities, 0)
	})
}

func (w *world) adminToken() error {
	as, err := w.authServer()
	if err != nil {
		return err
	}
	w.auth.adminToken, err = w.clientCredentialsToken(as.AdminClient, as.AdminSecret)
	return err
}

func (w *world) admin() func(*http.Request) { return bearer(w.auth.adminToken) }

// userRecord is a SCIM user; e-mail addresses are <name>@test.org, as the features expect.
func userRecord(name, password string) map[string]any {
	return map[string]any{
		"userName": name, "password": password,
		"name":   map[string]string{"givenName": "Tck", "familyName": name},
		"emails": []map[string]any{{"value": name + "@test.org", "primary": true}},
	}
}

func (w *world) createUser(name, password string) error {
	name, password, err := w.expand2(name, password)
	if err != nil {
		return err
	}
	return w.postJSON("/Users", userRecord(name, password), w.admin())
}

func (w *world) answerHasUserID() error {
	obj, err := w.jsonObject()
	if err != nil {
		return err
	}
	id, _ := obj["id"].(string)
	if id == "" {
		return w.failf("the created user has no id")
	}
	w.rememberUser(fmt.Sprint(obj["userName"]), id)
	return nil
}

// rememberUser keeps a user's id; the scenario's own user is also {user_id}.
func (w *world) rememberUser(name, id string) {
	w.auth.userIDs[name] = id
	if name == w.vars["user"] {
		w.vars["user_id"] = id
	}
}

// userExists creates a user with the scenario's password.
func (w *world) userExists(name string) error {
	if err := w.createUser(name, "{password}"); err != nil {
		return err
	}
	if w.last.status != http.StatusCreated {
		return w.failf("creating the user answered %d, want 201", w.last.status)
	}
	return w.answerHasUserID()
}

func (w *world) userExistsInGroup(name, group string) error {
	if err := w.userExists(name); err != nil {
		return err
	}
	return w.addMember(name, group)
}

func (w *world) createGroup(name, description string) error {
	name, description, err := w.expand2(name, description)
	if err != nil {
		return err
	}
	return w.postJSON("/Groups", map[string]string{"displayName": name, "description": description}, w.admin())
}

func (w *world) lookUpGroup(name string) error {
	name, err := w.expand(name)
	if err != nil {
		return err
	}
	q := url.Values{"filter": {fmt.Sprintf("displayName eq %q", name)}}
	return w.authRequest(http.MethodGet, "/Groups?"+q.Encode(), nil, "", w.admin())
}

func (w *world) lookupFindsOne(name string) error {
	name, err := w.expand(name)
	if err != nil {
		return err
	}
	_, err = w.groupID(name, false)
	return err
}

// groupID looks a group up by name, and creates it when asked to and absent.
func (w *world) groupID(name string, create bool) (string, error) {
	if err := w.lookUpGroup(name); err != nil {
		return "", err
	}
	obj, err := w.jsonObject()
	if err != nil {
		return "", err
	}
	resources, _ := obj["resources"].([]any)
	if len(resources) == 0 && create {
		if err := w.createGroup(name, "Read fortunes"); err != nil {
			return "", err
		}
		if w.last.status != http.StatusCreated {
			return "", w.failf("creating the group %s answered %d", name, w.last.status)
		}
		return w.groupID(name, false)
	}
	if len(resources) != 1 {
		return "", w.failf("the lookup of group %s found %d groups, want 1", name, len(resources))
	}
	g, _ := resources[0].(map[string]any)
	id, _ := g["id"].(string)
	if g["displayName"] != name || id == "" {
		return "", w.failf("the group found is %v, want %s with an id", g, name)
	}
	return id, nil
}

func (w *world) addMember(user, group string) error {
	user, group, err := w.expand2(user, group)
	if err != nil {
		return err
	}
	userID, ok := w.auth.userIDs[user]
	if !ok {
		return fmt.Errorf("the user %s was not created in this scenario", user)
	}
	groupID, err := w.groupID(group, true)
	if err != nil {
		return err
	}
	member := map[string]string{"value": userID, "type": "USER", "origin": "uaa"}
	if err := w.postJSON("/Groups/"+url.PathEscape(groupID)+"/members", member, w.admin()); err != nil {
		return err
	}
	if w.last.status != http.StatusCreated && w.last.status != http.StatusConflict {
		return w.failf("adding %s to %s answered %d", user, group, w.last.status)
	}
	return nil
}

// redirectURI is where a scenario's client is sent back to; nothing listens there, and nothing needs to.
func redirectURI(client string) string { return "https://" + client + ".client.invalid/callback" }

func (w *world) registerClient(id, scope, grants, authorities string, validity int) error {
	id, err := w.expand(id)
	if err != nil {
		return err
	}
	secret := "secret-" + id
	reg := map[string]any{
		"client_id": id, "client_secret": secret, "name": id,
		"scope": words(scope), "authorized_grant_types": words(grants), "authorities": words(authorities),
		"redirect_uri": []string{redirectURI(id)}, "autoapprove": false,
	}
	if validity > 0 {
		reg["access_token_validity"] = validity
		reg["refresh_token_validity"] = validity
	}
	w.auth.secrets[id] = secret
	return w.postJSON("/oauth/clients", reg, w.admin())
}

func (w *world) registerClientStep(id, scope, grants, authorities string) error {
	return w.registerClient(id, scope, grants, authorities, 0)
}

func (w *world) ensureClient(id, scope, grants, authorities string, validity int) error {
	if err := w.registerClient(id, scope, grants, authorities, validity); err != nil {
		return err
	}
	if w.last.status != http.StatusCreated {
		return w.failf("registering the client answered %d, want 201", w.last.status)
	}
	return nil
}

func (w *world) readClient(id string) error {
	id, err := w.expand(id)
	if err != nil {
		return err
	}
	return w.authRequest(http.MethodGet, "/oauth/clients/"+url.PathEscape(id), nil, "", w.admin())
}

func (w *world) listFieldHolds(name, want string) error {
	want, err := w.expand(want)
	if err != nil {
		return err
	}
	got, err := w.field(name)
	if err != nil {
		return err
	}
	list, ok := got.([]any)
	if !ok || !sameSet(list, words(want)) {
		return w.failf("field %q is %s, want the list %q in any order", name, mustJSON(got), want)
	}
	return nil
}

func (w *world) answerHasNoField(name string) error {
	obj, err := w.jsonObject()
	if err != nil {
		return err
	}
	if v, ok := obj[name]; ok {
		return w.failf("the answer has the field %q (%s)", name, mustJSON(v))
	}
	return nil
}

func (w *world) createUserAs(client string) error {
	client, err := w.expand(client)
	if err != nil {
		return err
	}
	token, err := w.clientCredentialsToken(client, w.auth.secrets[client])
	if err != nil {
		return err
	}
	return w.postJSON("/Users", userRecord("tck-denied-"+randomID(), "x"), bearer(token))
}

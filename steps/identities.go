package steps

import (
	"fmt"
	"net/url"
	"slices"

	"github.com/cucumber/godog"
)

// A scenario needs a user who holds fortunes.read ({user}, {password}), perhaps one who does not ({outsider},
// {outsider_password}), a web client ({client}), a resource client ({resource_client}) and a client with
// short-lived tokens ({short_client}). With an administration API they are made fresh for every scenario, so
// scenarios never share a remembered consent or a counter; without one they are the target's fixtures.

// provisioner creates users and clients through an administration API. UAA's is the one implemented; another
// (Keycloak's admin REST API, say) is another implementation of this interface. What an implementation creates
// it registers with the scenario (scenario.created, cleanup.go) with the way to remove it again.
type provisioner interface {
	// createUser makes a user with an e-mail address of <name>@test.org, in the groups asked for, and returns
	// its id.
	createUser(ids *identitySteps, u userSpec) (string, error)
	// registerClient registers a client; validity > 0 sets the lifetime of its tokens in seconds.
	registerClient(ids *identitySteps, c clientSpec) error
}

// userSpec is a user to create.
type userSpec struct {
	name, password string
	groups         []string
}

// identitySteps are the scenario's users and clients: what it knows of them (secrets, redirect URIs, ids) and
// the admin token that made them.
type identitySteps struct {
	*scenario
	adminToken string
	secrets    map[string]string // client id -> secret
	redirects  map[string]string // client id -> registered redirect URI
	methods    map[string]string // client id -> its authentication method, when the target names one
	userIDs    map[string]string // user name -> id
}

func newIdentitySteps(s *scenario) *identitySteps {
	ids := &identitySteps{scenario: s, secrets: map[string]string{}, redirects: map[string]string{},
		methods: map[string]string{}, userIDs: map[string]string{}}
	ids.bind(s.id())
	return ids
}

// secretOf is the secret of one of the scenario's clients.
func (ids *identitySteps) secretOf(client string) *credentials {
	return &credentials{client, ids.secrets[client]}
}

// authenticate makes a request to an endpoint carry a client's credentials where the scenario does not say
// how: the method the target names for the client, else one the discovery document lists for the endpoint.
// Without either, the token endpoint gets form fields (the web client's scheme, spec 5.2) and the others
// HTTP Basic (the default of RFC 8414 and the method servers must support, RFC 6749 2.3.1). Form fields
// are added to form; HTTP Basic credentials are returned.
func (ids *identitySteps) authenticate(kind endpointKind, client string, form url.Values) *credentials {
	method := ids.methods[client]
	if method == "" {
		listed := ids.suite.discovery.authMethodsAt(kind)
		switch {
		case kind == tokenEndpoint && (len(listed) == 0 || slices.Contains(listed, clientSecretPost)):
			method = clientSecretPost
		case len(listed) == 0 || slices.Contains(listed, clientSecretBasic):
			method = clientSecretBasic
		case slices.Contains(listed, clientSecretPost):
			method = clientSecretPost
		}
	}
	if method == clientSecretPost {
		form.Set("client_id", client)
		form.Set("client_secret", ids.secrets[client])
		return nil
	}
	return ids.secretOf(client)
}

// clientSpec is a client registration.
type clientSpec struct {
	id, secret, scope, grants, authorities, redirect string
	validity                                         int
}

// bind fills the placeholders of the scenario's identities: fresh names with provisioning, else the
// fixtures'. Fixtures the target does not give leave their placeholders unset; the scenarios that need them
// are not supported (the harness knows before the run) and an expansion of them fails loudly.
func (ids *identitySteps) bind(id string) {
	as := ids.suite.env.AuthServer
	if as == nil {
		return
	}
	if ids.suite.provisioner != nil {
		client := "tck-client-" + id
		for k, v := range map[string]string{"user": "tck-user-" + id, "password": "pw-" + randomID(),
			"outsider": "tck-user-" + id + "-outsider", "outsider_password": "pw-" + randomID(),
			"client": client, "resource_client": client + "-resource", "short_client": client + "-short",
			"other_client": client + "-other",
			"user_email":   "tck-user-" + id + "@test.org"} {
			ids.vars[k] = v
		}
		return
	}
	fx := as.Fixtures
	if fx == nil {
		return
	}
	bindUser := func(u *User, name, password string) {
		if u != nil {
			ids.vars[name], ids.vars[password] = u.Username, u.Password
			ids.userIDs[u.Username] = u.ID
			if u.Email != "" {
				ids.vars[name+"_email"] = u.Email
			}
		}
	}
	bindUser(fx.Reader, "user", "password")
	bindUser(fx.Outsider, "outsider", "outsider_password")
	if fx.Reader != nil && fx.Reader.ID != "" {
		ids.vars["user_id"] = fx.Reader.ID
	}
	// One client may be both the web and the resource client: what one fixture leaves empty, the other gives.
	for _, b := range []struct {
		name string
		c    *Client
	}{{"client", fx.Web}, {"resource_client", fx.Resource}, {"short_client", fx.ShortLived}} {
		if c := b.c; c != nil {
			ids.vars[b.name] = c.ID
			ids.secrets[c.ID] = c.Secret
			if c.RedirectURI != "" {
				ids.redirects[c.ID] = c.RedirectURI
			}
			if c.AuthMethod != "" {
				ids.methods[c.ID] = c.AuthMethod
			}
		}
	}
}

func (ids *identitySteps) register(sc *godog.ScenarioContext) {
	sc.Step(`^a user "([^"]+)" who holds fortunes\.read$`, func(name string) error { return ids.ensureUser(name, "fortunes.read") })
	sc.Step(`^a user "([^"]+)" who does not hold fortunes\.read$`, func(name string) error { return ids.ensureUser(name) })
	sc.Step(`^a web client "([^"]+)" that may request "([^"]+)" with the grants "([^"]+)"$`, func(id, scope, grants string) error {
		return ids.ensureClient(clientSpec{id: id, scope: scope, grants: grants})
	})
	sc.Step(`^a web client "([^"]+)" whose access tokens expire after (\d) seconds?$`, func(id string, validity int) error {
		return ids.ensureClient(clientSpec{id: id, scope: "openid fortunes.read", grants: "authorization_code", validity: validity})
	})
	sc.Step(`^a resource client "([^"]+)" with the authorities "([^"]+)"$`, func(id, authorities string) error {
		return ids.ensureClient(clientSpec{id: id, grants: "client_credentials", authorities: authorities})
	})
}

// ensureUser makes the user with the scenario's password through the administration API, or, with fixtures,
// checks that the name is the fixture's (the fixture was registered with what the step says).
func (ids *identitySteps) ensureUser(name string, groups ...string) error {
	name, err := ids.expand(name)
	if err != nil {
		return err
	}
	if ids.suite.provisioner == nil {
		if name != ids.vars["user"] && name != ids.vars["outsider"] {
			return fmt.Errorf("%s is none of the target's fixture users", name)
		}
		return nil
	}
	password := ids.vars["password"]
	if name == ids.vars["outsider"] {
		password = ids.vars["outsider_password"]
	}
	id, err := ids.suite.provisioner.createUser(ids, userSpec{name: name, password: password, groups: groups})
	if err != nil {
		return err
	}
	ids.rememberUser(name, id)
	return nil
}

// ensureClient registers the client through the administration API; with fixtures it is registered already.
func (ids *identitySteps) ensureClient(c clientSpec) error {
	id, err := ids.expand(c.id)
	if err != nil {
		return err
	}
	if ids.suite.provisioner == nil {
		return nil
	}
	c.id, c.secret, c.redirect = id, "secret-"+id, "https://"+id+".client.invalid/callback"
	if err := ids.suite.provisioner.registerClient(ids, c); err != nil {
		return err
	}
	ids.secrets[id], ids.redirects[id] = c.secret, c.redirect
	return nil
}

// rememberUser keeps a user's id; the scenario's own user is also {user_id}.
func (ids *identitySteps) rememberUser(name, id string) {
	ids.userIDs[name] = id
	if name == ids.vars["user"] {
		ids.vars["user_id"] = id
	}
}

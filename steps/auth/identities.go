package auth

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
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
	createUser(ids *identitySteps, u target.User, groups []string) (string, error)
	// registerClient registers a client; validity > 0 sets the lifetime of its tokens in seconds.
	registerClient(ids *identitySteps, c clientSpec) error
}

// identitySteps are the scenario's users and clients, the target's fixtures or the ones it provisioned (what
// it knows of them: secrets, redirect URIs, ids), and the admin token that made them.
type identitySteps struct {
	*core.Scenario
	srv        *Server
	adminToken string
	clients    map[string]target.Client // by client id
	users      map[string]target.User   // by user name
	// worked is, by client id, the authentication method a token request of the scenario succeeded with: a
	// server that holds a client to its registered method (Hydra) refuses the others at every endpoint.
	worked map[string]string
}

func newIdentitySteps(su *Server, s *core.Scenario) *identitySteps {
	ids := &identitySteps{Scenario: s, srv: su, clients: map[string]target.Client{}, users: map[string]target.User{},
		worked: map[string]string{}}
	ids.bind(s.ID())
	return ids
}

// secretOf is the secret of one of the scenario's clients.
func (ids *identitySteps) secretOf(client string) *core.Credentials {
	return &core.Credentials{Name: client, Password: ids.clients[client].ClientSecret}
}

// authenticate makes a request to an endpoint carry a client's credentials where the scenario does not say
// how (methodFor). Form fields are added to form; HTTP Basic credentials are returned.
func (ids *identitySteps) authenticate(kind endpointKind, client string, form url.Values) *core.Credentials {
	if method, _ := ids.methodFor(kind, client); method == target.ClientSecretPost {
		form.Set("client_id", client)
		form.Set("client_secret", ids.clients[client].ClientSecret)
		return nil
	}
	return ids.secretOf(client)
}

// methodSource says where the method a client authenticates with came from.
type methodSource string

// The sources of a client's method, in the order methodFor tries them.
const (
	fromTarget    methodSource = "the method the target file names for the client"
	fromWorked    methodSource = "the method the token endpoint accepted from the client"
	fromDiscovery methodSource = "a method the discovery document lists for the endpoint"
	fromDefault   methodSource = "the suite's default: form fields at the token endpoint (spec 5.2), HTTP Basic elsewhere (RFC 6749 2.3.1)"
)

// methodFor is how a client authenticates at an endpoint, and where that came from: the method the target
// names for the client; else the one a token request of the scenario succeeded with, unless the discovery
// document lists others for the endpoint (RFC 7009 2.1 and RFC 7662 2.1: a client authenticates there as at
// the token endpoint); else one the document lists. Without any of these, the token endpoint gets form fields
// (the web client's scheme, spec 5.2) and the others HTTP Basic (the default of RFC 8414 and the method
// servers must support, RFC 6749 2.3.1).
func (ids *identitySteps) methodFor(kind endpointKind, client string) (string, methodSource) {
	if m := ids.clients[client].AuthMethod; m != "" {
		return m, fromTarget
	}
	listed := ids.srv.discovery.authMethodsAt(kind)
	if m := ids.worked[client]; m != "" && (len(listed) == 0 || slices.Contains(listed, m)) {
		return m, fromWorked
	}
	switch {
	case kind == tokenEndpoint && len(listed) == 0:
		return target.ClientSecretPost, fromDefault
	case len(listed) == 0:
		return target.ClientSecretBasic, fromDefault
	case kind == tokenEndpoint && slices.Contains(listed, target.ClientSecretPost):
		return target.ClientSecretPost, fromDiscovery
	case slices.Contains(listed, target.ClientSecretBasic):
		return target.ClientSecretBasic, fromDiscovery
	case slices.Contains(listed, target.ClientSecretPost):
		return target.ClientSecretPost, fromDiscovery
	}
	return target.ClientSecretBasic, fromDefault
}

// noteWorked remembers how a client authenticated in a token request the server accepted.
func (ids *identitySteps) noteWorked(client string, form url.Values, basic *core.Credentials) {
	switch {
	case basic != nil && basic.Name == client:
		ids.worked[client] = target.ClientSecretBasic
	case form.Get("client_id") == client && form.Get("client_secret") != "":
		ids.worked[client] = target.ClientSecretPost
	}
}

// methodName says a method in words, for messages.
func methodName(m string) string {
	if m == target.ClientSecretPost {
		return "form fields (client_secret_post)"
	}
	return "HTTP Basic (client_secret_basic)"
}

// clientSpec is a client registration: the client, and what it may do.
type clientSpec struct {
	target.Client
	scope, grants, authorities string
	validity                   int
	// refreshValidity > 0 sets the lifetime of its refresh tokens; else they live as long as validity says.
	refreshValidity int
}

// bind fills the placeholders of the scenario's identities: fresh names with provisioning, else the
// fixtures'. Fixtures the target does not give leave their placeholders unset; the scenarios that need them
// are not supported (the harness knows before the run) and an expansion of them fails loudly.
func (ids *identitySteps) bind(id string) {
	as := ids.srv.services().AuthServer
	if as == nil {
		return
	}
	if ids.srv.provisioner != nil {
		client := "tck-client-" + id
		for k, v := range map[string]string{"user": "tck-user-" + id, "password": "pw-" + core.RandomID(),
			"outsider": "tck-user-" + id + "-outsider", "outsider_password": "pw-" + core.RandomID(),
			"client": client, "resource_client": client + "-resource", "short_client": client + "-short",
			"other_client": client + "-other",
			"user_email":   "tck-user-" + id + "@test.org"} {
			ids.Vars[k] = v
		}
		return
	}
	fx := as.Fixtures
	if fx == nil {
		return
	}
	bindUser := func(u *target.User, name, password string) {
		if u != nil {
			ids.Vars[name], ids.Vars[password] = u.Username, u.Password
			ids.users[u.Username] = *u
			if u.Email != "" {
				ids.Vars[name+"_email"] = u.Email
			}
		}
	}
	bindUser(fx.Users.Reader, "user", "password")
	bindUser(fx.Users.Outsider, "outsider", "outsider_password")
	if r := fx.Users.Reader; r != nil && r.ID != "" {
		ids.Vars["user_id"] = r.ID
	}
	// One client may be both the web and the resource client: what one fixture leaves empty, the other gives.
	for _, b := range []struct {
		name string
		c    *target.Client
	}{{"client", fx.Clients.Web}, {"resource_client", fx.Clients.Resource}, {"short_client", fx.Clients.ShortLived}} {
		if c := b.c; c != nil {
			ids.Vars[b.name] = c.ClientID
			known := ids.clients[c.ClientID]
			ids.clients[c.ClientID] = target.Client{ClientID: c.ClientID, ClientSecret: c.ClientSecret,
				RedirectURI: cmp.Or(c.RedirectURI, known.RedirectURI), AuthMethod: cmp.Or(c.AuthMethod, known.AuthMethod)}
		}
	}
}

func (ids *identitySteps) register(sc *godog.ScenarioContext) {
	sc.Step(`^a user "([^"]+)" who holds fortunes\.read$`, func(name string) error { return ids.ensureUser(name, "fortunes.read") })
	sc.Step(`^a user "([^"]+)" who does not hold fortunes\.read$`, func(name string) error { return ids.ensureUser(name) })
	sc.Step(`^a web client "([^"]+)" that may request "([^"]+)" with the grants "([^"]+)"$`, func(id, scope, grants string) error {
		return ids.ensureClient(clientSpec{Client: target.Client{ClientID: id}, scope: scope, grants: grants})
	})
	sc.Step(`^a web client "([^"]+)" whose access tokens expire after (\d) seconds?$`, func(id string, validity int) error {
		return ids.ensureClient(clientSpec{Client: target.Client{ClientID: id}, scope: "openid fortunes.read",
			grants: "authorization_code", validity: validity})
	})
	sc.Step(`^a web client "([^"]+)" whose access tokens expire after (\d) seconds? and whose refresh tokens live (\d+) seconds$`, func(id string, validity, refresh int) error {
		return ids.ensureClient(clientSpec{Client: target.Client{ClientID: id}, scope: "openid fortunes.read",
			grants: "authorization_code refresh_token", validity: validity, refreshValidity: refresh})
	})
	sc.Step(`^a resource client "([^"]+)" with the authorities "([^"]+)"$`, func(id, authorities string) error {
		return ids.ensureClient(clientSpec{Client: target.Client{ClientID: id}, grants: "client_credentials", authorities: authorities})
	})
}

// ensureUser makes the user with the scenario's password through the administration API, or, with fixtures,
// checks that the name is the fixture's (the fixture was registered with what the step says).
func (ids *identitySteps) ensureUser(name string, groups ...string) error {
	name, err := ids.Expand(name)
	if err != nil {
		return err
	}
	if ids.srv.provisioner == nil {
		if name != ids.Vars["user"] && name != ids.Vars["outsider"] {
			return fmt.Errorf("%s is none of the target's fixture users", name)
		}
		return nil
	}
	password := ids.Vars["password"]
	if name == ids.Vars["outsider"] {
		password = ids.Vars["outsider_password"]
	}
	u := target.User{Username: name, Password: password}
	ids.Run.Secrets.AddCredentials(u.Username, u.Password)
	if u.ID, err = ids.srv.provisioner.createUser(ids, u, groups); err != nil {
		return err
	}
	ids.remember(u)
	return nil
}

// ensureClient registers the client through the administration API; with fixtures it is registered already.
func (ids *identitySteps) ensureClient(c clientSpec) error {
	id, err := ids.Expand(c.ClientID)
	if err != nil {
		return err
	}
	if ids.srv.provisioner == nil {
		return nil
	}
	c.Client = target.Client{ClientID: id, ClientSecret: "secret-" + id, RedirectURI: "https://" + id + ".client.invalid/callback"}
	ids.Run.Secrets.AddCredentials(c.ClientID, c.ClientSecret)
	if err := ids.srv.provisioner.registerClient(ids, c); err != nil {
		return err
	}
	ids.clients[id] = c.Client
	return nil
}

// remember keeps a user the scenario made (its id above all); the scenario's own user's id is also {user_id}.
func (ids *identitySteps) remember(u target.User) {
	ids.users[u.Username] = u
	if u.Username == ids.Vars["user"] {
		ids.Vars["user_id"] = u.ID
	}
}

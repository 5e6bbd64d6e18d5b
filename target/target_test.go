package target

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/features"
)

const good = `
implementation:
  organization: Example
  project: example-config
  version: "1.0"
services:
  configServer:
    url: http://localhost:8888/
    repository:
      uri: file:///srv/config.git
      password: ${TCK_TEST_SECRET}
capabilities: [config.flat-formats]
`

func TestParseAppliesDefaultsAndExpandsEnv(t *testing.T) {
	t.Setenv("TCK_TEST_SECRET", "s3cret")
	tg, err := Parse([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	cs := tg.Services.ConfigServer
	if cs.URL != "http://localhost:8888" {
		t.Errorf("defaults not applied: %+v", cs)
	}
	if cs.Repository.Password != "s3cret" {
		t.Errorf("password = %q, want the expanded environment variable", cs.Repository.Password)
	}
	if !slices.Equal(tg.Capabilities, []features.Capability{features.CapConfigFlatFormats}) ||
		!tg.Has(features.CapConfigFlatFormats) || tg.Has(features.CapConfigErrors) {
		t.Errorf("capabilities = %v", tg.Capabilities)
	}
}

func TestLockoutAfterFailuresDefaultsToUAAs(t *testing.T) {
	for yaml, want := range map[string]int{"": DefaultLockoutAfterFailures, ", lockoutAfterFailures: 3": 3} {
		tg, err := Parse([]byte("services:\n  authServer: {url: 'http://x', admin: {clientId: a, clientSecret: b}" + yaml + "}\n"))
		if err != nil {
			t.Fatal(err)
		}
		if n := tg.Services.AuthServer.LockoutAfterFailures; n != want {
			t.Errorf("%q: lockoutAfterFailures = %d, want %d", yaml, n, want)
		}
	}
}

// TestDeclaredPeriodsImplyTheirCapabilities: a lockout period, counting window or code lifetime of at most
// MaxWalkedSeconds declares its capability; a longer one (UAA's defaults) or none does not.
func TestDeclaredPeriodsImplyTheirCapabilities(t *testing.T) {
	caps := []features.Capability{features.CapAuthLockoutPeriod, features.CapAuthLockoutWindow, features.CapAuthCodeLifetime}
	for yaml, want := range map[string]bool{
		"": false,
		", lockoutPeriodSeconds: 2, countFailuresWithinSeconds: 10, codeLifetimeSeconds: 1":      true,
		", lockoutPeriodSeconds: 300, countFailuresWithinSeconds: 3600, codeLifetimeSeconds: 11": false,
	} {
		tg, err := Parse([]byte("services:\n  authServer: {url: 'http://x', admin: {clientId: a, clientSecret: b}" + yaml + "}\n"))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range caps {
			if tg.Has(c) != want {
				t.Errorf("%q: Has(%s) = %t, want %t", yaml, c, !want, want)
			}
		}
	}
	if (&Target{}).Has(features.CapAuthCodeLifetime) {
		t.Error("a target without an authorization server has auth.code-lifetime")
	}
}

func TestParseNamesEveryMistakeWithItsField(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string
	}{
		{"empty", ``, []string{"empty"}},
		{"no service", `implementation: {project: x}`, []string{"services: declares no service"}},
		{"auth server without identities", "services:\n  authServer: {url: 'http://x'}\n", []string{"services.authServer: give fixtures", "or provisioning"}},
		{"admin without secret", "services:\n  authServer: {url: 'http://x', admin: {clientId: a}}\n", []string{"services.authServer.admin: clientId and clientSecret are required"}},
		{"issuer and url", "services:\n  authServer: {url: 'http://x', issuer: 'http://y', admin: {clientId: a, clientSecret: b}}\n", []string{"give issuer or url, not both"}},
		{"fixtures incomplete", "services:\n  authServer:\n    issuer: http://x\n    fixtures:\n      users: {reader: {username: a}}\n      clients: {web: {clientId: w, clientSecret: s}}\n",
			[]string{"fixtures.users.reader: username and password are required", "fixtures.users.reader.email: required",
				"fixtures.clients.web.redirectUri: required"}},
		{"unknown provisioning api", "services:\n  authServer: {issuer: 'http://x', provisioning: {api: keycloak, clientId: a, clientSecret: b}}\n",
			[]string{`services.authServer.provisioning.api: "keycloak" is not an administration API the harness knows; known: uaa`}},
		{"bad page rule", "services:\n  authServer:\n    url: http://x\n    admin: {clientId: a, clientSecret: b}\n    pages: [{url: '(', approve: {}}]\n",
			[]string{"services.authServer.pages[0].url", "is not a regular expression", "services.authServer.pages[0].approve: give at least one of id, name, value, text"}},
		{"provisioning as a capability", "services:\n  configServer: {url: 'http://x', repository: {uri: /r}}\ncapabilities: [auth.provisioning]\n",
			[]string{"capabilities[0]: auth.provisioning is declared by giving services.authServer.provisioning"}},
		{"config app alone", "services:\n  authServer: {url: 'http://x', admin: {clientId: a, clientSecret: b}}\n  configApp: {start: x}\n", []string{"services.configApp: needs services.configServer"}},
		{"config app without start", "services:\n  configServer: {url: 'http://x', repository: {uri: /r}}\n  configApp: {}\n",
			[]string{"services.configApp.start: required"}},
		{"bad duration", "services:\n  configServer: {url: 'http://x', repository: {uri: /r}}\n  configApp: {start: x, startTimeout: soon}\n",
			[]string{`line 3: "soon" is not a positive duration`}},
		{"unknown fields", "services:\n  configServer:\n    urll: http://x\n  gatway: {}\n",
			[]string{"services.configServer.urll: unknown field (line 3)", "known here: url, repository",
				"services.gatway: unknown field (line 4)", "known here: authServer, fortune, greeting, configServer, configApp, gateway"}},
		{"bad url and missing repo", "services:\n  configServer:\n    url: localhost:8888\n",
			[]string{`services.configServer.url: "localhost:8888" is not an absolute http(s) URL`,
				"services.configServer.repository.uri: required"}},
		{"bad scheme", "services:\n  configServer:\n    url: http://x\n    repository: {uri: 'ftp://x/r'}\n",
			[]string{`services.configServer.repository.uri: scheme "ftp" is not supported`}},
		{"unknown capability", "services:\n  configServer: {url: 'http://x', repository: {uri: /r}}\ncapabilities: [config.flat]\n",
			[]string{`capabilities[0]: unknown capability "config.flat"; known: auth.account-lockout, auth.issuer-is-token-endpoint`}},
		{"lockout out of range", "services:\n  authServer: {url: 'http://x', admin: {clientId: a, clientSecret: b}, lockoutAfterFailures: -1}\n",
			[]string{"services.authServer.lockoutAfterFailures: -1 is not a number of failed sign-ins from 1 to 100"}},
		{"periods out of range", "services:\n  authServer: {url: 'http://x', admin: {clientId: a, clientSecret: b}, lockoutPeriodSeconds: -1, codeLifetimeSeconds: 86401}\n",
			[]string{"services.authServer.lockoutPeriodSeconds: -1 is not a number of seconds from 1 to 86400",
				"services.authServer.codeLifetimeSeconds: 86401 is not a number of seconds from 1 to 86400"}},
		{"a period's capability in the list", "services:\n  authServer: {url: 'http://x', admin: {clientId: a, clientSecret: b}}\ncapabilities: [auth.lockout-period]\n",
			[]string{"capabilities[0]: auth.lockout-period is declared by giving services.authServer.lockoutPeriodSeconds, not in this list"}},
		{"wrong type", "services:\n  configServer: {url: 'http://x', repository: {uri: /r}}\ncapabilities: config.errors\n",
			[]string{"capabilities (line 3): str", "where a list was expected"}},
		{"wrong type in the list", "services:\n  configServer: {url: 'http://x', repository: {uri: /r}}\ncapabilities:\n  - [config.errors]\n",
			[]string{"capabilities[0] (line 4): seq where a string was expected"}},
		{"wrong type deep inside, and another layer's mistake", "services:\n  gateway:\n    gatewayName: eg\n    manifestDir: /m\n    instances:\n      - {http: [a]}\n  configServer: {url: 'http://x'}\n",
			[]string{"services.gateway.instances[0].http (line 6)", "where a string was expected",
				"services.configServer.repository.uri: required"}},
		{"not yaml", "services: [\n", []string{"not valid YAML"}},
		{"fixtures collide", "services:\n  authServer:\n    issuer: http://x\n    fixtures:\n" +
			"      users: {reader: {username: a, password: p, email: a@x}, outsider: {username: a, password: q}}\n" +
			"      clients:\n        web: {clientId: w, clientSecret: s, redirectUri: 'https://w/cb'}\n" +
			"        resource: {clientId: w, clientSecret: other}\n" +
			"        shortLived: {clientId: w, clientSecret: s, redirectUri: 'https://w/cb', authMethod: basic}\n",
			[]string{`fixtures.users.outsider: "a" is also users.reader`,
				`fixtures.clients.resource.clientId: "w" is also clients.web, with another clientSecret`,
				`fixtures.clients.shortLived.clientId: "w" is also clients.web: the short-lived client must be a client of its own`,
				`fixtures.clients.shortLived.authMethod: "basic" is not a method the harness knows; give client_secret_basic or client_secret_post`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

func TestLoadNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.yaml")
	if err := os.WriteFile(path, []byte("services: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v does not name %s", err, path)
	}
	if _, err := Load(path + ".missing"); err == nil {
		t.Fatal("a missing file is not an error")
	}
}

func TestOnlyBracedVariablesAreExpandedAndAMissingOneIsAnError(t *testing.T) {
	t.Setenv("TCK_TEST_SECRET", "s3cret")
	doc := `services:
  configServer:
    url: http://localhost:8888
    repository: {uri: /srv/r.git, password: "${TCK_TEST_SECRET}"}
  configApp:
    start: exec app --port "$TCK_PORT" --name "$TCK_APP_NAME"
`
	tg, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if got := tg.Services.ConfigApp.Start; got != `exec app --port "$TCK_PORT" --name "$TCK_APP_NAME"` {
		t.Errorf("start command changed at load: %q", got)
	}
	if tg.Services.ConfigServer.Repository.Password != "s3cret" {
		t.Errorf("password not expanded: %q", tg.Services.ConfigServer.Repository.Password)
	}
	tg, err = Parse([]byte("services:\n  configServer: {url: 'http://x', repository: {uri: '${TCK_TEST_UNSET_VARIABLE:-/srv/r.git}', password: '${TCK_TEST_SECRET:-unused}'}}\n"))
	if err != nil || tg.Services.ConfigServer.Repository.URI != "/srv/r.git" || tg.Services.ConfigServer.Repository.Password != "s3cret" {
		t.Errorf("${VAR:-default}: err %v, repository %+v", err, tg.Services.ConfigServer.Repository)
	}
	_, err = Parse([]byte("services:\n  configServer: {url: 'http://x', repository: {uri: /r, password: '${TCK_TEST_UNSET_VARIABLE}'}}\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2: ${TCK_TEST_UNSET_VARIABLE} is not set") {
		t.Errorf("err = %v", err)
	}
}

func TestOneClientMayBeTheWebAndTheResourceClient(t *testing.T) {
	tg, err := Parse([]byte("services:\n  authServer:\n    issuer: http://x/\n    fixtures:\n" +
		"      users: {reader: {username: a, password: p, email: a@x}}\n" +
		"      clients:\n        web: {clientId: w, clientSecret: s, redirectUri: 'https://w/cb', authMethod: client_secret_post}\n" +
		"        resource: {clientId: w, clientSecret: s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := tg.Services.AuthServer.Issuer; got != "http://x/" {
		t.Errorf("issuer %q, want it exactly as written (discovery compares it exactly)", got)
	}
}

// A configuration repository given as a relative path is the target file's folder's, as a mounted file's source
// is; git's user@host:path stays as written.
func TestARelativeRepositoryIsTheTargetFilesFolders(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.yaml")
	if err := os.WriteFile(path, []byte("services:\n  configServer: {url: 'http://x', repository: {uri: repos/config.git}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tg.Services.ConfigServer.Repository.URI, filepath.Join(dir, "repos", "config.git"); got != want {
		t.Errorf("uri %q, want %q", got, want)
	}
	tg, err = Parse([]byte("services:\n  configServer: {url: 'http://x', repository: {uri: 'git@git.example.org:team/config.git'}}\n"))
	if err != nil || tg.Services.ConfigServer.Repository.URI != "git@git.example.org:team/config.git" {
		t.Errorf("git's user@host:path: %v %+v", err, tg)
	}
}

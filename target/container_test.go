package target

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAContainerStandsInForTheURLAndItsMistakesAreNamed(t *testing.T) {
	doc := `
services:
  authServer:
    provisioning: {clientId: admin, clientSecret: adminsecret}
    container:
      image: example/uaa:1
      command: [serve, --url, $TCK_URL]
      port: 8080
  configServer:
    url: $TCK_URL/config
    repository: {uri: /srv/repo}
    container:
      image: example/config:1
      port: 8888
      files: [{source: repo, target: /srv/repo}]
      ready: {log: "Started"}
`
	tg, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	cs := tg.Containers()
	if len(cs) != 2 || cs[0].Field != "services.authServer" || cs[1].Field != "services.configServer" {
		t.Fatalf("containers = %+v", cs)
	}
	if got := time.Duration(cs[1].Container.Ready.Timeout); got != time.Minute {
		t.Errorf("default readiness timeout %s, want 1m", got)
	}
	tg.resolveFiles("/etc/tck")
	if src := tg.Services.ConfigServer.Container.Files[0].Source; src != filepath.Join("/etc/tck", "repo") {
		t.Errorf("a relative mount source is %q, want it under the target file's folder", src)
	}
	for _, c := range cs {
		c.SetURL("http://127.0.0.1:4242")
	}
	if as := tg.Services.AuthServer; as.Issuer != "" || as.Discovery != "" {
		t.Errorf("issuer %q, discovery %q: want them left empty", as.Issuer, as.Discovery)
	}
	if u := tg.Services.AuthServer.URL; u != "http://127.0.0.1:4242" {
		t.Errorf("authServer.url = %q, want the container's address", u)
	}
	if u := tg.Services.ConfigServer.URL; u != "http://127.0.0.1:4242/config" {
		t.Errorf("configServer.url = %q, want $TCK_URL replaced", u)
	}

	bad := `
services:
  fortune:
    container: {port: 0, files: [{target: srv}], ready: {http: health, log: "("}}
  authServer: {url: http://x, provisioning: {clientId: a, clientSecret: b}}
`
	_, err = Parse([]byte(bad))
	for _, w := range []string{"services.fortune.container.image: required", "services.fortune.container.port: required",
		"services.fortune.container.files[0].source: required", `files[0].target: "srv" is not an absolute path`,
		`ready.http: "health" is not a path`, "ready.log: not a regular expression"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("the error does not say %q:\n%v", w, err)
		}
	}
}

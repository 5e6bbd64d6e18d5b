package gateway

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestReloadOfOneFileIsAFullReload drives two gateways on one directory
// through the same changes: one reads again only the files changed (as
// after a notification), the other the whole directory, building its
// routing table anew every time. After each change
// both must return the same refusals, keep the same versions in force and
// route and limit the same requests the same way. The first must also
// have taken the short way where it can: a change of routes alone leaves
// what it does not touch (the HTTPS port) shared with the table before.
func TestReloadOfOneFileIsAFullReload(t *testing.T) {
	up := startUpstream(t)
	host, port, _ := strings.Cut(up.addr(), ":")
	dir := t.TempDir()
	backend := "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: Backend\nmetadata: {name: up}\nspec:\n  endpoints: [{ip: {address: " + host + ", port: " + port + "}}]\n"
	files := map[string]string{
		"gw.yaml":     gatewayYAML + backend,
		"policy.yaml": strings.Replace(policyYAML("Local", plainRule(50, "Hour")), "name: fortune}]", "name: r1}]", 1),
	}
	for i := range 4 {
		files[fmt.Sprintf("r%d.yaml", i)] = oneRoute(i, "/v0")
	}
	writeFiles(t, dir, files)
	quiet := Options{Rescan: time.Hour, Debounce: time.Hour}
	byFile, whole := startGateway(t, dir, quiet), startGateway(t, dir, quiet)
	whole.buildAll = true

	steps := []struct {
		name   string
		write  map[string]string // "" removes the file
		routes bool              // only routes changed: the table is updated, not built anew
	}{
		{"a route changes", map[string]string{"r0.yaml": oneRoute(0, "/v1")}, true},
		{"a route file is added", map[string]string{"r4.yaml": oneRoute(4, "/v0")}, true},
		{"a route file becomes invalid", map[string]string{"r2.yaml": strings.Replace(oneRoute(2, "/v2"), "PathPrefix", "Prefix", 1)}, true},
		{"an invalid file is added", map[string]string{"bad.yaml": "kind: ["}, true},
		{"the invalid files are fixed and removed", map[string]string{"r2.yaml": oneRoute(2, "/v3"), "bad.yaml": ""}, true},
		{"a route file is deleted", map[string]string{"r3.yaml": ""}, true},
		{"two files define one route", map[string]string{"r5.yaml": oneRoute(0, "/v5")}, true},
		{"a route is renamed", map[string]string{"r5.yaml": oneRoute(5, "/v5")}, true},
		{"the route a policy names goes", map[string]string{"r1.yaml": ""}, false},
		{"it comes back", map[string]string{"r1.yaml": oneRoute(1, "/v1")}, false},
		{"the policy changes", map[string]string{"policy.yaml": strings.Replace(policyYAML("Local", plainRule(7, "Hour")), "name: fortune}]", "name: r1}]", 1)}, false},
		{"a route file gets a Backend", map[string]string{"r4.yaml": oneRoute(4, "/v4") + strings.Replace(backend, "name: up}", "name: up2}", 1)}, false},
		{"the Backend goes again", map[string]string{"r4.yaml": oneRoute(4, "/v4")}, false},
	}
	for _, step := range steps {
		before := byFile.config.Load()
		var names []string
		for name, content := range step.write {
			names = append(names, name)
			if content == "" {
				if err := os.Remove(filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			} else {
				writeFiles(t, dir, map[string]string{name: content})
			}
		}
		errByFile, errWhole := byFile.reloadFiles(names), whole.Reload()
		if fmt.Sprint(errByFile) != fmt.Sprint(errWhole) {
			t.Fatalf("%s: reloading the files changed: %v\nreloading all: %v", step.name, errByFile, errWhole)
		}
		after := byFile.config.Load()
		if !slices.EqualFunc(after.accepted, whole.config.Load().accepted, func(a, b *fileRead) bool { return a.name == b.name && sameData(a, b) }) {
			t.Fatalf("%s: the versions in force differ", step.name)
		}
		if shared := after.table.Port(10443) == before.table.Port(10443); shared != step.routes {
			t.Errorf("%s: table updated in place %v, want %v", step.name, shared, step.routes)
		}
		for i := range 6 {
			for _, path := range []string{"/", "/v0", "/v1", "/v2", "/v3", "/v4", "/v5"} {
				h := fmt.Sprintf("r%d.example", i)
				a, b := sendTo(t, byFile.url(t, 10080)+path, h), sendTo(t, whole.url(t, 10080)+path, h)
				if a != b {
					t.Fatalf("%s: GET %s%s\nreloading the files changed: %s\nreloading all: %s", step.name, h, path, a, b)
				}
			}
		}
	}
}

// oneRoute is the HTTPRoute r<i>: host r<i>.example, path prefix path, on
// the HTTP listener only, to the Backend up.
func oneRoute(i int, path string) string {
	return fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r%d}
spec:
  parentRefs: [{name: eg, sectionName: http}]
  hostnames: [r%d.example]
  rules:
    - matches: [{path: {type: PathPrefix, value: %s}}]
      backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: up}]
`, i, i, path)
}

// sendTo is the status, rate-limit headers and body of a GET of url with
// Host host, as one line.
func sendTo(t *testing.T, url, host string) string {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header}
	return fmt.Sprint(a.status, " ", a.rateHeaders(), " ", string(body))
}

package gateway

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/freeport"
	"github.com/fortune-tck/fortune-tck/internal/syncbuf"

	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
)

// TestReloadKeepsRequestsInFlight changes the policy while a request is
// at the upstream: the new limit applies to the next requests, and the one
// in flight finishes normally.
func TestReloadKeepsRequestsInFlight(t *testing.T) {
	up := startUpstream(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(up.addr()), "policy.yaml": policyYAML("Global", plainRule(100, "Hour"))})
	gw := startGateway(t, dir, Options{})
	base := gw.url(t, 10080)
	inFlight := make(chan answer, 1)
	go func() { inFlight <- send(t, "GET", base+"/slow") }()
	<-up.arrived
	writeFiles(t, dir, map[string]string{"policy.yaml": policyYAML("Global", plainRule(200, "Hour"))})
	eventually(t, 5*time.Second, "the changed policy in force", func() bool {
		return send(t, "GET", base+"/").rateHeaders()[0] == "200, 200;w=3600"
	})
	close(up.release)
	a := <-inFlight
	if a.status != 200 || !strings.Contains(a.body, "/slow") || a.rateHeaders()[0] != "100, 100;w=3600" {
		t.Fatalf("request in flight: %d %q %v", a.status, a.body, a.rateHeaders())
	}
}

// A file with errors is refused on its own: the change beside it applies, and a refused new version of a
// file leaves its last accepted version in force.
func TestAnInvalidManifestIsRefusedAlone(t *testing.T) {
	up := startUpstream(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(up.addr()), "policy.yaml": policyYAML("Global", plainRule(5, "Hour"))})
	gw := startGateway(t, dir, Options{})
	base := gw.url(t, 10080)
	// A valid change of the policy together with an invalid new route: the policy applies, the route does not.
	writeFiles(t, dir, map[string]string{
		"policy.yaml": policyYAML("Global", plainRule(7, "Hour")),
		"broken.yaml": "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: broken}\nspec:\n  rules:\n    - matches: [{path: {type: Prefix, value: /}}]\n",
	})
	eventually(t, 5*time.Second, "the valid change in force", func() bool {
		return send(t, "GET", base+"/").rateHeaders()[0] == "7, 7;w=3600"
	})
	log := gw.logs.String()
	for _, want := range []string{"manifest refused; it is not applied", "file=" + filepath.Join(dir, "broken.yaml") + ":6", `resource="HTTPRoute default/broken"`, "field=spec.rules[0].matches[0].path.type"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	var errs manifest.Errors
	if err := gw.Reload(); err != nil {
		t.Fatalf("a reload of the same content must be a no-op, got %v", err)
	}
	if strings.Count(gw.logs.String(), "manifest refused") != 1 {
		t.Errorf("a refused file must be logged once per content:\n%s", gw.logs)
	}
	// A broken new version of the policy: the version in force stays; the fixed version applies.
	writeFiles(t, dir, map[string]string{"policy.yaml": strings.Replace(policyYAML("Global", plainRule(9, "Hour")), "requests: 9", "requests: nine", 1)})
	eventually(t, 5*time.Second, "the refusal logged", func() bool {
		return strings.Contains(gw.logs.String(), "its last accepted version stays in force")
	})
	if err := gw.Reload(); err != nil && !errors.As(err, &errs) {
		t.Fatalf("Reload: %v", err)
	}
	if a := send(t, "GET", base+"/"); a.status != 200 || a.rateHeaders()[0] != "7, 7;w=3600" {
		t.Fatalf("the last accepted policy is not in force: %d %v", a.status, a.rateHeaders())
	}
	os.Remove(filepath.Join(dir, "broken.yaml"))
	writeFiles(t, dir, map[string]string{"policy.yaml": policyYAML("Global", plainRule(9, "Hour"))})
	eventually(t, 5*time.Second, "the fixed policy in force", func() bool {
		return send(t, "GET", base+"/").rateHeaders()[0] == "9, 9;w=3600"
	})
}

// TestListenersFollowTheGateway: a listener added on reload is served, a
// removed one is drained; a port that cannot be bound refuses the change.
func TestListenersFollowTheGateway(t *testing.T) {
	up := startUpstream(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gw.yaml": gatewayYAML, "route.yaml": routeYAML(up.addr())})
	gw := startGateway(t, dir, Options{})
	old := gw.url(t, 10443)
	writeFiles(t, dir, map[string]string{"gw.yaml": strings.Replace(gatewayYAML, "{name: https, protocol: HTTPS, port: 10443}", "{name: extra, protocol: HTTP, port: 10081}", 1)})
	eventually(t, 5*time.Second, "port 10081 served", func() bool { return len(gw.Listeners()) == 2 && gw.Listeners()[1].Port == 10081 })
	if a := send(t, "GET", gw.url(t, 10081)+"/"); a.status != 200 {
		t.Fatalf("new listener: %d", a.status)
	}
	eventually(t, 5*time.Second, "port 10443 closed", func() bool {
		_, err := client.Get(old)
		return err != nil
	})
}

// TestCertificateFromSecret serves the certificate of a kubernetes.io/tls
// Secret in the directory.
func TestCertificateFromSecret(t *testing.T) {
	up := startUpstream(t)
	dir := t.TempDir()
	cert, err := selfSigned("secure.example")
	if err != nil {
		t.Fatal(err)
	}
	gw := strings.Replace(gatewayYAML, "port: 10443}", "port: 10443, tls: {certificateRefs: [{name: site}]}}", 1)
	writeFiles(t, dir, map[string]string{"gw.yaml": gw, "route.yaml": routeYAML(up.addr()), "secret.yaml": tlsSecret(t, "site", cert)})
	g := startGateway(t, dir, Options{})
	a := send(t, "GET", g.url(t, 10443)+"/")
	if a.status != 200 || a.tls.PeerCertificates[0].DNSNames[0] != "secure.example" {
		t.Fatalf("%d %v", a.status, a.tls.PeerCertificates[0].DNSNames)
	}
}

func TestStartRefusesAnInvalidDirectory(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gw.yaml": strings.Replace(gatewayYAML, "port: 10080", "port: 100800", 1)})
	_, err := Start(Options{Dir: dir, FreePorts: true, AccessLog: &syncbuf.Buffer{}})
	if err == nil || !strings.Contains(err.Error(), "gw.yaml:7: Gateway default/eg: spec.listeners[0].port: must be an integer from 1 to 65535") {
		t.Fatalf("%v", err)
	}
	if _, err := Start(Options{Dir: filepath.Join(dir, "missing")}); err == nil {
		t.Fatal("a missing directory must be refused")
	}
}

func TestPortOffsetAndBusyPort(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gw.yaml": strings.Replace(gatewayYAML, "port: 10443}", "port: 10443}\n    - {name: high, protocol: HTTP, port: 65535}", 1)})
	_, err := Start(Options{Dir: dir, PortOffset: 10, AccessLog: &syncbuf.Buffer{}})
	if err == nil || !strings.Contains(err.Error(), "listener high: port 65535 with --port-offset 10 is 65545") {
		t.Fatalf("%v", err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := busy.Addr().(*net.TCPAddr).Port
	// The HTTPS listener gets a port of its own that is free, so that only the busy one can fail (10443 may be
	// taken on a machine that runs the compose stack's tests at the same time).
	yaml := strings.Replace(gatewayYAML, "port: 10080", "port: "+strconv.Itoa(port), 1)
	yaml = strings.Replace(yaml, "port: 10443}", "port: "+strconv.Itoa(freeport.Get(t))+"}", 1)
	writeFiles(t, dir, map[string]string{"gw.yaml": yaml})
	_, err = Start(Options{Dir: dir, AccessLog: &syncbuf.Buffer{}})
	if err == nil || !strings.Contains(err.Error(), "Gateway default/eg listener http: cannot listen on 127.0.0.1:"+strconv.Itoa(port)) {
		t.Fatalf("%v", err)
	}
}

// tlsSecret is a kubernetes.io/tls Secret holding cert, in stringData.
func tlsSecret(t testing.TB, name string, cert *tls.Certificate) string {
	key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	crt := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}))
	keyPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}))
	return "apiVersion: v1\nkind: Secret\nmetadata: {name: " + name + "}\ntype: kubernetes.io/tls\nstringData:\n  tls.crt: |\n" + indent(crt) + "  tls.key: |\n" + indent(keyPEM)
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString("    " + l)
		}
	}
	return b.String()
}

package auth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// counted is a server no target file names, standing for a cloud machine's metadata service: it counts
// every request it gets.
func counted(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte(`<form method="post"><input name="u"><input type="password" name="p"></form>`))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// A sign-in page on an origin the target file does not declare is never opened, and the preflight says where
// the browser was sent and what to declare.
func TestTheBrowserFollowsNoRedirectToAnUndeclaredOrigin(t *testing.T) {
	op := startFakeOP(t, &fakeOP{loginElsewhere: true})
	env := op.env()
	env.Target.AllowedOrigins = nil
	var hits atomic.Int64
	login := op.login.Config.Handler
	op.login.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); login.ServeHTTP(w, r) })
	_, err := op.suite(env)
	if err == nil || !strings.Contains(err.Error(), "the server sent the browser from "+op.srv.URL+"/authorize?… to "+op.login.URL+"/login?…") ||
		!strings.Contains(err.Error(), "allowedOrigins") {
		t.Errorf("err = %v, want one that names where the browser was sent and allowedOrigins", err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the undeclared sign-in page was asked %d times", n)
	}
}

// A form of a declared page that would send its fields (a password) to another origin sends nothing.
func TestAFormSendsNothingToAnUndeclaredOrigin(t *testing.T) {
	undeclared, hits := counted(t)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`<form method="post" action="` + undeclared.URL + `/steal"><input name="u"><input type="password" name="pw"></form>`))
	}))
	defer page.Close()
	b := newBrowser(core.NewRun(&target.Target{AllowedOrigins: []string{page.URL}}), context.Background(), nil)
	if _, err := b.get(page.URL+"/login", ""); err != nil {
		t.Fatal(err)
	}
	p, err := b.parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := p.signInForm()
	if err != nil || f == nil {
		t.Fatalf("no sign-in form: %v", err)
	}
	f.fields.Set("pw", "alice-password")
	_, err = b.submit(f)
	if err == nil || !strings.Contains(err.Error(), undeclared.URL+"/steal") || strings.Contains(err.Error(), "alice-password") {
		t.Errorf("err = %v, want one that names the undeclared origin and not the password", err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the undeclared server got %d requests", n)
	}
}

// A discovery document that names an endpoint on an origin the target file does not declare, another port
// of the issuer's host included, fails the preflight, unless the file declares that origin.
func TestDiscoveredEndpointsMustBeOnDeclaredOrigins(t *testing.T) {
	run := core.NewRun(&target.Target{Services: target.Services{AuthServer: &target.AuthServer{Issuer: "http://127.0.0.1:9130"}}})
	doc := &discoveryDocument{AuthorizationEndpoint: "http://127.0.0.1:9130/authorize", TokenEndpoint: "http://127.0.0.1:9130/token"}
	if err := checkDiscovered(run.Origins, doc); err != nil {
		t.Fatal(err)
	}
	for _, away := range []string{"http://127.0.0.1:6379/", "http://169.254.169.254/latest/meta-data/"} {
		doc.UserinfoEndpoint = away
		err := checkDiscovered(run.Origins, doc)
		if o, _ := target.Origin(away); err == nil || !strings.Contains(err.Error(), "userinfo_endpoint "+away) ||
			!strings.Contains(err.Error(), "add "+originOf(away)+" to allowedOrigins") {
			t.Errorf("%s: err = %v (origin %s)", away, err, o)
		}
	}
	run = core.NewRun(&target.Target{AllowedOrigins: []string{"http://127.0.0.1:9130", "http://169.254.169.254"}})
	if err := checkDiscovered(run.Origins, doc); err != nil {
		t.Errorf("a declared origin is refused: %v", err)
	}
}

package configapp

import (
	"net/http"
	"strings"
	"testing"
)

var (
	applicationPaths = []request{{method: "GET", path: "/"}, {method: "GET", path: "/random-quote"}, {method: "GET", path: "/nope"}}
	operationalPaths = []request{
		{method: "POST", path: "/refresh"}, {method: "POST", path: "/bus/refresh"}, {method: "GET", path: "/env"},
		{method: "GET", path: "/loggers"}, {method: "GET", path: "/loggers/com.example"}, {method: "GET", path: "/health"},
	}
)

func TestEverythingNeedsBasicAuthByDefault(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": "greeting:\n  message: hi\n"})
	in := startApp(t, Options{ConfigURL: startConfigServer(t, o).URL})
	m := passwordLine.FindAllStringSubmatch(in.logs.String(), -1)
	if len(m) != 1 || m[0][1] != in.app.GeneratedPassword() || !strings.Contains(in.logs.String(), "level=INFO") {
		t.Fatalf("want the generated password logged once at INFO:\n%s", in.logs)
	}
	for _, r := range append(applicationPaths, operationalPaths...) {
		for _, creds := range []request{{anonymous: true}, {password: "wrong"}, {user: "admin"}} {
			r.anonymous, r.user, r.password = creds.anonymous, creds.user, creds.password
			a := in.do(r)
			var e errorBody
			a.json(t, &e)
			if a.status != 401 || a.header.Get("WWW-Authenticate") != `Basic realm="Spring"` || e.Status != 401 || e.Error != "Unauthorized" || e.Path != r.path {
				t.Errorf("%s %s (%+v): %d %v %s", r.method, r.path, creds, a.status, a.header, a.body)
			}
		}
	}
	if a := in.do(request{method: "GET", path: "/", anonymous: true}); !strings.Contains(string(a.body), "Full authentication is required") {
		t.Errorf("anonymous: %s", a.body)
	}
	if a := in.do(request{method: "GET", path: "/", password: "x"}); !strings.Contains(string(a.body), "Bad credentials") {
		t.Errorf("wrong password: %s", a.body)
	}
	if m := in.greeting(); m["msg"] != "hi" {
		t.Fatalf("with credentials: %v", m)
	}
	if a := in.get("/health"); a.status != 200 {
		t.Fatalf("health with credentials: %d", a.status)
	}
}

func TestConfiguredCredentials(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": "security:\n  user:\n    name: alice\n    password: s3cret\n"})
	in := startApp(t, Options{ConfigURL: startConfigServer(t, o).URL})
	if strings.Contains(in.logs.String(), "Using default security password") {
		t.Fatalf("a configured password must not be replaced by a generated one:\n%s", in.logs)
	}
	if a := in.do(request{method: "GET", path: "/", user: "user"}); a.status != 401 {
		t.Fatalf("default user: %d", a.status)
	}
	if a := in.do(request{method: "GET", path: "/", user: "alice"}); a.status != 401 {
		t.Fatalf("generated password: %d", a.status)
	}
	if a := in.do(request{method: "GET", path: "/env", user: "alice", password: "s3cret"}); a.status != 200 || strings.Contains(string(a.body), "s3cret") {
		t.Fatalf("configured credentials: %d %s", a.status, a.body)
	}
}

func TestBasicDisabledOpensTheApplicationEndpointsOnly(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": "security:\n  basic:\n    enabled: false\n"})
	in := startApp(t, Options{ConfigURL: startConfigServer(t, o).URL})
	checkOpen(t, in, applicationPaths, true)
	checkOpen(t, in, operationalPaths, false)
}

func TestManagementDisabledOpensTheOperationalEndpointsOnly(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": "management:\n  security:\n    enabled: false\n"})
	in := startApp(t, Options{ConfigURL: startConfigServer(t, o).URL})
	checkOpen(t, in, applicationPaths, false)
	checkOpen(t, in, operationalPaths, true)
}

func TestSecurityIsReboundOnRefresh(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": "management:\n  security:\n    enabled: false\nsecurity:\n  user:\n    password: first\n"})
	in := startApp(t, Options{ConfigURL: startConfigServer(t, o).URL})
	if a := in.do(request{method: "GET", path: "/", password: "first"}); a.status != 200 {
		t.Fatalf("configured password: %d", a.status)
	}
	o.commit(map[string]string{"greeting-config.yml": "management:\n  security:\n    enabled: false\n"})
	in.refresh()
	if a := in.do(request{method: "GET", path: "/", password: "first"}); a.status != 401 {
		t.Fatalf("removed password still accepted: %d", a.status)
	}
	if a := in.get("/"); a.status != 200 {
		t.Fatalf("the generated password must apply again: %d", a.status)
	}
	if m := passwordLine.FindAllStringSubmatch(in.logs.String(), -1); len(m) != 1 || m[0][1] != in.app.GeneratedPassword() {
		t.Fatalf("the generated password must be logged once it applies:\n%s", in.logs)
	}
	o.commit(map[string]string{"greeting-config.yml": open})
	in.refresh()
	checkOpen(t, in, applicationPaths, true)
	in.refresh()
	if n := len(passwordLine.FindAllString(in.logs.String(), -1)); n != 1 {
		t.Fatalf("password logged %d times", n)
	}
}

func TestSameDigest(t *testing.T) {
	if !sameDigest("a", "a") || sameDigest("a", "b") || sameDigest("", "a") || !sameDigest("", "") {
		t.Fatal("sameDigest")
	}
}

// checkOpen checks that anonymous requests pass (any status but 401) or not.
func checkOpen(t *testing.T, in *instance, rs []request, open bool) {
	t.Helper()
	for _, r := range rs {
		r.anonymous = true
		a := in.do(r)
		if (a.status != http.StatusUnauthorized) != open {
			t.Errorf("%s %s anonymous: %d, want open=%v", r.method, r.path, a.status, open)
		}
	}
}

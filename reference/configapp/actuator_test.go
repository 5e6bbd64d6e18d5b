package configapp

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestEnv(t *testing.T) {
	o := newOrigin(t, map[string]string{
		"app.yml":         open + "a: 1\nb: two\ndb:\n  password: p\napi-key: k\naccess.token: t\nclient.secret: s\nkeystore: ks\n",
		"app-dev.yml":     "a: 2\nlist: [x, y]\n",
		"application.yml": "shared: true\n",
	})
	cs := startConfigServer(t, o)
	in := startApp(t, Options{ConfigURL: cs.URL, Name: "app", Profiles: []string{"dev"}})
	a := in.get("/env")
	if a.status != 200 || a.header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s", a.status, a.body)
	}
	prefix := `{"profiles":["dev"],"configService:` + o.dir + `/app-dev.yml":{"a":2,"list[0]":"x","list[1]":"y"},"configService:` + o.dir + `/app.yml":{`
	if !strings.HasPrefix(string(a.body), prefix) {
		t.Fatalf("want sources in precedence order, keys in file order:\n%s", a.body)
	}
	var env map[string]any
	a.json(t, &env)
	app := env["configService:"+o.dir+"/app.yml"].(map[string]any)
	for k, want := range map[string]any{
		"a": 1.0, "b": "two", "db.password": "******", "api-key": "******", "access.token": "******",
		"client.secret": "******", "keystore": "ks",
	} {
		if app[k] != want {
			t.Errorf("%s = %v, want %v", k, app[k], want)
		}
	}
	if shared := env["configService:"+o.dir+"/application.yml"].(map[string]any); shared["shared"] != true || len(env) != 4 {
		t.Fatalf("env %v", env)
	}
}

func TestEnvWithoutProfiles(t *testing.T) {
	cs := startConfigServer(t, newOrigin(t, map[string]string{"other.yml": "k: v\n"}))
	in := startApp(t, Options{ConfigURL: cs.URL})
	if a := in.get("/env"); string(a.body) != `{"profiles":[]}`+"\n" {
		t.Fatalf("%s", a.body)
	}
}

func TestLoggers(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": "logging:\n  level:\n    com.example: DEBUG\n"})
	in := startApp(t, Options{ConfigURL: startConfigServer(t, o).URL})
	var all struct {
		Levels  []string                `json:"levels"`
		Loggers map[string]loggerLevels `json:"loggers"`
	}
	in.get("/loggers").json(t, &all)
	if strings.Join(all.Levels, ",") != "OFF,ERROR,WARN,INFO,DEBUG,TRACE" {
		t.Fatalf("levels %v", all.Levels)
	}
	root, ex, pages := all.Loggers["ROOT"], all.Loggers["com.example"], all.Loggers["com.example.greeting"]
	if *root.ConfiguredLevel != "INFO" || *ex.ConfiguredLevel != "DEBUG" || pages.ConfiguredLevel != nil || pages.EffectiveLevel != "DEBUG" {
		t.Fatalf("loggers %s", in.get("/loggers").body)
	}
	checkLogger(t, in, "root", ptr("INFO"), "INFO")
	checkLogger(t, in, "ROOT", ptr("INFO"), "INFO")
	checkLogger(t, in, "never.configured", nil, "INFO")
	if a := in.get("/loggers/x"); string(a.body) != `{"configuredLevel":null,"effectiveLevel":"INFO"}`+"\n" {
		t.Fatalf("Boot 1.5 shape: %s", a.body)
	}
}

func TestRootLevelOption(t *testing.T) {
	cs := startConfigServer(t, newOrigin(t, map[string]string{"other.yml": "k: v\n"}))
	in := startApp(t, Options{ConfigURL: cs.URL, RootLevel: -4})
	checkLogger(t, in, "ROOT", ptr("DEBUG"), "DEBUG")
	in.greeting()
	if len(in.logs.Lines("rendering page greeting")) != 1 {
		t.Fatalf("log:\n%s", in.logs)
	}
}

func TestHealth(t *testing.T) {
	cs := startConfigServer(t, newOrigin(t, map[string]string{"other.yml": "k: v\n"}))
	in := startApp(t, Options{ConfigURL: cs.URL})
	if a := in.get("/health"); a.status != 200 || string(a.body) != `{"status":"UP"}`+"\n" {
		t.Fatalf("%d %s", a.status, a.body)
	}
}

func TestMethodsRoutesAndLimits(t *testing.T) {
	cs := startConfigServer(t, newOrigin(t, map[string]string{"greeting-config.yml": open}))
	in := startApp(t, Options{ConfigURL: cs.URL})
	for path, allow := range map[string]string{
		"/": "GET, HEAD", "/random-quote": "GET, HEAD", "/env": "GET, HEAD", "/loggers": "GET, HEAD",
		"/loggers/a": "GET, HEAD", "/health": "GET, HEAD", "/refresh": "POST", "/bus/refresh": "POST",
	} {
		method := http.MethodDelete
		if allow == "POST" {
			method = http.MethodGet
		}
		a := in.do(request{method: method, path: path})
		var e errorBody
		a.json(t, &e)
		if a.status != 405 || a.header.Get("Allow") != allow || e.Status != 405 || !strings.Contains(e.Message, "'"+method+"' not supported") {
			t.Errorf("%s %s: %d Allow %q %s", method, path, a.status, a.header.Get("Allow"), a.body)
		}
	}
	for _, path := range []string{"/nope", "/loggers/", "/refresh/", "//", "/env/x"} {
		if a := in.get(path); a.status != 404 || !json.Valid(a.body) {
			t.Errorf("%s: %d %s", path, a.status, a.body)
		}
	}
	big := strings.NewReader(strings.Repeat("x", maxBodyBytes+1))
	if a := in.do(request{method: http.MethodPost, path: "/refresh", body: big}); a.status != 413 {
		t.Errorf("big body: %d %s", a.status, a.body)
	}
	if a := in.do(request{method: http.MethodPost, path: "/refresh", body: strings.NewReader("{}")}); a.status != 200 {
		t.Errorf("small body: %d %s", a.status, a.body)
	}
}

func TestSensitive(t *testing.T) {
	for key, want := range map[string]bool{
		"security.user.password": true, "PASSWORD": true, "oauth.clientSecret": true, "api.key": true, "signingKey": true,
		"auth.token": true, "api.accessTOKEN": true, "cloud.credentials.x": true, "mail.CREDENTIALS": true,
		"VCAP_SERVICES": true, "greeting.message": false, "quoteServiceURL": false,
		// Spring's patterns are ".*password$" and the like: a key that only contains one is shown.
		"keystore": false, "keystore.type": false, "passwordHint": false, "my.secret.thing": false, "tokenizer.mode": false,
	} {
		if sensitive(key) != want {
			t.Errorf("sensitive(%q) != %v", key, want)
		}
	}
}

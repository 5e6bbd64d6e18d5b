package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/rabbittest"
	"github.com/fortune-tck/fortune-tck/reference/configserver"
)

// passwordLine is how the harness reads the password: up to the first space.
var passwordLine = regexp.MustCompile(`Using default security password: (\S+)`)

// configServerFor serves files from a fresh repository, in process.
func configServerFor(t *testing.T, files map[string]string) string {
	t.Helper()
	s, err := configserver.New(context.Background(), configserver.Options{URI: bareRepo(t, files), BaseDir: filepath.Join(t.TempDir(), "base")})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(func() { srv.Close(); s.Close() })
	return srv.URL
}

// call sends a request as user with password ("" for none).
func call(t *testing.T, method, url, password string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	req.Header.Set("Accept", "application/json")
	if password != "" {
		req.SetBasicAuth("user", password)
	}
	return do(t, req)
}

func password(t *testing.T, out string) string {
	t.Helper()
	m := passwordLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no generated password in the output:\n%s", out)
	}
	return m[1]
}

// TestServeConfigAppAsTheHarnessStartsIt runs the command line the harness
// uses, against a real configuration server and a real RabbitMQ.
func TestServeConfigAppAsTheHarnessStartsIt(t *testing.T) {
	config := configServerFor(t, map[string]string{
		"tck-app.yml":     "greeting:\n  message: hello\n",
		"tck-app-dev.yml": "greeting:\n  displayFortune: true\n",
	})
	broker := rabbittest.Start(t).VHost(t)
	r := start(t, map[string]string{"SPRING_PROFILES_ACTIVE": "dev"},
		"serve", "configapp", "--port", "0", "--name", "tck-app", "--config-url", config, "--bus", broker)
	base := r.addr(t)
	pw := password(t, r.stderr.String())
	if len(pw) != 36 {
		t.Fatalf("password %q read from the text log is not a UUID", pw)
	}
	if code, _ := call(t, "GET", base+"/health", ""); code != 401 {
		t.Fatalf("health without credentials: %d", code)
	}
	if code, body := call(t, "GET", base+"/health", pw); code != 200 || !strings.Contains(body, `"UP"`) {
		t.Fatalf("health: %d %s", code, body)
	}
	var greeting map[string]string
	_, body := call(t, "GET", base+"/", pw)
	if err := json.Unmarshal([]byte(body), &greeting); err != nil || greeting["msg"] != "hello" || greeting["fortune"] == "" {
		t.Fatalf("greeting: %s", body)
	}
	if _, body := call(t, "GET", base+"/env", pw); !strings.HasPrefix(body, `{"profiles":["dev"],`) {
		t.Fatalf("env: %s", body)
	}
	if code, body := call(t, "POST", base+"/bus/refresh", pw); code != 204 {
		t.Fatalf("bus refresh: %d %s", code, body)
	}
	if code := r.stop(t); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, r.stderr)
	}
	if !strings.Contains(r.stderr.String(), "service=configapp") || !strings.Contains(r.stderr.String(), "published a refresh event") {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
}

func TestServeConfigAppWithoutABrokerHasNoBus(t *testing.T) {
	config := configServerFor(t, map[string]string{"greeting-config.yml": "management:\n  security:\n    enabled: false\n"})
	r := start(t, nil, "serve", "configapp", "--port=0", "--config-url", config, "--log-format", "json")
	base := r.addr(t)
	if code, body := call(t, "POST", base+"/bus/refresh", ""); code != 503 || !strings.Contains(body, "No bus is bound") {
		t.Fatalf("bus refresh: %d %s", code, body)
	}
	if code, body := call(t, "POST", base+"/refresh", ""); code != 200 || body != "[]\n" {
		t.Fatalf("refresh: %d %s", code, body)
	}
	if !strings.Contains(r.stderr.String(), `"msg":"Using default security password: `) {
		t.Fatalf("want JSON logs with the password line:\n%s", r.stderr)
	}
	if code, _ := call(t, "GET", base+"/env", password(t, r.stderr.String())); code != 200 {
		t.Fatalf("the password read from the JSON log does not work: %d", code)
	}
}

func TestServeConfigAppFailsWhenTheServerIsUnreachable(t *testing.T) {
	addr := unreachable
	start := time.Now()
	code, _, stderr := runCLI("serve", "configapp", "--port", "0", "--config-url", "http://"+addr, "--start-retries", "0")
	if code != exitError || !strings.Contains(stderr, "cannot fetch the configuration from http://"+addr+"/greeting-config/default") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("--start-retries 0 must not wait")
	}
}

// A broker that cannot be reached at start: the application serves all the same, and its bus refresh answers
// 503 saying so; a malformed --bus or --paths is a usage error.
func TestServeConfigAppWithTheBrokerDown(t *testing.T) {
	config := configServerFor(t, map[string]string{"greeting-config.yml": "management:\n  security:\n    enabled: false\n"})
	r := start(t, nil, "serve", "configapp", "--port", "0", "--config-url", config, "--bus", "amqp://guest:s3cret@"+unreachable+"/",
		"--paths", "actuator")
	base := r.addr(t)
	code, body := call(t, "POST", base+"/actuator/busrefresh", "")
	if code != 503 || !strings.Contains(body, "the message broker cannot be reached") || strings.Contains(body, "s3cret") {
		t.Fatalf("bus refresh: %d %s", code, body)
	}
	if code, _ := call(t, "POST", base+"/actuator/refresh", ""); code != 200 {
		t.Fatalf("refresh: %d", code)
	}
	if strings.Contains(r.stderr.String(), "s3cret") || !strings.Contains(r.stderr.String(), "the message broker cannot be reached") {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
	for _, args := range [][]string{{"--bus", "http://x/"}, {"--paths", "boot2"}} {
		code, _, stderr := runCLI(append([]string{"serve", "configapp", "--port", "0", "--config-url", config}, args...)...)
		if code != exitUsage || !strings.Contains(stderr, args[0]+":") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}

func TestServeQuotes(t *testing.T) {
	r := start(t, nil, "serve", "quotes", "--port", "0")
	base := r.addr(t)
	for _, path := range []string{"/quotes", "/api/random", "/api/3"} {
		if code, body := call(t, "GET", base+path, ""); code != 200 || !strings.HasPrefix(body, `{"type":"success","value":{"id":`) {
			t.Fatalf("%s: %d %s", path, code, body)
		}
	}
}

func TestUpRunsTheQuotesAndTheConfigApp(t *testing.T) {
	r := start(t, map[string]string{"SPRING_PROFILES_ACTIVE": "dev"}, "up", "--data", filepath.Join(t.TempDir(), "data"))
	r.addr(t) // the configuration server
	quotes, app := r.addr(t), r.addr(t)
	if code, body := call(t, "GET", quotes+"/quotes", ""); code != 200 || !strings.Contains(body, `"quote"`) {
		t.Fatalf("quotes: %d %s", code, body)
	}
	out := r.stdout.String()
	pw := password(t, out)
	shown := strings.Replace(app, "127.0.0.1", "localhost", 1)
	for _, s := range []string{
		"configapp", "quotes", "curl -u user:" + pw + " " + shown + "/ -H 'Accept: application/json'",
		"curl -u user:" + pw + " -X POST " + shown + "/refresh", "profiles: dev",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("stdout lacks %q:\n%s", s, out)
		}
	}
	if pw != password(t, r.stderr.String()) {
		t.Fatal("stdout and the log show different passwords")
	}
	_, body := call(t, "GET", app+"/", pw)
	if !strings.Contains(body, `"msg":"Hello from the configuration server!"`) || !strings.Contains(body, `"fortune"`) {
		t.Fatalf("greeting with the dev profile: %s", body)
	}
	if code, body := call(t, "POST", app+"/bus/refresh", pw); code != 204 {
		t.Fatalf("bus refresh on the in-process bus: %d %s", code, body)
	}
	if code := r.stop(t); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, r.stderr)
	}
}

// unreachable is a loopback address where connections are refused: nothing
// binds port 1, and unlike a released free port no other test can take it.
const unreachable = "127.0.0.1:1"

package configapp

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/reference/bus"
)

// With PathsActuator the operational endpoints answer at Spring Boot 2's paths, and only there; /actuator/env
// has Boot 2's shape; the destination of a bus refresh is the path below busrefresh, its segments joined with
// ":", and a destination parameter is not one (Spring's endpoint has no such parameter).
func TestActuatorPaths(t *testing.T) {
	o := newOrigin(t, map[string]string{
		"app.yml":     open + busDebug + "greeting:\n  message: v1\ndb:\n  password: p\n",
		"app-dev.yml": "a: 2\n",
	})
	cs := startConfigServer(t, o)
	local := bus.NewLocal(nil)
	defer local.Close()
	in := startApp(t, Options{ConfigURL: cs.URL, Name: "app", Profiles: []string{"dev"}, Port: 1, Paths: PathsActuator, Bus: local})
	seen := watchBus(t, local)

	for _, path := range []string{"/refresh", "/bus/refresh", "/env", "/loggers", "/loggers/x", "/health"} {
		method := http.MethodGet
		if strings.Contains(path, "refresh") {
			method = http.MethodPost
		}
		if a := in.do(request{method: method, path: path}); a.status != http.StatusNotFound {
			t.Errorf("%s %s: %d, want 404 at a Boot 1 path", method, path, a.status)
		}
	}
	var env struct {
		ActiveProfiles  []string `json:"activeProfiles"`
		PropertySources []struct {
			Name       string                    `json:"name"`
			Properties map[string]map[string]any `json:"properties"`
		} `json:"propertySources"`
	}
	in.get("/actuator/env").json(t, &env)
	if len(env.ActiveProfiles) != 1 || env.ActiveProfiles[0] != "dev" || len(env.PropertySources) != 2 ||
		env.PropertySources[0].Name != "configserver:"+o.dir+"/app-dev.yml" || env.PropertySources[0].Properties["a"]["value"] != 2.0 ||
		env.PropertySources[1].Properties["db.password"]["value"] != "******" {
		t.Fatalf("/actuator/env %+v", env)
	}
	if a := in.get("/actuator/loggers/com.example"); a.status != 200 || !strings.Contains(string(a.body), `"effectiveLevel":"INFO"`) {
		t.Fatalf("/actuator/loggers/com.example: %d %s", a.status, a.body)
	}
	if a := in.get("/actuator/health"); a.status != 200 {
		t.Fatalf("/actuator/health: %d", a.status)
	}
	o.commit(map[string]string{"app.yml": open + busDebug + "greeting:\n  message: v2\n"})
	if a := in.post("/actuator/refresh"); a.status != 200 || !strings.Contains(string(a.body), "greeting.message") {
		t.Fatalf("/actuator/refresh: %d %s", a.status, a.body)
	}

	for path, want := range map[string]string{
		"/actuator/busrefresh":                       "**",
		"/actuator/busrefresh?destination=other":     "**",
		"/actuator/busrefresh/other":                 "other:**",
		"/actuator/busrefresh/app/dev":               "app:dev:**",
		"/actuator/busrefresh/app:dev:1:" + "x":      "app:dev:1:x",
		"/actuator/busrefresh/" + "app%3A1%3A%2A%2A": "app:1:**",
	} {
		if a := in.post(path); a.status != 204 {
			t.Fatalf("%s: %d %s", path, a.status, a.body)
		}
		deadline := time.After(5 * time.Second)
	wait:
		for {
			select {
			case e := <-seen:
				if e.Type == bus.RefreshType {
					if e.DestinationService != want {
						t.Errorf("%s: destination %q, want %q", path, e.DestinationService, want)
					}
					break wait
				}
			case <-deadline:
				t.Fatalf("%s: no refresh event", path)
			}
		}
	}
}

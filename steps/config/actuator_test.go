package config

import (
	"strconv"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// The scenarios' paths go where the target's paths say; other paths are sent as they are.
func TestOperationalPath(t *testing.T) {
	for _, tt := range []struct {
		paths      target.ConfigAppPaths
		path, want string
	}{
		{target.Boot1Paths, "/refresh", "/refresh"},
		{target.Boot1Paths, "/bus/refresh?destination=app-al*", "/bus/refresh?destination=app-al%2A"},
		{target.Boot1Paths, "/loggers/com.example", "/loggers/com.example"},
		{target.ActuatorPaths, "/refresh", "/actuator/refresh"},
		{target.ActuatorPaths, "/bus/refresh", "/actuator/busrefresh"},
		{target.ActuatorPaths, "/bus/refresh?destination=app:8080", "/actuator/busrefresh/app:8080"},
		{target.ActuatorPaths, "/bus/refresh?destination=a/b", "/actuator/busrefresh/a%2Fb"},
		{target.ActuatorPaths, "/env", "/actuator/env"},
		{target.ActuatorPaths, "/loggers/com.example.tck", "/actuator/loggers/com.example.tck"},
		{target.ActuatorPaths, "/loggers", "/actuator/loggers"},
		{target.ActuatorPaths, "/", "/"},
		{target.ActuatorPaths, "/random-quote", "/random-quote"},
		{target.ActuatorPaths, "/refreshments", "/refreshments"},
		{target.ActuatorPaths, "/bus/refresh?destination=a&other=b", "/bus/refresh?destination=a&other=b"},
	} {
		if got := operationalPath(tt.paths, tt.path); got != tt.want {
			t.Errorf("%s at %s: %q, want %q", tt.path, tt.paths.Refresh, got, tt.want)
		}
	}
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	v, err := core.DecodeJSON(s)
	if err != nil {
		t.Fatal(err)
	}
	return v.(map[string]any)
}

// /env is read in Boot 1.x's shape and in Boot 2's.
func TestReadEnvironmentInBothShapes(t *testing.T) {
	boot1 := readEnvironment(decode(t, `{"profiles":["dev"],"configService:r/app.yml":{"k":"v","p":"******"}}`))
	boot2 := readEnvironment(decode(t, `{"activeProfiles":["dev"],"propertySources":[{"name":"configserver:r/app.yml","properties":{"k":{"value":"v"},"p":{"value":"******"}}}]}`))
	for name, env := range map[string]environment{"boot1": boot1, "boot2": boot2} {
		if core.MustJSON(env.profiles) != `["dev"]` || len(env.sources) != 1 {
			t.Errorf("%s: %+v", name, env)
		}
		for _, props := range env.sources {
			if propertyText(props["k"]) != "v" || propertyText(props["p"]) != masked {
				t.Errorf("%s: %+v", name, props)
			}
		}
	}
}

func TestCheckEventFields(t *testing.T) {
	now := time.Now().UnixMilli()
	good := `{"type":"RefreshRemoteApplicationEvent","timestamp":` + itoa(now) +
		`,"originService":"a:1:x","destinationService":"**","id":"0d1c3f7e-5b2a-4c1e-9f3d-2a6b8c9d0e1f"}`
	if p := checkEventFields(decode(t, good)); p != "" {
		t.Fatal(p)
	}
	for name, e := range map[string]string{
		"seconds":       `{"type":"t","timestamp":` + itoa(now/1000) + `,"originService":"a","destinationService":"**","id":"0d1c3f7e-5b2a-4c1e-9f3d-2a6b8c9d0e1f"}`,
		"float":         `{"type":"t","timestamp":1.5,"originService":"a","destinationService":"**","id":"0d1c3f7e-5b2a-4c1e-9f3d-2a6b8c9d0e1f"}`,
		"no id":         `{"type":"t","timestamp":` + itoa(now) + `,"originService":"a","destinationService":"**"}`,
		"numeric id":    `{"type":"t","timestamp":` + itoa(now) + `,"originService":"a","destinationService":"**","id":1}`,
		"id not a UUID": `{"type":"t","timestamp":` + itoa(now) + `,"originService":"a","destinationService":"**","id":"x"}`,
	} {
		if checkEventFields(decode(t, e)) == "" {
			t.Errorf("%s: accepted", name)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

package configserver

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

const appYML = `# generic
greeting:
  message: Hello
  displayFortune: false
quoteServiceURL: http://localhost:8081/quotes
ratio: 0.5
retries: 3
empty:
nothing: ~
servers:
  - alpha
  - name: beta
    port: 8080
logging.level.com.example: INFO
`

func TestEnvironmentJSONShape(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": appYML})
	s := newServer(t, Options{URI: o.dir})
	head, _ := o.repo.Head()

	e := getEnv(t, s, "/greeting-config/default")
	if e.Name != "greeting-config" || !reflect.DeepEqual(e.Profiles, []string{"default"}) ||
		e.Label != "master" || e.Version != head.Hash().String() || e.State != nil {
		t.Fatalf("environment = %+v", e)
	}
	if len(e.PropertySources) != 1 || e.PropertySources[0].Name != o.dir+"/greeting-config.yml" {
		t.Fatalf("sources = %+v", e.PropertySources)
	}
	want := map[string]any{
		"greeting.message":          "Hello",
		"greeting.displayFortune":   false,
		"quoteServiceURL":           "http://localhost:8081/quotes",
		"ratio":                     0.5,
		"retries":                   float64(3),
		"empty":                     "",
		"nothing":                   "",
		"servers[0]":                "alpha",
		"servers[1].name":           "beta",
		"servers[1].port":           float64(8080),
		"logging.level.com.example": "INFO",
	}
	if got := e.PropertySources[0].Source; !reflect.DeepEqual(got, want) {
		t.Fatalf("source = %#v\nwant %#v", got, want)
	}
}

func TestEnvironmentKeepsFileOrderAndRawJSON(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "z: 1\na: true\nm: \"<&>\"\n"})
	s := newServer(t, Options{URI: "file://" + o.dir})
	body := get(s, "/app/default").Body.String()
	want := `"source":{"z":1,"a":true,"m":"<&>"}`
	if !strings.Contains(body, want) {
		t.Fatalf("body %s does not contain %s", body, want)
	}
	if !strings.Contains(body, `"state":null`) || !strings.Contains(body, `"name":"file://`+o.dir+`/app.yml"`) {
		t.Fatalf("body %s", body)
	}
}

func TestPrecedenceOrder(t *testing.T) {
	o := newOrigin(t, map[string]string{
		"app.yml":             "k: app\n",
		"app-dev.yml":         "k: app-dev\n",
		"app-db.yaml":         "k: app-db\n",
		"application.yml":     "k: shared\n",
		"application-dev.yml": "k: shared-dev\n",
		"application-db.yml":  "k: shared-db\n",
		"other.yml":           "k: other\n",
	})
	s := newServer(t, Options{URI: o.dir})
	prefix := o.dir + "/"
	tests := []struct {
		path string
		want []string
	}{
		{"/app/default", []string{"app.yml", "application.yml"}},
		// Spring Cloud Config's order: every profile file before every generic one, the last profile first,
		// and within one specificity the application's file before the shared one.
		{"/app/dev", []string{"app-dev.yml", "application-dev.yml", "app.yml", "application.yml"}},
		{"/app/dev,db", []string{"app-db.yaml", "application-db.yml", "app-dev.yml", "application-dev.yml", "app.yml", "application.yml"}},
		{"/app/db,dev", []string{"app-dev.yml", "application-dev.yml", "app-db.yaml", "application-db.yml", "app.yml", "application.yml"}},
		{"/app/dev,default", []string{"app-dev.yml", "application-dev.yml", "app.yml", "application.yml"}},
		{"/app/dev,db,dev", []string{"app-dev.yml", "application-dev.yml", "app-db.yaml", "application-db.yml", "app.yml", "application.yml"}},
		{"/unknown/dev", []string{"application-dev.yml", "application.yml"}},
		{"/application/dev", []string{"application-dev.yml", "application.yml"}},
	}
	for _, tt := range tests {
		e := getEnv(t, s, tt.path)
		if got := e.sourceNames(prefix); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("GET %s: sources %v, want %v", tt.path, got, tt.want)
		}
	}
	if e := getEnv(t, s, "/app/dev,db"); !reflect.DeepEqual(e.Profiles, []string{"dev", "db"}) {
		t.Errorf("profiles = %v", e.Profiles)
	}
}

func TestYmlWinsOverYamlAndEmptyFilesAreSkipped(t *testing.T) {
	o := newOrigin(t, map[string]string{
		"app.yml":   "k: yml\n",
		"app.yaml":  "k: yaml\n",
		"app-x.yml": "# only a comment\n",
	})
	s := newServer(t, Options{URI: o.dir})
	e := getEnv(t, s, "/app/x")
	if got := e.sourceNames(o.dir + "/"); !reflect.DeepEqual(got, []string{"app.yml"}) {
		t.Fatalf("sources %v", got)
	}
}

func TestUnknownApplicationWithoutSharedFiles(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: v\n"})
	s := newServer(t, Options{URI: o.dir})
	rec := get(s, "/nobody/default")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"propertySources":[]`) {
		t.Fatalf("got %d %s", rec.Code, rec.Body)
	}
}

func TestFilesComeFromGitNotDisk(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: committed\n"})
	s := newServer(t, Options{URI: o.dir})
	// An uncommitted edit in the origin's worktree is not configuration.
	writeFile(t, o.dir+"/app.yml", "k: uncommitted\n")
	writeFile(t, o.dir+"/app-dev.yml", "k: uncommitted\n")
	e := getEnv(t, s, "/app/dev")
	if len(e.PropertySources) != 1 || e.PropertySources[0].Source["k"] != "committed" {
		t.Fatalf("sources %+v", e.PropertySources)
	}
}

func TestApplicationInSubdirectory(t *testing.T) {
	o := newOrigin(t, map[string]string{"team/app.yml": "k: nested\n"})
	s := newServer(t, Options{URI: o.dir})
	e := getEnv(t, s, "/team(_)app/default")
	if e.Name != "team/app" || len(e.PropertySources) != 1 || e.PropertySources[0].Source["k"] != "nested" {
		t.Fatalf("environment %+v", e)
	}
}

func TestHealthAndHead(t *testing.T) {
	o := newOrigin(t, map[string]string{"app.yml": "k: v\n"})
	s := newServer(t, Options{URI: o.dir})
	if rec := get(s, "/health"); rec.Code != 200 || rec.Body.String() != `{"status":"UP"}`+"\n" {
		t.Fatalf("health: %d %q", rec.Code, rec.Body)
	}
	if rec := do(s, http.MethodHead, "/app/default"); rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("HEAD: %d %v", rec.Code, rec.Header())
	}
}

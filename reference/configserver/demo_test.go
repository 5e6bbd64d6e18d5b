package configserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCreateDemoRepository(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "config-repo")
	created, err := CreateDemoRepository(dir)
	if err != nil || !created {
		t.Fatalf("first call: %v %v", created, err)
	}
	s := newServer(t, Options{URI: dir})
	e := getEnv(t, s, "/greeting-config/dev")
	if len(e.PropertySources) != 2 {
		t.Fatalf("sources %+v", e.PropertySources)
	}
	dev, generic := e.PropertySources[0].Source, e.PropertySources[1].Source
	if dev["greeting.displayFortune"] != true || generic["greeting.displayFortune"] != false ||
		generic["security.basic.enabled"] != true || generic["management.security.enabled"] != true ||
		generic["quoteServiceURL"] != "http://localhost:8081/quotes" || generic["greeting.message"] == nil ||
		generic["logging.level.com.example"] != "INFO" || dev["logging.level.com.example"] != "DEBUG" {
		t.Fatalf("demo configuration: %+v", e.PropertySources)
	}

	// Idempotent: an existing repository, even edited, is left alone.
	edited := filepath.Join(dir, "greeting-config.yml")
	writeFile(t, edited, "greeting:\n  message: mine\n")
	created, err = CreateDemoRepository(dir)
	if err != nil || created {
		t.Fatalf("second call: %v %v", created, err)
	}
	if b, _ := os.ReadFile(edited); !strings.Contains(string(b), "mine") {
		t.Fatal("existing repository changed")
	}
	// A person's commit in the demo repository is served at once.
	o := &origin{tb: t, dir: dir}
	var errOpen error
	if o.repo, errOpen = openRepo(dir); errOpen != nil {
		t.Fatal(errOpen)
	}
	o.commit(map[string]string{"greeting-config.yml": "greeting:\n  message: mine\n"})
	if e := getEnv(t, s, "/greeting-config/default"); e.PropertySources[0].Source["greeting.message"] != "mine" {
		t.Fatalf("after a commit: %+v", e)
	}
}

func TestCreateDemoRepositoryRefusesOtherData(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "notes.txt"), "mine")
	if _, err := CreateDemoRepository(dir); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("non-empty directory: %v", err)
	}
}

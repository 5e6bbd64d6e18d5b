package configserver

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func documentOrigin(t *testing.T) (*origin, *Server) {
	o := newOrigin(t, map[string]string{
		"app.yml": `greeting:
  message: Hello
  displayFortune: false
list: [a, b, c]
port: 8080
`,
		"app-dev.yml":     "greeting:\n  displayFortune: true\nlist: [x]\n",
		"application.yml": "shared: yes\nport: 1\n",
	})
	o.checkout("release/1", true)
	o.commit(map[string]string{"app-dev.yml": "greeting:\n  message: Release\n"})
	o.checkout("master", false)
	return o, newServer(t, Options{URI: o.dir})
}

func TestFlatDocuments(t *testing.T) {
	_, s := documentOrigin(t)
	want := map[string]any{
		"greeting": map[string]any{"message": "Hello", "displayFortune": true},
		"list":     []any{"x"},
		"port":     8080,
		"shared":   "yes",
	}
	for _, path := range []string{"/app-dev.yml", "/app-dev.yaml", "/master/app-dev.yml"} {
		rec := get(s, path)
		if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/yaml") {
			t.Fatalf("GET %s: %d %v %s", path, rec.Code, rec.Header(), rec.Body)
		}
		var got map[string]any
		if err := yaml.Unmarshal(rec.Body.Bytes(), &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("GET %s: %v %#v\n%s", path, err, got, rec.Body)
		}
	}

	rec := get(s, "/app-dev.json")
	var got map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("json: %v %s", err, rec.Body)
	}
	if got["greeting"].(map[string]any)["displayFortune"] != true || len(got["list"].([]any)) != 1 || got["port"] != float64(8080) {
		t.Errorf("json document %v", got)
	}

	rec = get(s, "/app-dev.properties")
	wantProps := "greeting.displayFortune: true\ngreeting.message: Hello\nlist[0]: x\nport: 8080\nshared: yes\n"
	if rec.Body.String() != wantProps || rec.Header().Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("properties:\n%s\nwant:\n%s", rec.Body, wantProps)
	}

	rec = get(s, "/release(_)1/app-dev.properties")
	if !strings.Contains(rec.Body.String(), "greeting.message: Release\n") {
		t.Errorf("labelled properties: %d %s", rec.Code, rec.Body)
	}
}

func TestFlatDocumentNameSplitsAtLastHyphen(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": "a: 1\n", "greeting-config-dev.yml": "a: 2\n"})
	s := newServer(t, Options{URI: o.dir})
	if body := get(s, "/greeting-config-dev.properties").Body.String(); body != "a: 2\n" {
		t.Fatalf("got %q", body)
	}
	if body := get(s, "/greeting-config-default.properties").Body.String(); body != "a: 1\n" {
		t.Fatalf("got %q", body)
	}
	if rec := get(s, "/nohyphen.yml"); rec.Code != 404 {
		t.Fatalf("document name without a hyphen: %d", rec.Code)
	}
	if rec := get(s, "/nobody-default.yml"); rec.Code != 200 || rec.Body.String() != "{}\n" {
		t.Fatalf("empty document: %d %q", rec.Code, rec.Body)
	}
}

func TestMergeReplacesListsWhole(t *testing.T) {
	high := newProps()
	high.set("l[0]", "h")
	low := newProps()
	low.set("l[0]", "a")
	low.set("l[1]", "b")
	low.set("k", "low")
	merged := mergeSources([]propertySource{{Source: high}, {Source: low}})
	if !reflect.DeepEqual(merged.keys, []string{"k", "l[0]"}) || merged.values["l[0]"] != "h" {
		t.Fatalf("merged %v %v", merged.keys, merged.values)
	}
}

func TestUnflattenToleratesAnyKeys(t *testing.T) {
	p := newProps()
	for _, k := range []string{"a", "a.b", "a[0]", "x[1]", "x[0]", "x.y", "[0]", "q[x]", "q[]", "b..c", ".", "", "n[99999999999999999999]", "z[-1]"} {
		p.set(k, k)
	}
	if _, err := yaml.Marshal(unflatten(p).yamlNode()); err != nil {
		t.Fatal(err)
	}
	out, err := renderDocument(p, ".json")
	if err != nil || !json.Valid(out) {
		t.Fatalf("json %v %s", err, out)
	}
	var got map[string]any
	_ = json.Unmarshal(out, &got)
	if got["a"].(map[string]any)["b"] != "a.b" || !reflect.DeepEqual(got["x"], []any{"x[0]", "x[1]"}) || got["q[x]"] != "q[x]" {
		t.Fatalf("unflattened %s", out)
	}
}

package quotes

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

func serve(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(New(nil))
	t.Cleanup(srv.Close)
	return srv
}

func fetch(t *testing.T, method, url string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

func TestRandomQuoteHasQuotersShape(t *testing.T) {
	srv := serve(t)
	seen := map[int]bool{}
	for _, path := range []string{"/", "/quotes", "/api/random"} {
		for range 20 {
			resp, body := fetch(t, http.MethodGet, srv.URL+path)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
			}
			var m map[string]map[string]any
			_ = json.Unmarshal(body, &m)
			var r Record
			if err := json.Unmarshal(body, &r); err != nil || r.Type != "success" || len(m["value"]) != 2 {
				t.Fatalf("%s: %s", path, body)
			}
			if q, ok := byID(r.Value.ID); !ok || q != r.Value {
				t.Fatalf("%s: %+v is not in the collection", path, r.Value)
			}
			seen[r.Value.ID] = true
		}
	}
	if len(seen) < 2 {
		t.Fatalf("60 random quotes were all the same: %v", seen)
	}
}

func TestQuoteByID(t *testing.T) {
	srv := serve(t)
	resp, body := fetch(t, http.MethodGet, srv.URL+"/api/3")
	want := `{"type":"success","value":{"id":3,"quote":"Brevity is the soul of wit. -- William Shakespeare"}}` + "\n"
	if resp.StatusCode != 200 || string(body) != want {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	for path, status := range map[string]int{
		"/api/0": 400, "/api/-1": 400, "/api/x": 400, "/api/": 400, "/api/99": 404, "/api/1/2": 400, "/nope": 404,
	} {
		resp, body := fetch(t, http.MethodGet, srv.URL+path)
		var e errorBody
		if err := json.Unmarshal(body, &e); resp.StatusCode != status || err != nil || e.Type != "error" || e.Message == "" {
			t.Errorf("%s: %d %s, want %d and a JSON error", path, resp.StatusCode, body, status)
		}
	}
}

func TestAllQuotes(t *testing.T) {
	srv := serve(t)
	_, body := fetch(t, http.MethodGet, srv.URL+"/api")
	var rs []Record
	if err := json.Unmarshal(body, &rs); err != nil || len(rs) != len(collection) || len(rs) < 20 {
		t.Fatalf("%v: %d records", err, len(rs))
	}
	for i, r := range rs {
		if r.Value.ID != i+1 || !strings.Contains(r.Value.Quote, " -- ") {
			t.Errorf("record %d: %+v", i, r)
		}
	}
	if !slices.Equal(All()[:1], []Quote{{1, collection[0]}}) {
		t.Fatal("All")
	}
}

func TestMethods(t *testing.T) {
	srv := serve(t)
	resp, body := fetch(t, http.MethodHead, srv.URL+"/api/random")
	if resp.StatusCode != 200 || len(body) != 0 {
		t.Fatalf("HEAD: %d %q", resp.StatusCode, body)
	}
	resp, body = fetch(t, http.MethodPost, srv.URL+"/api/random")
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" || !strings.Contains(string(body), `"type":"error"`) {
		t.Fatalf("POST: %d %v %s", resp.StatusCode, resp.Header, body)
	}
}

func TestHealth(t *testing.T) {
	srv := serve(t)
	if resp, body := fetch(t, http.MethodGet, srv.URL+"/health"); resp.StatusCode != 200 || string(body) != `{"status":"UP"}`+"\n" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}

package configapp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// FuzzServeHTTP sends arbitrary methods, paths and headers: nothing may
// panic, and nothing may answer 500, because the repository is valid.
func FuzzServeHTTP(f *testing.F) {
	o := newOrigin(f, map[string]string{"greeting-config.yml": "management:\n  security:\n    enabled: false\ngreeting:\n  displayFortune: true\n"})
	in := startApp(f, Options{ConfigURL: startConfigServer(f, o).URL})
	for _, seed := range [][4]string{
		{"GET", "/", "application/json", ""}, {"POST", "/refresh", "", ""}, {"GET", "/loggers/a.b", "", "Basic dXNlcjp4"},
		{"GET", "/random-quote", "text/html;q=0.1, application/json", "Basic !!"}, {"PUT", "/env", "*/*", "Bearer x"},
		{"GET", "/loggers/%2e%2e", "", ""}, {"POST", "/bus/refresh?destination=a:**", "", ""},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	f.Fuzz(func(t *testing.T, method, target, accept, authorization string) {
		u, err := url.ParseRequestURI(target)
		if err != nil {
			u = &url.URL{Path: target}
		}
		r := &http.Request{Method: method, URL: u, Header: http.Header{}, Body: http.NoBody}
		r.Header.Set("Accept", accept)
		r.Header.Set("Authorization", authorization)
		rec := httptest.NewRecorder()
		in.app.ServeHTTP(rec, r)
		if rec.Code == http.StatusInternalServerError {
			t.Fatalf("%s %q: %d %s", method, target, rec.Code, rec.Body)
		}
	})
}

// FuzzEnvironment feeds arbitrary configuration server answers to the
// decoder and the binding: they may be refused, never panic.
func FuzzEnvironment(f *testing.F) {
	f.Add([]byte(`{"name":"a","propertySources":[{"name":"x","source":{"greeting.displayFortune":"yes","logging.level.a":"DEBUG"}}]}`))
	f.Add([]byte(`{"propertySources":[{"source":null},{"source":{"a":{"b":[1,2]}}}]}`))
	f.Add([]byte(`{"propertySources":[{"source":[]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var env environment
		if json.Unmarshal(data, &env) != nil {
			return
		}
		s, _, err := newSnapshot(&env, levelInfo)
		if err != nil {
			return
		}
		changedKeys(s.merged, nil)
		s.settings.levels.effective("a.b.c")
	})
}

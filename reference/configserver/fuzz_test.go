package configserver

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// FuzzRouter feeds arbitrary paths to a server whose repository holds only
// valid files: nothing may panic, and no answer may be a 5xx, because no
// path can make such a repository fail.
func FuzzRouter(f *testing.F) {
	o := newOrigin(f, map[string]string{
		"app.yml":             appYML,
		"app-dev.yml":         "greeting:\n  displayFortune: true\n",
		"application.yml":     "shared: 1\n",
		"team/app.yml":        "k: v\n",
		"application-dev.yml": "list: [a, {b: c}]\n",
	})
	o.checkout("feature/x", true)
	o.tag("v1", true)
	s := newServer(f, Options{URI: o.dir})
	for _, seed := range []string{
		"/app/default", "/app/dev,db/master", "/app-dev.yml", "/master/app-dev.properties",
		"/team(_)app/dev/feature(_)x", "/app/default/v1", "/app/default/0123abc", "/health",
		"/../etc/passwd", "/a%2Fb/c", "/a/b/%00", "/a/b/c/d", "//", "/app/default/..%2F",
		"/app-.json", "/-.yml", "/app/,/x", "/app/default/a@{1}", "/%C3%28/x",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, path string) {
		check := func(u *url.URL) {
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, &http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}})
			if rec.Code >= 500 {
				t.Fatalf("path %q (escaped %q): %d %s", path, u.EscapedPath(), rec.Code, rec.Body)
			}
		}
		check(&url.URL{Path: path})
		if u, err := url.ParseRequestURI(path); err == nil {
			check(u)
		}
	})
}

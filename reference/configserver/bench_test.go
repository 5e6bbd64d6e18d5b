package configserver

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/fortune-tck/fortune-tck/reference/internal/httpx"
)

// BenchmarkEnvironment compares the cost of answering GET /{app}/{profile}
// with a handler that only writes a fixed body of similar size:
//
//	Baseline     fixed JSON body, no work
//	Unchanged    full request on an unchanged repository (fetch + cache hit)
//	AfterCommit  a commit lands before each request (fetch + parse + build)
func BenchmarkEnvironment(b *testing.B) {
	o := newOrigin(b, map[string]string{"greeting-config.yml": appYML, "application.yml": "shared: 1\n"})
	s := newServer(b, Options{URI: o.dir})
	path := "/greeting-config/default"
	body := get(s, path).Body.Bytes()

	b.Run("Baseline", func(b *testing.B) {
		fixed := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			httpx.WriteBody(w, http.StatusOK, "application/json", body)
		})
		benchGet(b, fixed, path, nil)
	})
	b.Run("Unchanged", func(b *testing.B) {
		benchGet(b, s, path, nil)
	})
	b.Run("AfterCommit", func(b *testing.B) {
		i := 0
		benchGet(b, s, path, func() {
			i++
			o.commit(map[string]string{"greeting-config.yml": appYML + "counter: " + strconv.Itoa(i) + "\n"})
		})
	})
}

// benchGet serves path through h b.N times; before, if set, runs untimed
// ahead of each request.
func benchGet(b *testing.B, h http.Handler, path string, before func()) {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if before != nil {
			b.StopTimer()
			before()
			b.StartTimer()
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
	}
}

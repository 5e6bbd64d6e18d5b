package fortune

import (
	"github.com/fortune-tck/fortune-tck/internal/cpubench"

	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/fortune-tck/fortune-tck/reference/internal/authtest"
)

// BenchmarkFortune compares one authorized GET through each validation
// method with a handler that only writes a fortune, in the same run:
//
//	Baseline          a fixed fortune, no token check
//	CheckToken        a call to the authorization server's check_token per request
//	CheckTokenCached  the same with the answer cached (one call per TTL)
//	JWT               a local RS256 verification, exp, iss and scope checks
func BenchmarkFortune(b *testing.B) {
	as := authtest.Start(b)
	token := as.ResourceClient(b, "reader", 0, RequiredScope)
	b.Run("Baseline", func(b *testing.B) {
		benchGet(b, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { writeFortune(w, collection[0]) }), token)
	})
	quiet := slog.New(slog.DiscardHandler)
	b.Run("CheckToken", func(b *testing.B) {
		benchGet(b, start(b, as, Options{Logger: quiet}).srv, token)
	})
	b.Run("CheckTokenCached", func(b *testing.B) {
		benchGet(b, start(b, as, Options{Logger: quiet, CacheSize: 100}).srv, token)
	})
	b.Run("JWT", func(b *testing.B) {
		benchGet(b, start(b, as, Options{Logger: quiet, Validation: ValidateJWT}).srv, token)
	})
}

// benchGet sends authorized GETs to h. Besides ns/op it reports cpu-ns/op,
// the process's CPU time per request: with check_token, the fortune
// service's and the authorization server's together, which a busy machine
// disturbs less than ns/op.
func benchGet(b *testing.B, h http.Handler, token string) {
	b.ReportAllocs()
	defer cpubench.Report(b)()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
}

package routing

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/fortune-tck/fortune-tck/reference/gateway/ratelimit"
)

// headerLimit is the x-ratelimit-limit a first request on rt gets.
func headerLimit(t *testing.T, rt *Route) string {
	t.Helper()
	if rt == nil {
		t.Fatal("no route")
	}
	d := ratelimit.New(ratelimit.Options{}).Check(context.Background(), httptest.NewRequest("GET", "/", nil), netip.Addr{}, rt.Limits)
	h := http.Header{}
	d.SetHeaders(h)
	return h.Get("x-ratelimit-limit")
}

package greeting

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestPagesEscape: names and fortunes come from other services; the pages
// show them as text.
func TestPagesEscape(t *testing.T) {
	s, _ := New(Options{})
	rec := httptest.NewRecorder()
	s.renderFortune(rec, httptest.NewRequest(http.MethodGet, "/", nil), &viewer{user: "<script>x</script>", csrf: `"><b>`}, "<i>fortune</i>")
	body := rec.Body.String()
	if strings.Contains(body, "<script>x") || strings.Contains(body, "<i>fortune") || strings.Contains(body, `"><b>`) {
		t.Fatalf("unescaped:\n%s", body)
	}
	rec = httptest.NewRecorder()
	s.renderError(rec, httptest.NewRequest(http.MethodGet, "/", nil), http.StatusNotFound, nil, "Not found", "<b>no</b>")
	if strings.Contains(rec.Body.String(), "<b>no") || strings.Contains(rec.Body.String(), "Sign out") {
		t.Fatalf("error page:\n%s", rec.Body)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, o := range []Options{
		{URL: "http://x/app"}, {URL: "ftp://x"}, {AuthURL: "http://"}, {FortuneURL: "http://x?y"}, {Timeout: -1},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	s, err := New(Options{URL: "https://greeting.example/"})
	if err != nil || s.RedirectURI() != "https://greeting.example/" || !s.sessions.secure {
		t.Fatalf("%v %v", err, s)
	}
}

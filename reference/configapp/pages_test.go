package configapp

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/reference/quotes"
)

func TestGreetingPage(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": open + "greeting:\n  message: Hi <there> & \"you\"\n"})
	in := startApp(t, Options{ConfigURL: startConfigServer(t, o).URL})
	a := in.get("/")
	if a.status != 200 || a.header.Get("Content-Type") != "application/json" || string(a.body) != `{"msg":"Hi <there> & \"you\""}`+"\n" {
		t.Fatalf("JSON: %d %s %s", a.status, a.header, a.body)
	}
	a = in.do(request{method: http.MethodGet, path: "/", accept: "text/html"})
	page := string(a.body)
	if a.status != 200 || a.header.Get("Content-Type") != "text/html; charset=utf-8" ||
		!strings.Contains(page, `<h1 id="msg">Hi &lt;there&gt; &amp; &#34;you&#34;</h1>`) || strings.Contains(page, `id="fortune"`) ||
		!strings.Contains(page, `<html lang="en">`) || !strings.Contains(page, "<title>Greeting") {
		t.Fatalf("HTML: %d %s", a.status, page)
	}
	if a := in.do(request{method: http.MethodHead, path: "/"}); a.status != 200 || len(a.body) != 0 {
		t.Fatalf("HEAD: %d %q", a.status, a.body)
	}
}

func TestGreetingPageShowsAFortuneWhenConfigured(t *testing.T) {
	o := newOrigin(t, map[string]string{"greeting-config.yml": open + "greeting:\n  displayFortune: true\n"})
	in := startApp(t, Options{ConfigURL: startConfigServer(t, o).URL})
	m := in.greeting()
	if m["msg"] != "Greetings!!!" || !slices.Contains(fortunes, m["fortune"]) || len(m) != 2 {
		t.Fatalf("model %v", m)
	}
	page := string(in.do(request{method: http.MethodGet, path: "/"}).body)
	if !strings.Contains(page, `<blockquote id="fortune">`) {
		t.Fatalf("page without fortune:\n%s", page)
	}
}

func TestQuotePage(t *testing.T) {
	qs := httptest.NewServer(quotes.New(nil))
	defer qs.Close()
	o := newOrigin(t, map[string]string{"greeting-config.yml": open + "quoteServiceURL: " + qs.URL + "/api/random\n"})
	in := startApp(t, Options{ConfigURL: startConfigServer(t, o).URL})
	var m map[string]string
	a := in.get("/random-quote")
	a.json(t, &m)
	known := slices.ContainsFunc(quotes.All(), func(q quotes.Quote) bool { return q.Quote == m["quote"] })
	if a.status != 200 || !known || m["uri"] != qs.URL+"/api/random" || len(m) != 2 {
		t.Fatalf("%d %v", a.status, m)
	}
	page := string(in.do(request{method: http.MethodGet, path: "/random-quote"}).body)
	if !strings.Contains(page, `<blockquote id="quote">`) || !strings.Contains(page, `href="`+qs.URL+`/api/random"`) {
		t.Fatalf("page:\n%s", page)
	}
}

func TestQuotePageWithoutAQuote(t *testing.T) {
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/garbage":
			w.Write([]byte("<html>not json</html>"))
		case "/empty":
			w.Write([]byte(`{"type":"success","value":{"id":1}}`))
		default:
			http.Error(w, "boom", http.StatusInternalServerError)
		}
	}))
	defer bad.Close()
	tests := []struct {
		uri    string
		status int
		want   string
	}{
		{"", 200, "quoteServiceURL is not set"},
		{bad.URL + "/fail", 502, "answered 500"},
		{bad.URL + "/garbage", 502, "did not answer a quote record"},
		{bad.URL + "/empty", 502, "did not answer a quote record"},
		{"http://" + unreachable + "/", 502, "quote source unreachable"},
		{"file:///etc/passwd", 502, "is not an http(s) URL"},
		{"javascript:alert(1)", 502, "is not an http(s) URL"},
	}
	o := newOrigin(t, map[string]string{"greeting-config.yml": open})
	cs := startConfigServer(t, o)
	in := startApp(t, Options{ConfigURL: cs.URL})
	for _, tt := range tests {
		o.commit(map[string]string{"greeting-config.yml": open + "quoteServiceURL: '" + tt.uri + "'\n"})
		in.refresh()
		var m map[string]string
		a := in.get("/random-quote")
		a.json(t, &m)
		if a.status != tt.status || !strings.Contains(m["error"], tt.want) || m["uri"] != tt.uri || m["quote"] != "" {
			t.Errorf("%q: %d %v", tt.uri, a.status, m)
		}
		page := in.do(request{method: http.MethodGet, path: "/random-quote"})
		if page.status != tt.status || !strings.Contains(string(page.body), `role="alert">No quote is available`) || strings.Contains(string(page.body), `href="javascript`) {
			t.Errorf("%q: page %d\n%s", tt.uri, page.status, page.body)
		}
	}
}

func TestTemplatesRender(t *testing.T) {
	for page, model := range map[string]any{
		"greeting": greetingModel{Msg: "m", Fortune: "f"},
		"quote":    quoteModel{Quote: "q", URI: "http://x"},
	} {
		rec := httptest.NewRecorder()
		render(rec, httptest.NewRequest(http.MethodGet, "/", nil), 200, page, model)
		if rec.Code != 200 || !strings.HasPrefix(rec.Body.String(), "<!DOCTYPE html>") {
			t.Errorf("%s: %d %s", page, rec.Code, rec.Body)
		}
	}
}

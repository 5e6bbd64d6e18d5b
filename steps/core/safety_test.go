package core

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/target"
)

// A request to an origin the target file does not declare is never sent, and a redirect there is an answer,
// never followed; the undeclared server counts no hit.
func TestTheClientContactsOnlyDeclaredOrigins(t *testing.T) {
	var hits atomic.Int64
	undeclared := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer undeclared.Close()
	declared := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, undeclared.URL+"/latest/meta-data/", http.StatusFound)
	}))
	defer declared.Close()
	s := NewScenario(runOf(declared))
	if err := s.Send(Request{Method: http.MethodGet, URL: declared.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	if s.Last.Status != http.StatusFound {
		t.Errorf("the redirect came back as %d", s.Last.Status)
	}
	err := s.Send(Request{Method: http.MethodGet, URL: undeclared.URL + "/latest/meta-data/?secret=1"})
	var uo *UndeclaredOriginError
	if !errors.As(err, &uo) || !strings.Contains(err.Error(), undeclared.URL+"/latest/meta-data/") || strings.Contains(err.Error(), "secret=1") {
		t.Errorf("err = %v, want an UndeclaredOriginError naming the URL without its query", err)
	}
	req, _ := http.NewRequest(http.MethodGet, undeclared.URL, nil)
	if err := s.Do(req); !errors.As(err, &uo) {
		t.Errorf("Do: err = %v", err)
	}
	// The dialer refuses too, whatever the request's URL says.
	tr := NewTransport(NewOrigins(&target.Target{}), nil).(*policyTransport).next.(*http.Transport)
	if _, err := tr.DialContext(context.Background(), "tcp", strings.TrimPrefix(undeclared.URL, "http://")); err == nil {
		t.Error("the dialer connected to an undeclared address")
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the undeclared server was hit %d times", n)
	}
}

// A request the target does not answer ends when the run is stopped (a Ctrl-C), naming the request.
func TestARequestEndsWithItsScenario(t *testing.T) {
	release := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	defer silent.Close()
	defer close(release)
	r := runOf(silent)
	ctx, cancel := context.WithCancel(context.Background())
	r.SetContext(ctx)
	s := NewScenario(r)
	time.AfterFunc(200*time.Millisecond, cancel)
	began := time.Now()
	err := s.Send(Request{Method: http.MethodGet, URL: silent.URL + "/slow"})
	if err == nil || !strings.Contains(err.Error(), "GET "+silent.URL+"/slow") || !strings.Contains(err.Error(), "the run was stopped") {
		t.Errorf("err = %v", err)
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("the request took %s after its scenario ended", took)
	}
	// What the run was waiting for when it was stopped stays named, for the message of a run out of time.
	if w := r.StillWaiting(); len(w) != 1 || !strings.HasPrefix(w[0], "GET "+silent.URL+"/slow (for ") {
		t.Errorf("still waiting for %v", w)
	}
}

// Every secret the run knows is masked wherever it shows, whatever the field is called: a password field
// named pw, a form sent with GET, a hidden field, a 500 page that echoes the request, a token response.
func TestEvidenceMasksSecretsByValue(t *testing.T) {
	const password, secret = "alice-password", "w3b&<secret>"
	r := NewRun(&target.Target{Services: target.Services{AuthServer: &target.AuthServer{Fixtures: &target.Fixtures{
		Users:   target.Users{Reader: &target.User{Username: "alice", Password: password}},
		Clients: target.Clients{Web: &target.Client{ClientID: "web", ClientSecret: secret}}}}}})
	s := NewScenario(r)
	basic := base64.StdEncoding.EncodeToString([]byte("web:" + url.QueryEscape(secret)))
	s.Keep(&Exchange{Method: http.MethodGet, URL: "http://as.test/login?user=alice&pw=" + url.QueryEscape(password)})
	s.Keep(&Exchange{Method: http.MethodPost, URL: "http://as.test/login", RequestHeader: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
		RequestBody: []byte("user=alice&pw=" + password), Status: 200, Header: http.Header{"X-Echo": {"Basic " + basic}},
		Body: []byte(`<form><input type="hidden" name="h" value="` + password + `"></form>`)})
	s.Keep(&Exchange{Method: http.MethodPost, URL: "http://as.test/token", Status: 500,
		Body: []byte(`<p>client_secret=w3b&amp;&lt;secret&gt; ` + `{"client_secret":"w3b\u0026\u003csecret\u003e"}</p>`)})
	s.Keep(&Exchange{Method: http.MethodPost, URL: "http://as.test/token", Status: 200,
		Body: []byte(`{"access_token":"at-0123456789","refresh_token":"rt-0123456789","token_type":"bearer"}`)})
	s.Keep(&Exchange{Method: http.MethodGet, URL: "http://as.test/userinfo?echo=at-0123456789", Status: 200})
	var b strings.Builder
	for _, e := range s.Evidence() {
		b.WriteString(strings.Join([]string{e.URL, e.RequestBody, e.ResponseBody, e.ResponseHeaders.Get("X-Echo")}, "\n"))
	}
	raw := b.String()
	for _, leak := range []string{password, "w3b", "secret&gt", `secret\u003e`, basic, "at-0123456789", "rt-0123456789"} {
		if strings.Contains(string(raw), leak) {
			t.Errorf("the evidence shows %q:\n%s", leak, raw)
		}
	}
	if !strings.Contains(string(raw), "user=alice&pw=***") {
		t.Errorf("the masking took more than the secrets:\n%s", raw)
	}
	if got := r.Secrets.Mask("a \"pw\" field"); got != "a \"pw\" field" {
		t.Errorf("Mask changed text without a secret: %q", got)
	}
}

// Headers are cut in evidence, and the cut said; a body too.
func TestEvidenceCutsHeadersAndSaysSo(t *testing.T) {
	h := http.Header{"Content-Type": {"text/html"}}
	for i := range 64 {
		h.Add("X-Flood", strings.Repeat(string(rune('a'+i%26)), 8<<10))
	}
	s := NewScenario(NewRun(nil))
	s.Keep(&Exchange{Method: http.MethodGet, URL: "http://t/", Status: 500, Header: h, Body: []byte(strings.Repeat("x", 1<<20))})
	ev := s.Evidence()[0]
	if n := headerBytes(ev.ResponseHeaders); n > maxEvidenceHeaders+200 {
		t.Errorf("the evidence keeps %d bytes of headers", n)
	}
	if ev.ResponseHeaders.Get("Content-Type") != "text/html" || !strings.Contains(ev.ResponseHeaders.Get(CutHeader), "bytes; ") {
		t.Errorf("the headers kept are %v", ev.ResponseHeaders)
	}
	if len(ev.ResponseBody) > maxEvidenceBody || ev.ResponseBodySize != 1<<20 {
		t.Errorf("the body is kept as %d bytes of %d", len(ev.ResponseBody), ev.ResponseBodySize)
	}
}

// Escape sequences from a target never reach a terminal as they are.
func TestPrintableEscapesControls(t *testing.T) {
	in := "bad\x1b]0;pwned\x07\x1b[2J\r\u202eevil\u009b31m\xff ok\n\tnext"
	got := Printable(in)
	for _, c := range []string{"\x1b", "\x07", "\r", "\u202e", "\u009b", "\xff"} {
		if strings.Contains(got, c) {
			t.Errorf("Printable(%q) = %q keeps %q", in, got, c)
		}
	}
	if !strings.Contains(got, `\x1b]0;pwned\x07`) || !strings.HasSuffix(got, " ok\n\tnext") {
		t.Errorf("Printable(%q) = %q", in, got)
	}
	if s := "plain text, é and 日本"; Printable(s) != s {
		t.Errorf("Printable changed %q", s)
	}
}

// A secret that is a word of the suite's own text (a demo's client secret "secret") is masked in the
// evidence, which shows the target's bytes, and left whole elsewhere, where masking it would cut the suite's
// own words.
func TestAWeakSecretIsMaskedInTheEvidenceOnly(t *testing.T) {
	r := NewRun(&target.Target{Services: target.Services{AuthServer: &target.AuthServer{Fixtures: &target.Fixtures{
		Clients: target.Clients{Web: &target.Client{ClientID: "web", ClientSecret: "secret"}, Resource: &target.Client{ClientID: "rs", ClientSecret: "rs-s3cret"}}}}}})
	r.Secrets.SetVocabulary("Scenario: the token check refuses a resource client with a wrong secret")
	if got := r.Secrets.Mask("with-a-wrong-secret, rs-s3cret"); got != "with-a-wrong-secret, ***" {
		t.Errorf("Mask = %q", got)
	}
	s := NewScenario(r)
	s.Keep(&Exchange{Method: http.MethodGet, URL: "http://t/", Status: 500, Body: []byte("client_secret is secret")})
	if got := s.Evidence()[0].ResponseBody; got != "client_*** is ***" {
		t.Errorf("the evidence shows %q", got)
	}
}

// The secret parameters of a URL in a message are masked by name, whatever their value.
func TestMaskParamsMasksSecretParametersByName(t *testing.T) {
	in := `sent back at once (https://c.invalid/cb?code=eyJ.x.y&state=s1) and http://t/login?user=a&password=p#f; code="kept"`
	want := `sent back at once (https://c.invalid/cb?code=***&state=s1) and http://t/login?user=a&password=***#f; code="kept"`
	if got := MaskParams(in); got != want {
		t.Errorf("MaskParams =\n%s\nwant\n%s", got, want)
	}
}

// The broker's password in services.configApp.broker is a secret of the run: a config app whose /bus/refresh
// error repeats its broker URL shows it masked.
func TestTheBrokersPasswordIsMasked(t *testing.T) {
	r := NewRun(&target.Target{Services: target.Services{ConfigApp: &target.ConfigApp{
		Broker: "amqp://bus-user:bus-pa55word@127.0.0.1:5672/"}}})
	got := r.Secrets.Mask("503: cannot reach amqp://bus-user:bus-pa55word@127.0.0.1:5672/")
	if strings.Contains(got, "bus-pa55word") {
		t.Errorf("the broker's password shows: %q", got)
	}
}

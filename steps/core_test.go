package steps

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// echo answers with what it received, so a test can see what the exchange core sent.
func echo(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		user, pass, _ := r.BasicAuth()
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusTeapot)
		_, _ = io.WriteString(w, strings.Join([]string{r.Method, r.Host, r.Header.Get("Content-Type"),
			r.Header.Get("Accept"), user, pass, r.Header.Get("Authorization"), string(body)}, "|"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestAPISendsAFormWithBasicCredentialsFormEncoded(t *testing.T) {
	srv := echo(t)
	s := newScenario(New(Env{}))
	err := s.api(request{method: http.MethodPost, url: srv.URL + "/token", form: url.Values{"grant_type": {"client_credentials"}},
		basic: &credentials{"my client", "s:cret"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "POST|" + strings.TrimPrefix(srv.URL, "http://") + "|application/x-www-form-urlencoded|application/json|my+client|s%3Acret|"
	if got := string(s.last.body); !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "|grant_type=client_credentials") {
		t.Errorf("the server received %q, want it to start with %q and end with the form", got, want)
	}
	if s.last.status != http.StatusTeapot || s.last.method != http.MethodPost || s.last.url != srv.URL+"/token" {
		t.Errorf("the exchange kept is %+v", s.last)
	}
}

func TestSendKeepsAnEmptyFormAJSONBodyAndTheRequestIDAsEvidence(t *testing.T) {
	srv := echo(t)
	s := newScenario(New(Env{}))
	if err := s.send(request{method: http.MethodPost, url: srv.URL, form: url.Values{}}); err != nil {
		t.Fatal(err)
	}
	if got := string(s.last.body); !strings.Contains(got, "|application/x-www-form-urlencoded||") {
		t.Errorf("an empty form was sent as %q, want its media type and no Accept", got)
	}
	err := s.send(request{method: http.MethodPut, url: srv.URL, json: map[string]int{"n": 1}, bearer: "tok",
		header: map[string]string{"x-request-id": "tck-1", "Host": "example.test"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(s.last.body); !strings.HasPrefix(got, "PUT|example.test|application/json|") || !strings.HasSuffix(got, `|Bearer tok|{"n":1}`) {
		t.Errorf("the server received %q", got)
	}
	if ev := s.last.String(); !strings.Contains(ev, "PUT "+srv.URL+" x-request-id=tck-1 -> 418 text/plain") {
		t.Errorf("the evidence is %q, want the request, its id and the status", ev)
	}
}

func TestSendNamesTheRequestThatCouldNotBeMade(t *testing.T) {
	s := newScenario(New(Env{}))
	err := s.send(request{method: http.MethodGet, url: "http://127.0.0.1:1/nothing"})
	if err == nil || !strings.Contains(err.Error(), "GET http://127.0.0.1:1/nothing") {
		t.Errorf("err = %v, want one that names the request", err)
	}
}

func TestExpandFillsPlaceholdersLazilyAndRefusesUnknownOnes(t *testing.T) {
	s := newScenario(New(Env{}))
	calls := 0
	s.lazy["later"] = func() (string, error) { calls++; return "computed", nil }
	for range 2 {
		got, err := s.expand("{app}/{later}")
		if err != nil || got != s.vars["app"]+"/computed" {
			t.Fatalf("expand = %q, %v", got, err)
		}
	}
	if calls != 1 {
		t.Errorf("the lazy placeholder was computed %d times, want once", calls)
	}
	if _, err := s.expand("{app} {typo}"); err == nil || !strings.Contains(err.Error(), "{typo}") {
		t.Errorf("err = %v, want one that names {typo}", err)
	}
	s.lazy["broken"] = func() (string, error) { return "", errors.New("no server") }
	if _, err := s.expand("{broken}"); err == nil || !strings.Contains(err.Error(), "no server") {
		t.Errorf("err = %v, want the lazy placeholder's error", err)
	}
}

func TestHeaderLinesRefuseALineWithoutAColon(t *testing.T) {
	s := newScenario(New(Env{}))
	h, err := s.headerLines("x-user-id: {app}\nx-org: acme")
	if err != nil || h["x-user-id"] != s.vars["app"] || h["x-org"] != "acme" {
		t.Errorf("headerLines = %v, %v", h, err)
	}
	if _, err := s.headerLines("x-user-id alice"); err == nil {
		t.Error("a line without \": \" was taken as a header")
	}
}

func TestUntilStopsOnSuccessOnErrorAndAtItsLimit(t *testing.T) {
	s := newScenario(New(Env{}))
	n := 0
	if err := s.until(0, "three calls", func() (bool, error) { n++; return n == 1, nil }); err != nil || n != 1 {
		t.Errorf("until = %v after %d calls, want success after 1", err, n)
	}
	stop := errors.New("stop")
	if err := s.until(0, "an error", func() (bool, error) { return false, stop }); !errors.Is(err, stop) {
		t.Errorf("until = %v, want the error of done", err)
	}
	if err := s.until(0, "nothing", func() (bool, error) { return false, nil }); err == nil || !strings.Contains(err.Error(), "waited 0s for nothing") {
		t.Errorf("until = %v, want it to say what it waited for", err)
	}
}

func TestNeverFailsOnTheFirstEvidenceAndHoldsToItsLimit(t *testing.T) {
	s := newScenario(New(Env{}))
	n := 0
	late := func() (string, error) { n++; return map[bool]string{true: "DEBUG late"}[n == 3], nil }
	if err := s.never(time.Second, "a DEBUG line", late); err == nil || !strings.Contains(err.Error(), "a DEBUG line: DEBUG late") || n != 3 {
		t.Errorf("never = %v after %d looks, want the evidence of the third look", err, n)
	}
	stop := errors.New("stop")
	if err := s.never(time.Second, "an error", func() (string, error) { return "", stop }); !errors.Is(err, stop) {
		t.Errorf("never = %v, want the error of seen", err)
	}
	n = 0
	quiet := func() (string, error) { n++; return "", nil }
	if err := s.never(3*pollEvery, "nothing", quiet); err != nil || n < 3 {
		t.Errorf("never = %v after %d looks, want success after watching to its limit", err, n)
	}
}

// A stopped run (Ctrl-C) ends every wait of the steps at once instead of sitting it out.
func TestAStoppedRunEndsTheWaits(t *testing.T) {
	s := New(Env{})
	ctx, cancel := context.WithCancel(context.Background())
	s.ctx = ctx
	sc := newScenario(s)
	cancel()
	start := time.Now()
	err := sc.until(time.Minute, "something", func() (bool, error) { return false, nil })
	if err == nil || !strings.Contains(err.Error(), "the run was stopped") || time.Since(start) > time.Second {
		t.Errorf("until = %v after %s, want it to stop at once", err, time.Since(start))
	}
	if err := sc.sleep(time.Minute); err == nil || time.Since(start) > time.Second {
		t.Errorf("sleep = %v, want it to stop at once", err)
	}
}

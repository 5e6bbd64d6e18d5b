package core

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

	"github.com/fortune-tck/fortune-tck/target"
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

// runOf is a run whose target declares the test server's origin.
func runOf(srv *httptest.Server) *Run {
	return NewRun(&target.Target{AllowedOrigins: []string{srv.URL}})
}

func TestAPISendsAFormWithBasicCredentialsFormEncoded(t *testing.T) {
	srv := echo(t)
	s := NewScenario(runOf(srv))
	err := s.API(Request{Method: http.MethodPost, URL: srv.URL + "/token", Form: url.Values{"grant_type": {"client_credentials"}},
		Basic: &Credentials{"my client", "s:cret"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "POST|" + strings.TrimPrefix(srv.URL, "http://") + "|application/x-www-form-urlencoded|application/json|my+client|s%3Acret|"
	if got := string(s.Last.Body); !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "|grant_type=client_credentials") {
		t.Errorf("the server received %q, want it to start with %q and end with the form", got, want)
	}
	if s.Last.Status != http.StatusTeapot || s.Last.Method != http.MethodPost || s.Last.URL != srv.URL+"/token" {
		t.Errorf("the exchange kept is %+v", s.Last)
	}
}

func TestSendKeepsAnEmptyFormAJSONBodyAndTheRequestIDAsEvidence(t *testing.T) {
	srv := echo(t)
	s := NewScenario(runOf(srv))
	if err := s.Send(Request{Method: http.MethodPost, URL: srv.URL, Form: url.Values{}}); err != nil {
		t.Fatal(err)
	}
	if got := string(s.Last.Body); !strings.Contains(got, "|application/x-www-form-urlencoded||") {
		t.Errorf("an empty form was sent as %q, want its media type and no Accept", got)
	}
	err := s.Send(Request{Method: http.MethodPut, URL: srv.URL, JSON: map[string]int{"n": 1}, Bearer: "tok",
		Header: map[string]string{"x-request-id": "tck-1", "Host": "example.test"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(s.Last.Body); !strings.HasPrefix(got, "PUT|example.test|application/json|") || !strings.HasSuffix(got, `|Bearer tok|{"n":1}`) {
		t.Errorf("the server received %q", got)
	}
	if ev := s.Last.String(); !strings.Contains(ev, "PUT "+srv.URL+" x-request-id=tck-1 -> 418 text/plain") {
		t.Errorf("the evidence is %q, want the request, its id and the status", ev)
	}
}

func TestSendNamesTheRequestThatCouldNotBeMade(t *testing.T) {
	s := NewScenario(NewRun(nil))
	err := s.Send(Request{Method: http.MethodGet, URL: "http://127.0.0.1:1/nothing"})
	if err == nil || !strings.Contains(err.Error(), "GET http://127.0.0.1:1/nothing") {
		t.Errorf("err = %v, want one that names the request", err)
	}
}

func TestExpandFillsPlaceholdersLazilyAndRefusesUnknownOnes(t *testing.T) {
	s := NewScenario(NewRun(nil))
	calls := 0
	s.Lazy["later"] = func() (string, error) { calls++; return "computed", nil }
	for range 2 {
		got, err := s.Expand("{app}/{later}")
		if err != nil || got != s.Vars["app"]+"/computed" {
			t.Fatalf("expand = %q, %v", got, err)
		}
	}
	if calls != 1 {
		t.Errorf("the lazy placeholder was computed %d times, want once", calls)
	}
	if _, err := s.Expand("{app} {typo}"); err == nil || !strings.Contains(err.Error(), "{typo}") {
		t.Errorf("err = %v, want one that names {typo}", err)
	}
	s.Lazy["broken"] = func() (string, error) { return "", errors.New("no server") }
	if _, err := s.Expand("{broken}"); err == nil || !strings.Contains(err.Error(), "no server") {
		t.Errorf("err = %v, want the lazy placeholder's error", err)
	}
}

func TestHeaderLinesRefuseALineWithoutAColon(t *testing.T) {
	s := NewScenario(NewRun(nil))
	h, err := s.HeaderLines("x-user-id: {app}\nx-org: acme")
	if err != nil || h["x-user-id"] != s.Vars["app"] || h["x-org"] != "acme" {
		t.Errorf("headerLines = %v, %v", h, err)
	}
	if _, err := s.HeaderLines("x-user-id alice"); err == nil {
		t.Error("a line without \": \" was taken as a header")
	}
}

func TestUntilStopsOnSuccessOnErrorAndAtItsLimit(t *testing.T) {
	s := NewScenario(NewRun(nil))
	n := 0
	if err := s.Until(0, "three calls", func() (bool, error) { n++; return n == 1, nil }); err != nil || n != 1 {
		t.Errorf("until = %v after %d calls, want success after 1", err, n)
	}
	stop := errors.New("stop")
	if err := s.Until(0, "an error", func() (bool, error) { return false, stop }); !errors.Is(err, stop) {
		t.Errorf("until = %v, want the error of done", err)
	}
	if err := s.Until(0, "nothing", func() (bool, error) { return false, nil }); err == nil || !strings.Contains(err.Error(), "waited 0s for nothing") {
		t.Errorf("until = %v, want it to say what it waited for", err)
	}
}

func TestNeverFailsOnTheFirstEvidenceAndHoldsToItsLimit(t *testing.T) {
	s := NewScenario(NewRun(nil))
	n := 0
	late := func() (string, error) { n++; return map[bool]string{true: "DEBUG late"}[n == 3], nil }
	if err := s.Never(time.Second, "a DEBUG line", late); err == nil || !strings.Contains(err.Error(), "a DEBUG line: DEBUG late") || n != 3 {
		t.Errorf("never = %v after %d looks, want the evidence of the third look", err, n)
	}
	stop := errors.New("stop")
	if err := s.Never(time.Second, "an error", func() (string, error) { return "", stop }); !errors.Is(err, stop) {
		t.Errorf("never = %v, want the error of seen", err)
	}
	n = 0
	quiet := func() (string, error) { n++; return "", nil }
	if err := s.Never(3*pollEvery, "nothing", quiet); err != nil || n < 3 {
		t.Errorf("never = %v after %d looks, want success after watching to its limit", err, n)
	}
}

// A stopped run (Ctrl-C) ends every wait of the steps at once instead of sitting it out.
func TestAStoppedRunEndsTheWaits(t *testing.T) {
	r := NewRun(nil)
	ctx, cancel := context.WithCancel(context.Background())
	r.SetContext(ctx)
	sc := NewScenario(r)
	cancel()
	start := time.Now()
	err := sc.Until(time.Minute, "something", func() (bool, error) { return false, nil })
	if err == nil || !strings.Contains(err.Error(), "the run was stopped") || time.Since(start) > time.Second {
		t.Errorf("until = %v after %s, want it to stop at once", err, time.Since(start))
	}
	if err := sc.Sleep(time.Minute); err == nil || time.Since(start) > time.Second {
		t.Errorf("sleep = %v, want it to stop at once", err)
	}
}

// The waits take the scenario's context: a scenario that ended (its After hook) ends its waits, and another
// scenario's go on.
func TestAnEndedScenarioEndsItsWaitsAndNoOneElses(t *testing.T) {
	r := NewRun(nil)
	ended, other := NewScenario(r), NewScenario(r)
	ended.End()
	start := time.Now()
	if err := ended.Sleep(time.Minute); err == nil || time.Since(start) > time.Second {
		t.Errorf("sleep = %v after %s, want it to stop at once", err, time.Since(start))
	}
	if err := other.Sleep(pollEvery); err != nil || other.Context().Err() != nil {
		t.Errorf("another scenario's sleep = %v, want it to wait its time", err)
	}
}

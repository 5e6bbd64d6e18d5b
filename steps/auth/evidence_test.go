package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

func TestABrowsersWalkIsEvidenceHopByHop(t *testing.T) {
	op := startFakeOP(t, &fakeOP{loginElsewhere: true})
	ct := scenarioSteps(mustPreflight(t, op))
	if err := ct.flow.holdToken("{user}", "{client}", "openid fortunes.read", false); err != nil {
		t.Fatal(err)
	}
	var hops []string
	var signIn, token *core.ExchangeRecord
	exs := ct.Evidence()
	for i, e := range exs {
		u, _ := url.Parse(e.URL)
		hops = append(hops, fmt.Sprintf("%s %s %d", e.Method, u.Path, e.Status))
		switch u.Path {
		case "/login":
			if e.Method == http.MethodPost {
				signIn = &exs[i]
			}
		case "/token":
			token = &exs[i]
		}
	}
	if want := []string{"GET /authorize 302", "GET /login 200", "POST /login 302", "POST /token 200"}; !slices.Equal(hops, want) {
		t.Fatalf("the evidence is %v, want %v", hops, want)
	}
	if !strings.Contains(signIn.RequestBody, "password=***") || !strings.Contains(signIn.RequestBody, "username=alice") || signIn.RequestHeaders.Get("Content-Type") != "application/x-www-form-urlencoded" ||
		!strings.Contains(signIn.ResponseHeaders.Get("Location"), "code=") {
		t.Errorf("the sign-in is shown as %+v", signIn)
	}
	if !strings.Contains(token.RequestBody, "code=***") || !strings.Contains(token.RequestBody, "code_verifier=***") ||
		strings.Contains(token.RequestBody+token.RequestHeaders.Get("Authorization"), fakeSecret) || !strings.Contains(token.ResponseBody, "access_token") {
		t.Errorf("the code exchange is shown as %+v", token)
	}
	if raw, _ := json.Marshal(exs); bytes.Contains(raw, []byte(fakePassword)) || bytes.Contains(raw, []byte(fakeSecret)) {
		t.Errorf("the evidence shows a secret: %s", raw)
	}
}

// A cookie the browser's jar adds is part of the request as sent.

func TestTheBrowserKeepsTheCookiesItSent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/start" {
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "s1", Path: "/"})
			http.Redirect(w, r, "/page", http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	var kept []*core.Exchange
	b := newBrowser(core.NewRun(&target.Target{AllowedOrigins: []string{srv.URL}}), context.Background(), func(e *core.Exchange) { kept = append(kept, e) })
	if _, err := b.get(srv.URL+"/start", "text/html"); err != nil {
		t.Fatal(err)
	}
	if len(kept) != 2 || kept[0].RequestHeader.Get("Accept") != "text/html" || kept[1].RequestHeader.Get("Cookie") != "session=s1" ||
		kept[0].Status != http.StatusFound || kept[1].Sent.Before(kept[0].Received) {
		t.Errorf("kept %d exchanges: %+v", len(kept), kept)
	}
}

// A scenario that fails gets its last exchange as text and its exchanges as JSON; one that passes gets

// neither; a screenshot is attached either way.

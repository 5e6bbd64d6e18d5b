package steps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/target"
)

func TestEvidenceMasksSecretsAndCutsBodies(t *testing.T) {
	big := strings.Repeat("é", maxEvidenceBody) // two bytes a character: the cut falls inside one
	sent := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	exs := evidenceOf([]*exchange{
		{method: http.MethodPost, url: "https://as.test/token?code=c1&state=s1&password=p1#frag",
			requestHeader: http.Header{"Authorization": {"Basic d2ViOnNlY3JldA=="}, "Content-Type": {"application/x-www-form-urlencoded"}},
			requestBody:   []byte("grant_type=authorization_code&code=c2&code_verifier=v&client_secret=s&redirect_uri=https%3A%2F%2Fc.test&refresh_token=r&token=t&access_token=a&password=p&client_id=web"),
			status:        200, header: http.Header{"Content-Type": {"text/plain"}}, body: []byte(big), sent: sent, received: sent.Add(time.Second)},
		{method: http.MethodPost, url: "https://as.test/Users", requestHeader: http.Header{"Authorization": {"Bearer eyJ.x.y"}, "Content-Type": {"application/json; charset=utf-8"}},
			requestBody: []byte(`{"userName":"u","password":"p","emails":[{"value":"e"}],"nested":{"client_secret":"s","token":1}}`)},
		{method: http.MethodGet, url: "https://as.test/x", requestHeader: http.Header{"Authorization": {"opaque"}, "Content-Type": {"application/json"}},
			requestBody: []byte(`{"name":"no secret here",  "n": 1}`)},
		{method: http.MethodGet, url: "https://as.test/y"},
	})
	form := exs[0]
	if got := form.RequestHeaders.Get("Authorization"); got != "Basic ***" {
		t.Errorf("Authorization is shown as %q, want Basic ***", got)
	}
	if want := "grant_type=authorization_code&code=***&code_verifier=***&client_secret=***&redirect_uri=https%3A%2F%2Fc.test&refresh_token=***&token=***&access_token=***&password=***&client_id=web"; form.RequestBody != want {
		t.Errorf("the form is shown as\n%s\nwant\n%s", form.RequestBody, want)
	}
	if want := "https://as.test/token?code=***&state=s1&password=***#frag"; form.URL != want {
		t.Errorf("the URL is shown as %s, want %s", form.URL, want)
	}
	if len(form.ResponseBody) > maxEvidenceBody || len(form.ResponseBody) < maxEvidenceBody-1 || !strings.HasPrefix(big, form.ResponseBody) ||
		form.ResponseBodySize != len(big) {
		t.Errorf("the body is cut at %d bytes (%d in all), want 16 KiB on a character boundary of the %d", len(form.ResponseBody), form.ResponseBodySize, len(big))
	}
	if !form.Sent.Equal(sent) || !form.Received.Equal(sent.Add(time.Second)) || form.Status != 200 || form.Method != http.MethodPost {
		t.Errorf("the exchange is shown as %+v", form)
	}
	api := exs[1]
	if got := api.RequestHeaders.Get("Authorization"); got != "Bearer ***" {
		t.Errorf("Authorization is shown as %q, want Bearer ***", got)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(api.RequestBody), &body); err != nil {
		t.Fatal(err)
	}
	nested, _ := body["nested"].(map[string]any)
	if body["password"] != "***" || body["userName"] != "u" || nested["client_secret"] != "***" || nested["token"] != float64(1) {
		t.Errorf("the JSON body is shown as %s", api.RequestBody)
	}
	if other := exs[2]; other.RequestHeaders.Get("Authorization") != "***" || other.RequestBody != `{"name":"no secret here",  "n": 1}` {
		t.Errorf("a scheme-less credential or a body without secrets is shown as %+v", other)
	}
	data, err := json.Marshal(exs[3])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"requestHeaders":{}`, `"responseHeaders":{}`, `"requestBody":""`, `"sent":"0001-01-01T00:00:00Z"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("an exchange without headers is %s, want %s in it", data, want)
		}
	}
	var fields map[string]any
	_ = json.Unmarshal(data, &fields)
	var names []string
	for k := range fields {
		names = append(names, k)
	}
	slices.Sort(names)
	if want := []string{"method", "received", "requestBody", "requestHeaders", "responseBody", "responseBodySize", "responseHeaders", "sent", "status", "url"}; !slices.Equal(names, want) {
		t.Errorf("the fields of an exchange are %v, want %v (the HTML report reads them)", names, want)
	}
}

func TestAScenarioKeepsItsLast20ExchangesInOrder(t *testing.T) {
	s := newScenario(New(Env{}))
	for i := range 25 {
		s.record(&exchange{url: fmt.Sprint(i)})
	}
	var urls []string
	for _, e := range s.exchanges {
		urls = append(urls, e.url)
	}
	if len(urls) != maxEvidence || urls[0] != "5" || urls[maxEvidence-1] != "24" || s.last.url != "24" {
		t.Errorf("kept %v (last %s), want 5..24", urls, s.last.url)
	}
}

// The browser's walk is evidence hop by hop: each redirect, the sign-in form with its password masked, and
// the client's code exchange with the request it sent.
func TestABrowsersWalkIsEvidenceHopByHop(t *testing.T) {
	op := startFakeOP(t, &fakeOP{loginElsewhere: true})
	ct := scenarioSteps(mustPreflight(t, op))
	if err := ct.holdToken("{user}", "{client}", "openid fortunes.read", false); err != nil {
		t.Fatal(err)
	}
	var hops []string
	var signIn, token *Exchange
	exs := evidenceOf(ct.exchanges)
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
	var kept []*exchange
	b := newBrowser(srv.Client(), func(e *exchange) { kept = append(kept, e) })
	if _, err := b.get(srv.URL+"/start", "text/html"); err != nil {
		t.Fatal(err)
	}
	if len(kept) != 2 || kept[0].requestHeader.Get("Accept") != "text/html" || kept[1].requestHeader.Get("Cookie") != "session=s1" ||
		kept[0].status != http.StatusFound || kept[1].sent.Before(kept[0].received) {
		t.Errorf("kept %d exchanges: %+v", len(kept), kept)
	}
}

// A scenario that fails gets its last exchange as text and its exchanges as JSON; one that passes gets
// neither; a screenshot is attached either way.
func TestAttachmentsOfAScenario(t *testing.T) {
	srv := echo(t)
	var out bytes.Buffer
	suite := godog.TestSuite{
		ScenarioInitializer: func(sc *godog.ScenarioContext) {
			s := New(envOf(target.Services{Fortune: &target.Service{URL: srv.URL}}))
			s.InitializeScenario(sc)
			cr := &chromiumSteps{scenario: newScenario(s)}
			cr.register(sc)
			sc.Step(`^a screenshot was saved$`, func() { cr.screenshot = &screenshot{name: "shot.png", png: []byte("\x89PNG")} })
		},
		Options: &godog.Options{Format: "cucumber", Output: &out, Strict: true, FeatureContents: []godog.Feature{{
			Name: "evidence.feature",
			Contents: []byte(`Feature: evidence
  Scenario: passes
    When the fortune service is called at "/a" with the token "t0ken"
    Then the answer is 418
    And a screenshot was saved

  Scenario: fails
    When the fortune service is called at "/a" with the token "t0ken"
    And the fortune service is called at "/b" with no token
    Then the answer is 200
`)}}},
	}
	suite.Run()
	var doc []struct {
		Elements []struct {
			Name  string `json:"name"`
			Steps []struct {
				Embeddings []struct {
					Name     string `json:"name"`
					MimeType string `json:"mime_type"`
					Data     []byte `json:"data"`
				} `json:"embeddings"`
			} `json:"steps"`
		} `json:"elements"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc) != 1 {
		t.Fatalf("cucumber JSON: %v\n%s", err, out.String())
	}
	got := map[string][]string{}
	for _, e := range doc[0].Elements {
		got[e.Name] = []string{}
		for _, st := range e.Steps {
			for _, em := range st.Embeddings {
				got[e.Name] = append(got[e.Name], em.Name+" "+em.MimeType)
				if em.Name == ExchangesAttachment {
					var exs []Exchange
					if err := json.Unmarshal(em.Data, &exs); err != nil || len(exs) != 2 || exs[1].URL != srv.URL+"/b" ||
						exs[0].RequestHeaders.Get("Authorization") != "Bearer ***" {
						t.Errorf("the exchanges attached are %s (%v)", em.Data, err)
					}
				}
				if em.Name == "shot.png" && string(em.Data) != "\x89PNG" {
					t.Errorf("the screenshot attached is %q", em.Data)
				}
			}
		}
	}
	want := map[string][]string{
		"passes": {"shot.png image/png"},
		"fails":  {"last exchange text/plain", "exchanges application/vnd.fortune-tck.exchanges+json"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("attachments %v, want %v", got, want)
	}
}

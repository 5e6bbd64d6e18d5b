package core

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestEvidenceMasksSecretsAndCutsBodies(t *testing.T) {
	big := strings.Repeat("é", maxEvidenceBody) // two bytes a character: the cut falls inside one
	sent := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	exs := evidenceOf([]*Exchange{
		{Method: http.MethodPost, URL: "https://as.test/token?code=c1&state=s1&password=p1#frag",
			RequestHeader: http.Header{"Authorization": {"Basic d2ViOnNlY3JldA=="}, "Content-Type": {"application/x-www-form-urlencoded"}},
			RequestBody:   []byte("grant_type=authorization_code&code=c2&code_verifier=v&client_secret=s&redirect_uri=https%3A%2F%2Fc.test&refresh_token=r&token=t&access_token=a&password=p&client_id=web"),
			Status:        200, Header: http.Header{"Content-Type": {"text/plain"}}, Body: []byte(big), Sent: sent, Received: sent.Add(time.Second)},
		{Method: http.MethodPost, URL: "https://as.test/Users", RequestHeader: http.Header{"Authorization": {"Bearer eyJ.x.y"}, "Content-Type": {"application/json; charset=utf-8"}},
			RequestBody: []byte(`{"userName":"u","password":"p","emails":[{"value":"e"}],"nested":{"client_secret":"s","token":1}}`)},
		{Method: http.MethodGet, URL: "https://as.test/x", RequestHeader: http.Header{"Authorization": {"opaque"}, "Content-Type": {"application/json"}},
			RequestBody: []byte(`{"name":"no secret here",  "n": 1}`)},
		{Method: http.MethodGet, URL: "https://as.test/y"},
	}, NewSecrets(nil))
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
	s := NewScenario(NewRun(nil))
	for i := range 25 {
		s.Record(&Exchange{URL: fmt.Sprint(i)})
	}
	var urls []string
	for _, e := range s.exchanges {
		urls = append(urls, e.URL)
	}
	if len(urls) != maxEvidence || urls[0] != "5" || urls[maxEvidence-1] != "24" || s.Last.URL != "24" {
		t.Errorf("kept %v (last %s), want 5..24", urls, s.Last.URL)
	}
}

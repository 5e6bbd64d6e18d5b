package fortune

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

func TestAttachmentsOfAScenario(t *testing.T) {
	srv := echo(t)
	var out bytes.Buffer
	suite := godog.TestSuite{
		ScenarioInitializer: func(sc *godog.ScenarioContext) {
			c := core.NewScenario(core.NewRun(&target.Target{Services: target.Services{Fortune: &target.Service{URL: srv.URL}}}))
			sc.After(c.AttachEvidence)
			c.RegisterAnswerSteps(sc)
			(&fortuneSteps{Scenario: c}).register(sc)
			cr := &chromiumSteps{Scenario: c}
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
				if em.Name == core.ExchangesAttachment {
					var exs []core.ExchangeRecord
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

func echo(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

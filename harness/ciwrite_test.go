package harness

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/steps"
	"github.com/fortune-tck/fortune-tck/target"
)

// Two feature files with one feature name (junit.xml knows a scenario only by its feature's name and its own),
// an outline whose rows have their own lines, and scenarios that pass, fail and are blocked.
var fixtureFeatures = fstest.MapFS{
	"fortune/evidence.feature": {Data: []byte(`Feature: Evidence

  Scenario: An answer that passes
    When the fortune service is called at "/ok" with no token
    Then the answer is 200

  Scenario: An answer that fails
    When the fortune service is called at "/ok" with the token "s3cr3t-token"
    And the fortune service is called at "/teapot" with no token
    Then the answer is 200

  Scenario: A precondition that fails
    Given the fortune service is called at "/teapot" with no token
    And the answer is 200
    When the fortune service is called at "/ok" with no token
    Then the answer is 200

  Scenario Outline: The path <path> answers <status>
    When the fortune service is called at "<path>" with no token
    Then the answer is <status>

    Examples:
      | path    | status |
      | /ok     | 200    |
      | /teapot | 418    |
`)},
	"fortune/more.feature": {Data: []byte(`Feature: Evidence

  Scenario: Another answer that passes
    When the fortune service is called at "/ok" with no token
    Then the answer is 200
`)},
}

// fortuneFixture is a fortune service: /teapot answers 418, anything else 200.
func fortuneFixture(t *testing.T) *target.Target {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/teapot" {
			w.WriteHeader(http.StatusTeapot)
		}
		_, _ = w.Write([]byte(`{"fortune":"` + r.URL.Path + `"}`))
	}))
	t.Cleanup(srv.Close)
	return &target.Target{Services: target.Services{Fortune: &target.Service{URL: srv.URL}}}
}

// One line per scenario as it ends, with the harness's outcome (a failed Given is blocked), its time and its
// ID; no closing count of godog's; junit.xml and cucumber.json name every scenario by its stable ID.
func TestARunNamesItsScenariosByTheirIDsEverywhere(t *testing.T) {
	reports := t.TempDir()
	var out strings.Builder
	res, err := Run(context.Background(), Options{Target: fortuneFixture(t), Features: fixtureFeatures, ReportsDir: reports, Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	if res.Passed != 4 || res.Failed != 1 || res.Blocked != 1 {
		t.Errorf("want 4 passed, 1 failed, 1 blocked: %+v\n%s", res, out.String())
	}
	cat, err := catalog.Load(fixtureFeatures)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range cat.Scenarios {
		ids = append(ids, s.ID())
	}

	text := out.String()
	if !strings.HasPrefix(text, "Running 6 scenarios\n") {
		t.Errorf("the run does not start by saying how many scenarios will run:\n%s", text)
	}
	for _, want := range []string{
		`(?m)^  passed +\d+\.\ds  fortune/evidence/an-answer-that-passes$`,
		`(?m)^  failed +\d+\.\ds  fortune/evidence/an-answer-that-fails$`,
		`(?m)^  blocked +\d+\.\ds  fortune/evidence/a-precondition-that-fails$`,
		`(?m)^  passed +\d+\.\ds  fortune/evidence/the-path-teapot-answers-418$`,
		`(?m)^4 passed, 1 failed, 1 blocked, 0 skipped, 0 not supported, 0 not under test, in [0-9.]+m?s \(` +
			strconv.Itoa(DefaultConcurrency) + ` at once\)$`,
		`(?m)^  fortune/evidence/an-answer-that-fails \(fortune/evidence.feature:7\)\n      status 418, want 200$`,
	} {
		if !regexp.MustCompile(want).MatchString(text) {
			t.Errorf("the terminal lacks %s:\n%s", want, text)
		}
	}
	if m := regexp.MustCompile(`(?m)^\d+ (scenarios|steps) \(|^\d+(\.\d+)?m?s$`).FindString(text); m != "" {
		t.Errorf("godog's closing count is printed (%q):\n%s", m, text)
	}

	junit, err := os.ReadFile(filepath.Join(reports, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var ju struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				Status    string `xml:"status,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(junit, &ju); err != nil {
		t.Fatalf("junit.xml: %v\n%s", err, junit)
	}
	var named []string
	for _, s := range ju.Suites {
		for _, c := range s.Cases {
			named = append(named, c.Name)
			if !strings.HasPrefix(c.Name, c.Classname+"/") || !strings.HasPrefix(c.Classname, "fortune/") {
				t.Errorf("testcase %s has the classname %q, want its feature file without .feature", c.Name, c.Classname)
			}
			if c.Name == "fortune/evidence/an-answer-that-fails" && (c.Status != "failed" || c.Failure == nil || !strings.Contains(c.Failure.Message, "status 418")) {
				t.Errorf("the failed testcase lost its result in the rewrite: %+v", c)
			}
		}
	}
	if slices.Sort(named); !slices.Equal(named, sorted(ids)) {
		t.Errorf("junit.xml names the testcases %v, want the IDs %v", named, sorted(ids))
	}

	cuke := readCucumber(t, filepath.Join(reports, "cucumber.json"))
	var cukeIDs []string
	for _, f := range cuke {
		for _, e := range f.Elements {
			cukeIDs = append(cukeIDs, e.ID)
			s, ok := lookupID(cat, e.ID)
			if !ok || s.URI != f.URI || s.Line != e.Line {
				t.Errorf("cucumber.json: element %s at %s:%d is not that scenario (%s)", e.ID, f.URI, e.Line, s.Location())
			}
		}
	}
	if slices.Sort(cukeIDs); !slices.Equal(cukeIDs, sorted(ids)) {
		t.Errorf("cucumber.json names the elements %v, want the IDs %v", cukeIDs, sorted(ids))
	}
}

// The evidence of a failed or blocked scenario is every exchange in order, secrets masked, in one attachment
// beside the text of the last one; a scenario that passed carries none.
func TestFailedAndBlockedScenariosCarryTheirExchanges(t *testing.T) {
	reports := t.TempDir()
	var out strings.Builder
	if _, err := Run(context.Background(), Options{Target: fortuneFixture(t), Features: fixtureFeatures, ReportsDir: reports, Output: &out}); err != nil {
		t.Fatal(err)
	}
	byID := map[string][]cukeEmbedding{}
	for _, f := range readCucumber(t, filepath.Join(reports, "cucumber.json")) {
		for _, e := range f.Elements {
			for _, st := range e.Steps {
				byID[e.ID] = append(byID[e.ID], st.Embeddings...)
			}
		}
	}
	for id, es := range byID {
		if len(es) > 0 && id != "fortune/evidence/an-answer-that-fails" && id != "fortune/evidence/a-precondition-that-fails" {
			t.Errorf("%s passed, yet carries attachments: %+v", id, es)
		}
	}
	exchanges := func(id string, want []string) []steps.Exchange {
		t.Helper()
		var names []string
		var exs []steps.Exchange
		for _, e := range byID[id] {
			names = append(names, e.Name)
			if e.Name == steps.ExchangesAttachment {
				if e.MimeType != steps.ExchangesMediaType {
					t.Errorf("%s: the exchanges are attached as %s", id, e.MimeType)
				}
				if err := json.Unmarshal(e.Data, &exs); err != nil {
					t.Fatalf("%s: the exchanges are no JSON array of exchanges: %v\n%s", id, err, e.Data)
				}
			}
		}
		if !slices.Equal(names, []string{"last exchange", steps.ExchangesAttachment}) {
			t.Errorf("%s: attachments %v, want the last exchange and the exchanges", id, names)
		}
		var urls []string
		for _, x := range exs {
			urls = append(urls, strings.TrimPrefix(x.URL, fortuneURL(x.URL)))
		}
		if !slices.Equal(urls, want) {
			t.Errorf("%s: the exchanges are %v, want %v", id, urls, want)
		}
		return exs
	}
	exs := exchanges("fortune/evidence/an-answer-that-fails", []string{"/ok", "/teapot"})
	if len(exs) == 2 {
		first, second := exs[0], exs[1]
		if got := first.RequestHeaders.Get("Authorization"); got != "Bearer ***" {
			t.Errorf("the token is shown as %q, want Bearer ***", got)
		}
		if second.Status != http.StatusTeapot || second.ResponseBody != `{"fortune":"/teapot"}` || second.ResponseBodySize != len(second.ResponseBody) ||
			second.ResponseHeaders.Get("Content-Type") != "application/json" || second.Sent.IsZero() || second.Received.Before(second.Sent) ||
			second.Sent.Before(first.Received) || second.Method != http.MethodGet {
			t.Errorf("the second exchange is not the request to /teapot and its answer: %+v", second)
		}
	}
	exchanges("fortune/evidence/a-precondition-that-fails", []string{"/teapot"})
	for _, e := range byID["fortune/evidence/an-answer-that-fails"] {
		if strings.Contains(string(e.Data), "s3cr3t") {
			t.Errorf("the attachment %q shows the token:\n%s", e.Name, e.Data)
		}
	}
}

// --format pretty prints every step, and the harness's summary as the only count.
func TestThePrettyFormatPrintsEveryStepAndNoCountOfGodogs(t *testing.T) {
	var out strings.Builder
	if _, err := Run(context.Background(), Options{Target: fortuneFixture(t), Features: fixtureFeatures, Format: "pretty",
		ReportsDir: t.TempDir(), Output: &out}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.Contains(text, `And the fortune service is called at "/teapot" with no token`) || strings.Contains(text, "  passed ") {
		t.Errorf("want every step and no line per scenario:\n%s", text)
	}
	if regexp.MustCompile(`(?m)^\d+ (scenarios|steps) \(`).MatchString(text) || strings.Contains(text, "--- Failed steps") {
		t.Errorf("godog's closing summary is printed:\n%s", text)
	}
	if !strings.Contains(text, "4 passed, 1 failed, 1 blocked") {
		t.Errorf("the harness's summary is missing:\n%s", text)
	}
	if _, err := Run(context.Background(), Options{Target: fortuneFixture(t), Features: fixtureFeatures, Format: "dots",
		ReportsDir: t.TempDir(), Output: &out}); err == nil || !strings.Contains(err.Error(), "use progress or pretty") {
		t.Errorf("an unknown format: err = %v", err)
	}
}

type cukeEmbedding struct {
	Name     string `json:"name"`
	MimeType string `json:"mime_type"`
	Data     []byte `json:"data"` // base64, as encoding/json decodes into []byte
}

type cukeFeature struct {
	URI      string `json:"uri"`
	Elements []struct {
		ID    string `json:"id"`
		Line  int    `json:"line"`
		Steps []struct {
			Embeddings []cukeEmbedding `json:"embeddings"`
		} `json:"steps"`
	} `json:"elements"`
}

func readCucumber(t *testing.T, path string) []cukeFeature {
	t.Helper()
	var doc []cukeFeature
	if err := json.Unmarshal([]byte(readFile(t, path)), &doc); err != nil {
		t.Fatalf("cucumber.json: %v", err)
	}
	return doc
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func lookupID(cat *catalog.Catalog, id string) (catalog.Scenario, bool) {
	for _, s := range cat.Scenarios {
		if s.ID() == id {
			return s, true
		}
	}
	return catalog.Scenario{}, false
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// fortuneURL is the scheme and host of an absolute URL.
func fortuneURL(u string) string {
	if i := strings.Index(u[len("http://"):], "/"); i >= 0 {
		return u[:len("http://")+i]
	}
	return u
}

// A run with every outcome: junit.xml gives each scenario its outcome and reason (failed a <failure> with the
// message, blocked an <error> with the cause, not supported and not under test a <skipped> that says why), and
// its header counts are the summary line's; cucumber.json carries the same outcome and reason on each element.
func TestJUnitAndCucumberCarryEveryOutcomeWithItsReason(t *testing.T) {
	fsys := fstest.MapFS{}
	for k, v := range fixtureFeatures {
		fsys[k] = v
	}
	fsys["fortune/optional.feature"] = &fstest.MapFile{Data: []byte(`Feature: Optional

  @capability-fortune.rfc6750-errors
  Scenario: A refusal has a Bearer challenge
    When the fortune service is called at "/ok" with no token
    Then the answer is 200
`)}
	fsys["greeting/page.feature"] = &fstest.MapFile{Data: []byte(`Feature: Page

  Scenario: The page answers
    When the fortune service is called at "/ok" with no token
    Then the answer is 200
`)}
	reports := t.TempDir()
	var out strings.Builder
	res, err := Run(context.Background(), Options{Target: fortuneFixture(t), Features: fsys, ReportsDir: reports, Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	if res.Passed != 4 || res.Failed != 1 || res.Blocked != 1 || res.Unsupported != 1 || res.NotUnderTest != 1 {
		t.Fatalf("want 4 passed, 1 failed, 1 blocked, 1 not supported, 1 not under test: %+v\n%s", res, out.String())
	}
	summary := regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed, (\d+) blocked, (\d+) skipped, (\d+) not supported, (\d+) not under test`).FindStringSubmatch(out.String())
	if summary == nil {
		t.Fatalf("no summary line:\n%s", out.String())
	}
	n := func(i int) int { v, _ := strconv.Atoi(summary[i]); return v }

	var ju struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Tests int `xml:"tests,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Status  string `xml:"status,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Error *struct {
					Message string `xml:"message,attr"`
				} `xml:"error"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(readFile(t, filepath.Join(reports, "junit.xml"))), &ju); err != nil {
		t.Fatal(err)
	}
	if ju.Tests != n(1)+n(2)+n(3)+n(4)+n(5)+n(6) || ju.Failures != n(2) || ju.Errors != n(3) || ju.Skipped != n(4)+n(5)+n(6) {
		t.Errorf("junit.xml counts tests=%d failures=%d errors=%d skipped=%d; the summary line says %s", ju.Tests, ju.Failures, ju.Errors, ju.Skipped, summary[0])
	}
	cases := map[string]string{}
	sum := 0
	for _, s := range ju.Suites {
		sum += s.Tests
		for _, c := range s.Cases {
			switch {
			case c.Failure != nil:
				cases[c.Name] = "failure: " + c.Failure.Message
			case c.Error != nil:
				cases[c.Name] = "error: " + c.Error.Message
			case c.Skipped != nil:
				cases[c.Name] = "skipped: " + c.Skipped.Message
			default:
				cases[c.Name] = c.Status
			}
		}
	}
	if sum != ju.Tests {
		t.Errorf("the testsuites hold %d testcases, the header says %d", sum, ju.Tests)
	}
	for id, want := range map[string]string{
		"fortune/evidence/an-answer-that-passes":            "passed",
		"fortune/evidence/an-answer-that-fails":             "failure: status 418, want 200",
		"fortune/evidence/a-precondition-that-fails":        `error: blocked: at "the answer is 200": status 418, want 200`,
		"fortune/optional/a-refusal-has-a-bearer-challenge": "skipped: not supported: it needs capability fortune.rfc6750-errors, which the target does not declare",
		"greeting/page/the-page-answers":                    "skipped: not under test: the target declares no greeting service, so the greeting area is not under test",
	} {
		if cases[id] != want {
			t.Errorf("junit.xml: %s is %q, want %q", id, cases[id], want)
		}
	}

	var cuke []struct {
		Elements []struct {
			ID, Outcome, Reason string
			Before              []struct {
				Result struct {
					Status string `json:"status"`
					Error  string `json:"error_message"`
				} `json:"result"`
			} `json:"before"`
		} `json:"elements"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(reports, "cucumber.json"))), &cuke); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range cuke {
		for _, e := range f.Elements {
			got[e.ID] = e.Outcome + ": " + e.Reason
			if e.Outcome == "unsupported" && (len(e.Before) != 1 || e.Before[0].Result.Status != "skipped" || !strings.Contains(e.Before[0].Result.Error, "fortune.rfc6750-errors")) {
				t.Errorf("cucumber.json: the unsupported scenario has no hook that says why: %+v", e)
			}
		}
	}
	for id, want := range map[string]string{
		"fortune/evidence/a-precondition-that-fails":        `blocked: at "the answer is 200": status 418, want 200`,
		"fortune/optional/a-refusal-has-a-bearer-challenge": "unsupported: it needs capability fortune.rfc6750-errors",
		"greeting/page/the-page-answers":                    "not under test: the target declares no greeting service",
	} {
		if !strings.HasPrefix(got[id], want) {
			t.Errorf("cucumber.json: %s is %q, want %q...", id, got[id], want)
		}
	}
	if len(got) != ju.Tests {
		t.Errorf("cucumber.json has %d scenarios, junit.xml %d", len(got), ju.Tests)
	}
}

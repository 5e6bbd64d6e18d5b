package htmlreport

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"golang.org/x/net/html"
	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/coverage"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

// evil is what an untrusted target may put anywhere: markup that would run, an end tag that would close an
// element the page opens, an event handler, and bytes that are not UTF-8.
const evil = evilMarkup + " \xff\xfe end"

// evilMarkup is evil's markup, which must show as text (the bytes that are not UTF-8 show as U+FFFD, one or
// one each, depending on who replaced them).
const evilMarkup = "<script>window.pwned=1</script></textarea></pre><img src=x onerror=\"window.pwned=1\">"

// features is a small suite: two areas, a scenario per outcome, an outline, a capability and a service.
var testFeatures = fstest.MapFS{
	"sections.yaml": {Data: []byte(`sections:
  - id: "1.2"
    area: fortune
    summary: "Fortune service returns a fortune <b>to the bearer</b>"
    asserts: ['the answer is a fortune', 'the request is refused']
  - id: "4.3"
    area: greeting
    summary: "Greeting page"
    asserts: ['greeting page shows']
  - id: "9.9"
    area: fortune
    summary: "Nothing asserts this"
`)},
	"fortune/fortune.feature": {Data: []byte(`@spec-1.2
Feature: Fortune service
  The fortune service answers a fortune.

  Second paragraph of the description.

  Background:
    Given a user "{user}" who holds fortunes.read

  Scenario: A token gets a fortune
    When the fortune service is called at "/" with the access token
    Then the answer is a fortune

  Scenario: A request without a token is refused
    When the fortune service is called at "/" with no token
    Then the request is refused

  Scenario: A held token is refused after revocation
    Given "{user}" holds a token from "{client}" for "openid"
    Then the request is refused

  @capability-fortune.rfc6750-errors
  Scenario: A refusal has a Bearer challenge
    When the fortune service is called at "/" with no token
    Then the answer is 401 with a Bearer challenge

  @left-out
  Scenario Outline: The fortune service answers at <path>
    When the fortune service is called at "<path>" with the access token
    Then the answer is a fortune

    Examples:
      | path |
      | /a   |
      | /b   |
`)},
	"greeting/greeting.feature": {Data: []byte(`@spec-4.3
Feature: Greeting client

  Scenario: The greeting page shows a fortune
    When a browser opens the greeting client
    Then the greeting page shows a fortune
`)},
}

func testCatalog(t *testing.T) (*catalog.Catalog, []coverage.Section) {
	t.Helper()
	cat, err := catalog.Load(testFeatures)
	if err != nil {
		t.Fatal(err)
	}
	secs, err := coverage.LoadSections(testFeatures, "sections.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return cat, secs
}

// The IDs of the test features' scenarios.
const (
	idPassed    = "fortune/fortune/a-token-gets-a-fortune"
	idFailed    = "fortune/fortune/a-request-without-a-token-is-refused"
	idBlocked   = "fortune/fortune/a-held-token-is-refused-after-revocation"
	idCapable   = "fortune/fortune/a-refusal-has-a-bearer-challenge"
	idSkippedA  = "fortune/fortune/the-fortune-service-answers-at-a"
	idSkippedB  = "fortune/fortune/the-fortune-service-answers-at-b"
	idGreeting  = "greeting/greeting/the-greeting-page-shows-a-fortune"
	exchangesMT = ExchangesMediaType
)

// testReport is a run of the test features against a target with a fortune service only, without the
// capability fortune.rfc6750-errors, with --tags '~@left-out'.
func testReport(impl report.Implementation) report.ConformanceReport {
	return report.ConformanceReport{APIVersion: "fortune-tck/v1alpha1", Kind: "ConformanceReport", Implementation: impl,
		Date: "2026-11-24T10:00:00Z", Mode: "default", SuiteVersion: "v0.1.0",
		Profiles: []report.Profile{{Name: "fortune", Summary: "core: 1 passed, 1 failed, 1 blocked, 2 skipped",
			Core: report.Result{Result: report.Failure, Statistics: report.Statistics{Passed: 1, Failed: 1, Blocked: 1, Skipped: 2},
				FailedTests:  []string{idFailed},
				BlockedTests: []report.BlockedTest{{Name: idBlocked, Cause: "at \"Given ...\": no authorization server " + evil}},
				SkippedTests: []string{idSkippedA, idSkippedB}},
			Extended: &report.Extended{Result: report.Result{Result: report.NotSupported},
				UnsupportedFeatures: []string{"fortune.rfc6750-errors"}}}}}
}

// cuke builds a cucumber.json as godog writes it for the test report's run, with the failed scenario's
// exchanges, a text attachment and a screenshot attached.
func cuke(t *testing.T, exchanges any, extra ...map[string]any) []byte {
	t.Helper()
	step := func(kw, text, status, errMsg string, embeddings ...map[string]any) map[string]any {
		s := map[string]any{"keyword": kw + " ", "name": text, "line": 1, "match": map[string]any{"location": "x.go:1"},
			"result": map[string]any{"status": status, "duration": 1500000}}
		if errMsg != "" {
			s["result"].(map[string]any)["error_message"] = errMsg
		}
		if len(embeddings) > 0 {
			s["embeddings"] = embeddings
		}
		return s
	}
	embed := func(name, mt string, data []byte) map[string]any {
		return map[string]any{"name": name, "mime_type": mt, "data": base64.StdEncoding.EncodeToString(data)}
	}
	xs, err := json.Marshal(exchanges)
	if err != nil {
		t.Fatal(err)
	}
	bg := step("Given", `a user "{user}" who holds fortunes.read`, "passed", "")
	failedEmbeds := append([]map[string]any{embed("exchanges", exchangesMT, xs), embed("last exchange", "text/plain", []byte("GET / -> 401\n"+evil)),
		embed("screenshot", "image/png", pngBytes(t))}, extra...)
	features := []map[string]any{{
		"uri": "fortune/fortune.feature", "id": "fortune-service", "keyword": "Feature", "name": "Fortune service", "line": 2,
		"elements": []map[string]any{
			{"id": "fortune-service;a-token-gets-a-fortune", "keyword": "Scenario", "name": "A token gets a fortune", "line": 10, "type": "scenario",
				"steps": []map[string]any{bg, step("When", `the fortune service is called at "/" with the access token`, "passed", ""), step("Then", "the answer is a fortune", "passed", "")}},
			{"id": "fortune-service;a-request-without-a-token-is-refused", "keyword": "Scenario", "name": "A request without a token is refused", "line": 14, "type": "scenario",
				"steps": []map[string]any{bg, step("When", `the fortune service is called at "/" with no token`, "passed", ""),
					step("Then", "the request is refused "+evil, "failed", "status 200, want the request refused (4xx)\n"+evil, failedEmbeds...)}},
			{"id": "fortune-service;a-held-token-is-refused-after-revocation", "keyword": "Scenario", "name": "A held token is refused after revocation", "line": 18, "type": "scenario",
				"steps": []map[string]any{bg, step("Given", `"{user}" holds a token from "{client}" for "openid"`, "failed", "no authorization server"), step("Then", "the request is refused", "skipped", "")}},
			{"id": "fortune-service;a-refusal-has-a-bearer-challenge", "keyword": "Scenario", "name": "A refusal has a Bearer challenge", "line": 23, "type": "scenario",
				"steps": []map[string]any{step("Given", `a user "{user}" who holds fortunes.read`, "skipped", ""), step("When", "x", "skipped", ""), step("Then", "y", "skipped", "")}},
		}}}
	data, err := json.MarshalIndent(features, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func pngBytes(t *testing.T) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 40, 20))
	for x := 0; x < 40; x++ {
		for y := 0; y < 20; y++ {
			img.Set(x, y, color.RGBA{R: uint8(x * 6), G: 120, B: 200, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func evilExchanges() []map[string]any {
	return []map[string]any{
		{"method": "POST", "url": "http://127.0.0.1:1/oauth/token?x=" + evil, "requestHeaders": map[string][]string{"Content-Type": {"application/x-www-form-urlencoded"}, "X-Evil": {evil}},
			"requestBody": "grant_type=authorization_code&code=***", "status": 400,
			"responseHeaders": map[string][]string{"Content-Type": {"application/json"}}, "responseBody": `{"error":"invalid_grant"}`, "responseBodySize": 25,
			"sent": "2026-11-24T10:00:00.000000000Z", "received": "2026-11-24T10:00:00.012000000Z"},
		{"method": "GET", "url": "http://127.0.0.1:1/", "requestHeaders": map[string][]string{"Authorization": {"Bearer ***"}},
			"requestBody": "", "status": 200, "responseHeaders": map[string][]string{"Content-Type": {"text/html"}},
			"responseBody": "<html><head><title>" + evil + "</title></head><body>" + evil + "</body></html>", "responseBodySize": 200,
			"sent": "2026-11-24T10:00:01Z", "received": "2026-11-24T10:00:01.5Z"},
	}
}

func testInput(t *testing.T) Input {
	t.Helper()
	cat, secs := testCatalog(t)
	impl := report.Implementation{Organization: "Org " + evil, Project: "evil " + evil, URL: "javascript:window.pwned=1", Version: "1.0 " + evil, Contact: []string{evil}}
	in, err := Build(testReport(impl), cuke(t, evilExchanges()), cat, secs)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func render(t *testing.T, in Input) ([]byte, *html.Node) {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, in); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("the page does not parse: %v", err)
	}
	return buf.Bytes(), doc
}

func attr(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}

func walk(n *html.Node, visit func(*html.Node)) {
	visit(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, visit)
	}
}

func elements(doc *html.Node, tag string) []*html.Node {
	var out []*html.Node
	walk(doc, func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == tag {
			out = append(out, n)
		}
	})
	return out
}

func text(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	})
	return b.String()
}

// Every scenario of the features is on the page, once, as a details element whose id is its stable ID, with
// the data attributes the filters read; failed first, then blocked; each outcome with its reason.
func TestEveryScenarioHasAnAnchorAndTheFiltersData(t *testing.T) {
	in := testInput(t)
	_, doc := render(t, in)
	var ids []string
	outcome := map[string]string{}
	for _, d := range elements(doc, "details") {
		if c, _ := attr(d, "class"); !strings.Contains(c, "scenario") {
			continue
		}
		id, _ := attr(d, "id")
		ids = append(ids, id)
		for _, a := range []string{"data-outcome", "data-profile", "data-area"} {
			if v, ok := attr(d, a); !ok || v == "" {
				t.Errorf("%s: no %s", id, a)
			}
		}
		outcome[id], _ = attr(d, "data-outcome")
	}
	want := map[string]string{idFailed: "failed", idBlocked: "blocked", idPassed: "passed", idCapable: "not-supported",
		idSkippedA: "skipped", idSkippedB: "skipped", idGreeting: "not-under-test"}
	if len(ids) != len(want) {
		t.Errorf("scenarios on the page: %v", ids)
	}
	for id, o := range want {
		if outcome[id] != o {
			t.Errorf("%s: outcome %q, want %q", id, outcome[id], o)
		}
	}
	if len(ids) < 2 || ids[0] != idFailed || ids[1] != idBlocked {
		t.Errorf("failed and blocked must come first: %v", ids)
	}
	// Each scenario links to itself, and the coverage view links to the scenarios that earn a section.
	links := map[string]int{}
	for _, a := range elements(doc, "a") {
		if h, _ := attr(a, "href"); strings.HasPrefix(h, "#") {
			links[h[1:]]++
		}
	}
	for id := range want {
		if links[id] == 0 {
			t.Errorf("no link to #%s", id)
		}
	}
	if links["spec-1.2"] == 0 {
		t.Errorf("a scenario does not link to its spec section: %v", links)
	}
	// The filters: hidden without script, a checkbox per outcome on the page, the profile and area selects.
	form := byID(doc, "filters")
	if form == nil {
		t.Fatal("no filter form")
	}
	if _, hidden := attr(form, "hidden"); !hidden {
		t.Error("the filters must be hidden until the script shows them (without script, everything shows)")
	}
	var boxes []string
	for _, in := range elements(form, "input") {
		v, _ := attr(in, "value")
		boxes = append(boxes, v)
	}
	slices.Sort(boxes)
	if !slices.Equal(boxes, []string{"blocked", "failed", "not-supported", "not-under-test", "passed", "skipped"}) {
		t.Errorf("outcome filters: %v", boxes)
	}
	page := text(doc)
	for _, w := range []string{
		"it needs fortune.rfc6750-errors, which the target does not declare",
		"the target declares no greeting service, so the greeting area is not under test",
		"left out by --tags", "no authorization server",
		"status 200, want the request refused (4xx)",
		"areas not under test (the target declares none of their services): greeting",
		"Fortune service returns a fortune <b>to the bearer</b>", "no scenario asserts it yet",
		"cut:", // none is cut here: the word appears only with a cut body
	} {
		if w == "cut:" {
			if strings.Contains(page, "cut: the first") {
				t.Error("a small body was cut")
			}
			continue
		}
		if !strings.Contains(page, w) {
			t.Errorf("the page does not say %q", w)
		}
	}
	if len(in.Notes) != 0 {
		t.Errorf("the files agree, yet: %v", in.Notes)
	}
	if in.Totals.Total() != 7 || in.Verdict != report.Failure {
		t.Errorf("totals %v, verdict %s", in.Totals, in.Verdict)
	}
}

func byID(doc *html.Node, id string) *html.Node {
	var found *html.Node
	walk(doc, func(n *html.Node) {
		if v, _ := attr(n, "id"); found == nil && n.Type == html.ElementNode && v == id {
			found = n
		}
	})
	return found
}

// Whatever the target sent is text on the page: no script but the page's own, no event handler, no image but
// the screenshot as a data: URL, no element a string opened or closed, no javascript: link; and the page is
// valid UTF-8.
func TestHostileStringsAreShownAsText(t *testing.T) {
	page, doc := render(t, testInput(t))
	if !utf8.Valid(page) {
		t.Error("the page is not valid UTF-8")
	}
	if bytes.Contains(page, []byte("<script>window")) || bytes.Contains(page, []byte("<img src=x")) {
		t.Error("a hostile string reached the page unescaped")
	}
	scripts := elements(doc, "script")
	if len(scripts) != 1 || text(scripts[0]) != pageJS {
		t.Errorf("the page has %d scripts; want only its own", len(scripts))
	}
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		for _, a := range n.Attr {
			if strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s %s=%q>: an event handler", n.Data, a.Key, a.Val)
			}
			if (a.Key == "href" || a.Key == "src") && strings.Contains(strings.ToLower(a.Val), "javascript:") {
				t.Errorf("<%s %s=%q>", n.Data, a.Key, a.Val)
			}
		}
		switch n.Data {
		case "textarea", "iframe", "object", "embed", "base", "form":
			if id, _ := attr(n, "id"); n.Data != "form" || id != "filters" {
				t.Errorf("an element <%s> the page does not make", n.Data)
			}
		case "img":
			if src, _ := attr(n, "src"); !strings.HasPrefix(src, "data:image/png;base64,") {
				t.Errorf("an image from %q", src)
			}
		}
	})
	if imgs := elements(doc, "img"); len(imgs) != 1 {
		t.Errorf("%d images, want the screenshot", len(imgs))
	}
	// The hostile strings are there, as text, where they were sent: the exchange's body, its header, the page
	// title in an HTML body, the step's error, the implementation's name.
	failed := byID(doc, idFailed)
	if failed == nil {
		t.Fatal("no failed scenario")
	}
	if got := strings.Count(text(failed), evilMarkup); got < 7 {
		t.Errorf("the hostile string shows %d times as text in the failed scenario, want it in the body, header, URL, title, error:\n%s", got, text(failed))
	}
	title := elements(doc, "title")
	if len(title) == 0 || title[0].Namespace != "" || !strings.Contains(text(title[0]), "evil <script>") {
		t.Errorf("the page's title: %v", title)
	}
	var csp string
	for _, m := range elements(doc, "meta") {
		if v, _ := attr(m, "http-equiv"); v == "Content-Security-Policy" {
			csp, _ = attr(m, "content")
		}
	}
	if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, scriptHash) {
		t.Errorf("Content-Security-Policy %q", csp)
	}
}

// A huge body is cut, with a note of its size; so is a huge error message; the page stays small.
func TestAHugeBodyIsCutWithItsSize(t *testing.T) {
	cat, secs := testCatalog(t)
	huge := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	xs := []map[string]any{{"method": "GET", "url": "http://x/", "status": 200, "responseBody": huge, "responseBodySize": len(huge)},
		{"method": "GET", "url": "http://x/cut", "status": 200, "responseBody": huge[:1000], "responseBodySize": 5 << 20}}
	in, err := Build(testReport(report.Implementation{Project: "p"}), cuke(t, xs, map[string]any{"name": "log", "mime_type": "text/plain",
		"data": base64.StdEncoding.EncodeToString([]byte(huge))}), cat, secs)
	if err != nil {
		t.Fatal(err)
	}
	page, doc := render(t, in)
	s := text(doc)
	for _, w := range []string{fmt.Sprintf("body cut: the first %d of %d bytes", MaxBody, len(huge)),
		fmt.Sprintf("body cut: the first 1000 of %d bytes", 5<<20), fmt.Sprintf("(cut: %d bytes in all)", len(huge))} {
		if !strings.Contains(s, w) {
			t.Errorf("no note %q", w)
		}
	}
	if len(page) > 200<<10 {
		t.Errorf("the page is %d bytes", len(page))
	}
}

// A screenshot is shown only as a data: URL of bytes that are the image they claim to be.
func TestOnlyRealImagesAreShown(t *testing.T) {
	cat, secs := testCatalog(t)
	fake := map[string]any{"name": "fake", "mime_type": "image/png", "data": base64.StdEncoding.EncodeToString([]byte("<svg onload=alert(1)>"))}
	svg := map[string]any{"name": "svg", "mime_type": "image/svg+xml", "data": base64.StdEncoding.EncodeToString([]byte("<svg onload=alert(1)>"))}
	in, err := Build(testReport(report.Implementation{Project: "p"}), cuke(t, []any{}, fake, svg), cat, secs)
	if err != nil {
		t.Fatal(err)
	}
	_, doc := render(t, in)
	imgs := elements(doc, "img")
	if len(imgs) != 1 {
		t.Fatalf("%d images, want the real screenshot only", len(imgs))
	}
	s := text(doc)
	if !strings.Contains(s, "a picture that is not the image/png it claims to be: not shown") || !strings.Contains(s, "svg (image/svg+xml, 21 bytes)") {
		t.Errorf("the page does not say what it left out:\n%s", s)
	}
}

// The cucumber element's id is the stable ID once the harness writes it: it wins over file and line.
func TestScenariosAreMatchedByStableID(t *testing.T) {
	cat, secs := testCatalog(t)
	var features []map[string]any
	if err := json.Unmarshal(cuke(t, []any{}), &features); err != nil {
		t.Fatal(err)
	}
	for _, el := range features[0]["elements"].([]any) {
		e := el.(map[string]any)
		e["line"] = 999
		_, name, _ := strings.Cut(e["id"].(string), ";")
		e["id"] = "fortune/fortune/" + name
	}
	data, _ := json.Marshal(features)
	in, err := Build(testReport(report.Implementation{Project: "p"}), data, cat, secs)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range in.Scenarios {
		if s.ID == idFailed && (len(s.Steps) != 3 || len(s.Exchanges) != 0 || len(s.Images) != 1) {
			t.Errorf("the failed scenario was not matched by its ID: %+v", s)
		}
	}
	if len(in.Notes) != 0 {
		t.Errorf("notes: %v", in.Notes)
	}
}

// A stale cucumber.json (another run's) disagrees with the report's counts, and the page says so.
func TestThePageSaysWhenTheFilesDisagree(t *testing.T) {
	cat, secs := testCatalog(t)
	rep := testReport(report.Implementation{Project: "p"})
	rep.Profiles[0].Core.Statistics.Passed = 3
	in, err := Build(rep, cuke(t, []any{}), cat, secs)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Notes) != 1 || !strings.Contains(in.Notes[0], "the report counts 3 passed, the page found 1") {
		t.Errorf("notes: %v", in.Notes)
	}
}

// A file that is not what tck report needs is an error that names it.
func TestBadFilesAreErrorsNamingThem(t *testing.T) {
	cat, secs := testCatalog(t)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	repData, _ := yaml.Marshal(testReport(report.Implementation{Project: "p"}))
	good := write("conformance-report.yaml", string(repData))
	goodCuke := write("cucumber.json", string(cuke(t, []any{})))
	if _, err := FromFiles(good, goodCuke, cat, secs); err != nil {
		t.Fatalf("good files: %v", err)
	}
	emptyRep, _ := yaml.Marshal(report.ConformanceReport{Kind: "ConformanceReport", Profiles: []report.Profile{{Name: "fortune"}}})
	for name, c := range map[string]struct {
		report, cucumber string
		want             []string
	}{
		"not JSON":       {good, write("a.json", "<html>not json</html>"), []string{"a.json: not JSON"}},
		"an object":      {good, write("b.json", `{"suites": []}`), []string{"b.json: not a cucumber JSON report: want an array of features, found an object"}},
		"other items":    {good, write("c.json", `[{"title": "x", "tests": []}]`), []string{"c.json: not a cucumber JSON report: item 0 has no \"uri\""}},
		"another suite":  {good, write("d.json", `[{"uri": "features/login.feature", "name": "Login", "elements": [{"name": "x", "line": 3, "type": "scenario", "steps": []}]}]`), []string{"d.json: none of its 1 scenarios is a scenario of this suite's features"}},
		"empty file":     {good, write("e.json", ""), []string{"e.json: empty"}},
		"not a report":   {write("r1.yaml", "kind: Something\n"), goodCuke, []string{"r1.yaml: not a conformance report of tck"}},
		"not YAML":       {write("r2.yaml", "\t: : ["), goodCuke, []string{"r2.yaml: not a conformance report"}},
		"no profiles":    {write("r3.yaml", "kind: ConformanceReport\nprofiles: []\n"), goodCuke, []string{"r3.yaml: the report has no profiles"}},
		"no scenarios":   {write("r4.yaml", string(emptyRep)), write("f.json", "[]"), []string{"r4.yaml: the report holds no scenario", "f.json none either"}},
		"missing report": {filepath.Join(dir, "nothing.yaml"), goodCuke, []string{"nothing.yaml"}},
	} {
		_, err := FromFiles(c.report, c.cucumber, cat, secs)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", name, err, w)
			}
		}
	}
}

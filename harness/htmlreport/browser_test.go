package htmlreport_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/fortune-tck/fortune-tck/harness"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/coverage"
	"github.com/fortune-tck/fortune-tck/harness/htmlreport"
	"github.com/fortune-tck/fortune-tck/target"
)

// evilBody is what the fake fortune service answers: markup that would run if the page let it.
const evilBody = `<script>window.pwned=1</script><img src=x onerror="window.pwned=1"></textarea>`

// browserFeatures is a tiny suite for a target that declares a fortune service only: one scenario passes,
// one fails on purpose (the fake service refuses, the scenario wants a fortune), one is blocked (no
// authorization server to get a token from), one is not supported, one not under test, one left out by tags.
var browserFeatures = fstest.MapFS{
	"sections.yaml": {Data: []byte(`sections:
  - id: "1.2"
    area: fortune
    summary: "Fortune service returns a fortune for GETs bearing a token with fortunes.read"
    asserts: ['the answer is a fortune', 'the request is refused']
`)},
	"fortune/evil.feature": {Data: []byte(`@spec-1.2
Feature: A fortune service that answers with markup
  The fake fortune service refuses every request, with a body of markup.

  Scenario: A request without a token is refused
    When the fortune service is called at "/" with no token
    Then the request is refused

  Scenario: A request without a token gets a fortune
    When the fortune service is called at "/evil" with no token
    Then the answer is a fortune

  Scenario: A held token gets a fortune
    Given "{user}" holds a token from "{client}" for "openid fortunes.read"
    When the fortune service is called at "/" with the access token
    Then the answer is a fortune

  @capability-fortune.rfc6750-errors
  Scenario: A refusal has a Bearer challenge
    When the fortune service is called at "/" with no token
    Then the answer is 401 with a Bearer challenge

  @service-greeting
  Scenario: The greeting client is not under test
    When the fortune service is called at "/" with no token
    Then the request is refused

  @left-out
  Scenario: A scenario left out by tags
    When the fortune service is called at "/" with no token
    Then the request is refused
`)},
}

const (
	failedID  = "fortune/evil/a-request-without-a-token-gets-a-fortune"
	blockedID = "fortune/evil/a-held-token-gets-a-fortune"
	passedID  = "fortune/evil/a-request-without-a-token-is-refused"
)

// findChromium returns the browser, or skips the test without one (and fails it in CI).
func findChromium(t *testing.T) string {
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("Chromium is not installed (make deps installs it)")
	}
	t.Skip("Chromium is not installed: apt-get install chromium")
	return ""
}

// runTinySuite runs the tiny suite in process against a fake fortune service and returns its reports folder.
func runTinySuite(t *testing.T) (reports, url string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("X-Evil", evilBody)
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, evilBody+"\xff\xfe not UTF-8")
	}))
	t.Cleanup(srv.Close)
	tg := &target.Target{
		Implementation: target.Implementation{Organization: "evil", Project: "fake fortune " + evilBody, Version: "0.0.1", URL: "javascript:window.pwned=1"},
		Services:       target.Services{Fortune: &target.Service{URL: srv.URL}},
	}
	reports = t.TempDir()
	var out bytes.Buffer
	_, err := harness.Run(context.Background(), harness.Options{Target: tg, Tags: "~@left-out", ReportsDir: reports,
		Output: &out, Features: browserFeatures})
	if err != nil {
		t.Fatalf("the run: %v\n%s", err, out.String())
	}
	return reports, srv.URL
}

// withEvidence makes sure the failed scenario carries the evidence the harness attaches (the exchanges, in the
// format of htmlreport.ExchangesMediaType, and a screenshot), adding it where this run's harness did not.
func withEvidence(t *testing.T, path, url string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var features []map[string]any
	if err := json.Unmarshal(data, &features); err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, 120, 40))
	for x := range 120 {
		for y := range 40 {
			img.Set(x, y, color.RGBA{R: uint8(2 * x), G: 90, B: uint8(5 * y), A: 255})
		}
	}
	var pic bytes.Buffer
	if err := png.Encode(&pic, img); err != nil {
		t.Fatal(err)
	}
	exchanges, _ := json.Marshal([]map[string]any{{"method": "GET", "url": url + "/evil",
		"requestHeaders": map[string][]string{"Accept": {"*/*"}}, "requestBody": "", "status": 401,
		"responseHeaders": map[string][]string{"Content-Type": {"text/plain"}, "X-Evil": {evilBody}},
		"responseBody":    evilBody, "responseBodySize": len(evilBody), "sent": time.Now().UTC().Format(time.RFC3339Nano),
		"received": time.Now().UTC().Add(3 * time.Millisecond).Format(time.RFC3339Nano)}})
	found := false
	for _, f := range features {
		els, _ := f["elements"].([]any)
		for _, e := range els {
			el := e.(map[string]any)
			if el["name"] != "A request without a token gets a fortune" {
				continue
			}
			found = true
			steps := el["steps"].([]any)
			last := steps[len(steps)-1].(map[string]any)
			embeds, _ := last["embeddings"].([]any)
			has := map[string]bool{}
			for _, em := range embeds {
				m := em.(map[string]any)
				mt, _ := m["mime_type"].(string)
				has[mt] = true
			}
			if !has[htmlreport.ExchangesMediaType] {
				embeds = append(embeds, map[string]any{"name": "exchanges", "mime_type": htmlreport.ExchangesMediaType,
					"data": base64.StdEncoding.EncodeToString(exchanges)})
			}
			if !has["image/png"] {
				embeds = append(embeds, map[string]any{"name": "screenshot", "mime_type": "image/png",
					"data": base64.StdEncoding.EncodeToString(pic.Bytes())})
			}
			last["embeddings"] = embeds
		}
	}
	if !found {
		t.Fatalf("%s has no failed scenario", path)
	}
	out, _ := json.MarshalIndent(features, "", "  ")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The page of a real run in a real browser: nothing the target sent runs, the console stays clean, the failed
// scenario comes first and opens to show its exchange as text, and a filter hides the passed scenarios.
func TestBrowserShowsAFailedScenarioWithoutRunningWhatTheTargetSent(t *testing.T) {
	chromium := findChromium(t)
	reports, url := runTinySuite(t)
	cucumber := filepath.Join(reports, "cucumber.json")
	withEvidence(t, cucumber, url)
	cat, err := catalog.Load(browserFeatures)
	if err != nil {
		t.Fatal(err)
	}
	sections, err := coverage.LoadSections(browserFeatures, "sections.yaml")
	if err != nil {
		t.Fatal(err)
	}
	in, err := htmlreport.FromFiles(filepath.Join(reports, "conformance-report.yaml"), cucumber, cat, sections)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{passedID: "passed", failedID: "failed", blockedID: "blocked",
		"fortune/evil/a-refusal-has-a-bearer-challenge": "unsupported", "fortune/evil/the-greeting-client-is-not-under-test": "not under test",
		"fortune/evil/a-scenario-left-out-by-tags": "skipped"}
	for _, s := range in.Scenarios {
		if want[s.ID] != string(s.Outcome) {
			t.Errorf("%s: %s (%s), want %s", s.ID, s.Outcome, s.Reason, want[s.ID])
		}
	}
	if len(in.Notes) > 0 {
		t.Errorf("notes: %v", in.Notes)
	}
	page := filepath.Join(t.TempDir(), "index.html")
	if err := htmlreport.WriteFile(page, in); err != nil {
		t.Fatal(err)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.UserDataDir(t.TempDir()),
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1200, 1000),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	tab, cancelTab := chromedp.NewContext(alloc)
	defer cancelTab()
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	// Every console message, from before the page loads to the end.
	var mu sync.Mutex
	var console []string
	consoleCtx, stopConsole := context.WithCancel(tab)
	messages := chromedp.Console(consoleCtx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			mu.Lock()
			console = append(console, m.String())
			mu.Unlock()
		}
	}()
	ctx, cancel := context.WithTimeout(tab, time.Minute)
	defer cancel()
	eval := func(expr string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return v
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitVisible(chromedp.CSS("#filters"))); err != nil {
		t.Fatal(err)
	}
	if got := eval(`typeof window.pwned`); got != "undefined" {
		t.Errorf("window.pwned is %s: the target's markup ran", got)
	}
	if got := eval(`document.querySelector("details.scenario").id`); got != failedID {
		t.Errorf("the first scenario is %s, want the failed one", got)
	}
	// The failed scenario opens with a click and shows its exchange, the target's markup as text.
	sel := fmt.Sprintf(`document.getElementById(%q)`, failedID)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.JSPath(sel+`.querySelector("summary")`)),
		chromedp.WaitVisible(chromedp.JSPath(sel+`.querySelector("details.exchange pre")`))); err != nil {
		t.Fatal(err)
	}
	if eval(fmt.Sprintf(`String(%s.open)`, sel)) != "true" {
		t.Error("the failed scenario did not open")
	}
	shown := eval(sel + `.querySelector("details.exchange").innerText`)
	for _, w := range []string{"GET " + url + "/evil", "401", evilBody, "X-Evil: " + evilBody} {
		if !strings.Contains(shown, w) {
			t.Errorf("the exchange does not show %q:\n%s", w, shown)
		}
	}
	if n := eval(`String(document.querySelectorAll("script").length) + " " + document.querySelectorAll("img").length + " " + document.querySelectorAll("textarea").length`); n != "1 1 0" {
		t.Errorf("scripts, images, textareas: %s; want the page's script, the screenshot and none", n)
	}
	if got := eval(sel + `.querySelector("figure img").naturalWidth + ""`); got != "120" {
		t.Errorf("the screenshot is %s pixels wide, want it shown (120)", got)
	}
	// A filter hides the passed scenarios and keeps the failed one.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#filters input[value="passed"]`))); err != nil {
		t.Fatal(err)
	}
	if got := eval(`Array.from(document.querySelectorAll('details.scenario[data-outcome="passed"]')).map(e => e.hidden && e.offsetParent === null).join()`); got != "true" {
		t.Errorf("passed scenarios hidden: %q", got)
	}
	if got := eval(sel + `.offsetParent === null ? "hidden" : "shown"`); got != "shown" {
		t.Error("the filter hid the failed scenario")
	}
	if got := eval(`document.getElementById("shown").textContent`); got != "5 of 6 scenarios shown" {
		t.Errorf("the count says %q", got)
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`)); err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if got := eval(`typeof window.pwned`); got != "undefined" {
		t.Errorf("window.pwned is %s after opening the scenario", got)
	}
	time.Sleep(200 * time.Millisecond) // let the last console messages arrive
	stopConsole()
	<-done
	mu.Lock()
	defer mu.Unlock()
	for _, m := range console {
		if strings.HasPrefix(m, "error") || strings.HasPrefix(m, "exception") || strings.HasPrefix(m, "warning") {
			t.Errorf("console: %s", m)
		}
	}
	path := filepath.Join(t.TempDir(), "report-screenshot.png")
	if os.Getenv("UPDATE_SCREENSHOT") != "" {
		path = filepath.Join("..", "..", "docs", "report-screenshot.png")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes); page %d bytes", path, len(shot), fileSize(page))
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

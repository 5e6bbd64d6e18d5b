package steps

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"

	"github.com/cucumber/godog"
)

// world is the state of one scenario: its unique names, remembered values and the last HTTP exchange.
type world struct {
	suite *Suite
	// vars are the placeholders a step text may use, written {name}: each scenario gets its own {app},
	// {branch} and {tag}, so scenarios never see each other's data; steps add remembered values.
	vars map[string]string
	last *exchange

	// instances are the application instances this scenario started; user and passwords (one per instance,
	// or one for all) are the HTTP Basic credentials sent to them.
	instances []Instance
	user      string
	passwords []string
	// logMarks are, per instance, the length of its log when the last request was sent to it: what it
	// logged while answering starts there.
	logMarks     map[int]int
	lastInstance int

	auth   authState
	chrome *chrome
	gw     gatewayState
}

// exchange is one HTTP request and its answer, kept for assertions and as evidence of a failure.
type exchange struct {
	method, url string
	status      int
	header      http.Header
	body        []byte
}

func newWorld(s *Suite) *world {
	id := randomID()
	w := &world{suite: s, vars: map[string]string{
		"app":    "tck-" + id,
		"branch": "tck-branch-" + id,
		"tag":    "tck-tag-" + id,
		"group":  "tck-group-" + id,
		"route":  "tck-route-" + id,
		"host":   id + ".tck.test",
	}, auth: newAuthState()}
	w.bindIdentities(id)
	ep := s.endpoints
	for k, v := range map[string]string{"issuer": ep.Issuer, "authorization_endpoint": ep.Authorization, "token_endpoint": ep.Token} {
		if v != "" {
			w.vars[k] = v
		}
	}
	return w
}

func randomID() string {
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

var placeholder = regexp.MustCompile(`\{([a-z][a-z0-9:._-]*)\}`)

// expand replaces {name} placeholders; an unknown one is an error, so a typo in a feature cannot pass.
func (w *world) expand(s string) (string, error) {
	var missing []string
	if strings.Contains(s, "{quotes}") && w.vars["quotes"] == "" && w.suite.env.ConfigApp != nil {
		q, err := w.suite.quoteSource()
		if err != nil {
			return "", err
		}
		w.vars["quotes"] = q.base
	}
	out := placeholder.ReplaceAllStringFunc(s, func(m string) string {
		v, ok := w.vars[m[1:len(m)-1]]
		if !ok {
			missing = append(missing, m)
			return m
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("unknown placeholder %s in %q", strings.Join(missing, ", "), s)
	}
	return out, nil
}

// get performs a GET and keeps the exchange.
func (w *world) get(url string) error {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("building the request for %s: %w", url, err)
	}
	return w.do(req)
}

func (w *world) do(req *http.Request) error {
	resp, err := w.suite.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("%s %s: reading the body: %w", req.Method, req.URL, err)
	}
	w.last = &exchange{method: req.Method, url: req.URL.String(), status: resp.StatusCode, header: resp.Header, body: body}
	return nil
}

// answer returns the last exchange, or an error when no request was made yet.
func (w *world) answer() (*exchange, error) {
	if w.last == nil {
		return nil, fmt.Errorf("no request was made before this step")
	}
	return w.last, nil
}

// failf builds an assertion error that shows the exchange it is about.
func (w *world) failf(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if w.last != nil {
		msg += "\n" + w.last.String()
	}
	return fmt.Errorf("%s", msg)
}

func (e *exchange) String() string {
	body := string(e.body)
	if len(body) > 600 {
		body = body[:600] + "…"
	}
	return fmt.Sprintf("  %s %s -> %d %s\n  %s", e.method, e.url, e.status, e.header.Get("Content-Type"), body)
}

// json decodes the body of the exchange, keeping numbers exact.
func (e *exchange) json() (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(e.body)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("the body is not JSON: %w\n%s", err, e)
	}
	return v, nil
}

// jsonObject decodes the last answer as an object.
func (w *world) jsonObject() (map[string]any, error) {
	a, err := w.answer()
	if err != nil {
		return nil, err
	}
	v, err := a.json()
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, w.failf("the answer is not a JSON object")
	}
	return obj, nil
}

// attachEvidence puts the last exchange of a failed scenario into the cucumber report.
func (w *world) attachEvidence(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
	if err != nil && w.last != nil {
		ctx = godog.Attach(ctx, godog.Attachment{FileName: "last exchange", MediaType: "text/plain", Body: []byte(w.last.String())})
	}
	return ctx, nil
}

func (w *world) registerHTTPSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the answer is (\d{3})$`, w.answerIs)
	sc.Step(`^the answer is (\d{3}) with a JSON body$`, w.answerIsJSON)
	sc.Step(`^the answer has the header "([^"]+)" starting with "([^"]*)"$`, w.headerStartsWith)
}

func (w *world) answerIs(status int) error {
	a, err := w.answer()
	if err != nil {
		return err
	}
	if a.status != status {
		return w.failf("status %d, want %d", a.status, status)
	}
	return nil
}

func (w *world) answerIsJSON(status int) error {
	if err := w.answerIs(status); err != nil {
		return err
	}
	if ct := w.last.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return w.failf("Content-Type %q, want application/json", ct)
	}
	_, err := w.last.json()
	return err
}

func (w *world) headerStartsWith(name, prefix string) error {
	a, err := w.answer()
	if err != nil {
		return err
	}
	if v := a.header.Get(name); !strings.HasPrefix(v, prefix) {
		return w.failf("header %s is %q, want it to start with %q", name, v, prefix)
	}
	return nil
}

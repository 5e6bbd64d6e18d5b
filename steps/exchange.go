package steps

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cucumber/godog"
	"github.com/go-resty/resty/v2"
	"golang.org/x/net/html"
)

// exchange is one HTTP request and its answer, kept for assertions and as the evidence a failed scenario shows.
type exchange struct {
	method, url string
	// requestID is the x-request-id the request carried, when the steps set one (the gateway's access log
	// is searched by it).
	requestID string
	// requestHeader and requestBody are what was sent, as it went on the wire (evidence.go masks the secrets
	// when it shows them).
	requestHeader  http.Header
	requestBody    []byte
	status         int
	header         http.Header
	body           []byte
	sent, received time.Time
}

// request is one request a step sends through the exchange core. The zero value of every field is "none".
type request struct {
	method, url string
	// form or json is the body (a non-nil empty form is an empty form body); accept is the Accept header,
	// none when empty (api sends application/json then).
	form   url.Values
	json   any
	accept string
	// basic is HTTP Basic with a client's id and secret, form-encoded as RFC 6749 2.3.1 asks of clients;
	// user is HTTP Basic as written, as a person signs in; bearer is a token.
	basic, user *credentials
	bearer      string
	header      map[string]string
}

// credentials are a name and a password (or a client id and secret).
type credentials struct{ name, password string }

// maxBody bounds what an answer may bring into memory.
const maxBody = 4 << 20

// newRestyClient wraps the suite's HTTP client (redirects are answers to check, not to follow) and records
// every answer it gets.
func newRestyClient(hc *http.Client, record func(*exchange)) *resty.Client {
	// Basic credentials over plain HTTP are what a loopback target gets; resty's warning about it is noise.
	c := resty.NewWithClient(hc).SetResponseBodyLimit(maxBody).SetDisableWarn(true)
	c.OnAfterResponse(func(_ *resty.Client, r *resty.Response) error {
		ex := &exchange{method: r.Request.Method, url: r.Request.URL, requestID: r.Request.Header.Get("x-request-id"),
			status: r.StatusCode(), header: r.Header(), body: r.Body(), sent: r.Request.Time, received: r.ReceivedAt()}
		if raw := r.Request.RawRequest; raw != nil { // the request as sent: with its credentials and its body
			ex.requestHeader, ex.requestBody = raw.Header.Clone(), requestBody(raw)
		}
		record(ex)
		return nil
	})
	return c
}

// requestBody reads again the body of a request that was sent, from its GetBody; nil when it has none.
func requestBody(req *http.Request) []byte {
	if req.GetBody == nil {
		return nil
	}
	rc, err := req.GetBody()
	if err != nil {
		return nil
	}
	defer rc.Close()
	body, _ := io.ReadAll(io.LimitReader(rc, maxBody))
	return body
}

// record makes an exchange the scenario's last and keeps it as evidence.
func (s *scenario) record(ex *exchange) {
	s.last = ex
	s.keep(ex)
}

// keep adds an exchange to the scenario's evidence, the last maxEvidence of them; it does not become the last
// answer (the browser's redirect hops are kept, the steps decide which page is the answer).
func (s *scenario) keep(ex *exchange) {
	if len(s.exchanges) == maxEvidence {
		copy(s.exchanges, s.exchanges[1:])
		s.exchanges = s.exchanges[:maxEvidence-1]
	}
	s.exchanges = append(s.exchanges, ex)
}

// api makes a request to an API that answers JSON, and keeps the exchange as the scenario's last.
func (s *scenario) api(r request) error {
	r.accept = cmp.Or(r.accept, "application/json")
	return s.send(r)
}

// send makes a request as written and keeps the exchange as the scenario's last.
func (s *scenario) send(r request) error {
	_, err := s.sendWith(s.http, r)
	return err
}

// sendWith makes a request with a client of the exchange core and returns the exchange it recorded.
func (s *scenario) sendWith(c *resty.Client, r request) (*exchange, error) {
	req := c.R()
	if r.accept != "" {
		req.SetHeader("Accept", r.accept)
	}
	switch {
	case r.form != nil && len(r.form) == 0: // resty sends no body, and no Content-Type, for an empty form
		req.SetHeader("Content-Type", "application/x-www-form-urlencoded").SetBody("")
	case r.form != nil:
		req.SetFormDataFromValues(r.form)
	case r.json != nil:
		req.SetHeader("Content-Type", "application/json").SetBody(r.json)
	}
	switch {
	case r.basic != nil:
		req.SetBasicAuth(url.QueryEscape(r.basic.name), url.QueryEscape(r.basic.password))
	case r.user != nil:
		req.SetBasicAuth(r.user.name, r.user.password)
	case r.bearer != "":
		req.SetAuthToken(r.bearer)
	}
	req.SetHeaders(r.header)
	s.last = nil
	if _, err := req.Execute(r.method, r.url); err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, r.url, err)
	}
	return s.last, nil
}

// do sends a request built by hand, for what the exchange core would hide: a path sent exactly as written.
func (s *scenario) do(req *http.Request) error {
	sent := time.Now()
	resp, err := s.suite.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return fmt.Errorf("%s %s: reading the body: %w", req.Method, req.URL, err)
	}
	s.record(&exchange{method: req.Method, url: req.URL.String(), requestHeader: req.Header.Clone(), requestBody: requestBody(req),
		status: resp.StatusCode, header: resp.Header, body: body, sent: sent, received: time.Now()})
	return nil
}

// answer returns the last exchange, or an error when no request was made yet.
func (s *scenario) answer() (*exchange, error) {
	if s.last == nil {
		return nil, fmt.Errorf("no request was made before this step")
	}
	return s.last, nil
}

// failf builds an assertion error that shows the exchange it is about.
func (s *scenario) failf(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if s.last != nil {
		msg += "\n" + s.last.String()
	}
	return fmt.Errorf("%s", msg)
}

func (e *exchange) String() string {
	body := excerpt(e.header.Get("Content-Type"), e.body, 600)
	id := ""
	if e.requestID != "" {
		id = " x-request-id=" + e.requestID
	}
	return fmt.Sprintf("  %s %s%s -> %d %s\n  %s", e.method, e.url, id, e.status, e.header.Get("Content-Type"), body)
}

// json decodes the body of the exchange, keeping numbers exact.
func (e *exchange) json() (any, error) {
	v, err := decodeJSON(string(e.body))
	if err != nil {
		return nil, fmt.Errorf("the body is not JSON: %w\n%s", err, e)
	}
	return v, nil
}

// jsonObject decodes the last answer as an object.
func (s *scenario) jsonObject() (map[string]any, error) {
	a, err := s.answer()
	if err != nil {
		return nil, err
	}
	v, err := a.json()
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, s.failf("the answer is not a JSON object")
	}
	return obj, nil
}

// attachEvidence puts the evidence of a failed or blocked scenario into the cucumber report: its last
// exchange as text, and its exchanges (the last maxEvidence) as the JSON the HTML report reads (evidence.go).
// A scenario that passed gets none.
func (s *scenario) attachEvidence(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
	if err == nil {
		return ctx, nil
	}
	if s.last != nil {
		ctx = godog.Attach(ctx, godog.Attachment{FileName: "last exchange", MediaType: "text/plain", Body: []byte(s.last.String())})
	}
	if len(s.exchanges) > 0 {
		body, jerr := json.Marshal(evidenceOf(s.exchanges))
		if jerr != nil {
			return ctx, fmt.Errorf("the evidence of the scenario: %w", jerr)
		}
		ctx = godog.Attach(ctx, godog.Attachment{FileName: ExchangesAttachment, MediaType: ExchangesMediaType, Body: body})
	}
	return ctx, nil
}

// decodeJSON decodes one JSON value, keeping numbers exact.
func decodeJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// excerpt is what a person needs to read of a body: an HTML page's text (its title and visible text, without
// head, scripts and styles, where an error page keeps its message), any other body as it is, cut at max bytes
// with its full size noted.
func excerpt(contentType string, body []byte, max int) string {
	text := string(body)
	if strings.Contains(contentType, "html") || (contentType == "" && bytes.HasPrefix(bytes.TrimSpace(body), []byte("<"))) {
		text = "[page text] " + pageText(body)
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	if len(text) > max {
		text = fmt.Sprintf("%s… (%d bytes in all)", prefixOf(text, max), len(body))
	}
	return text
}

// pageText is the text a browser shows of an HTML page, with its title first, in single spaces.
func pageText(body []byte) string {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return string(body)
	}
	var title string
	var b strings.Builder
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "title":
				if n.FirstChild != nil {
					title = n.FirstChild.Data
				}
				return
			case "script", "style", "noscript", "template":
				return
			}
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(doc)
	text := strings.Join(strings.Fields(b.String()), " ")
	if t := strings.Join(strings.Fields(title), " "); t != "" && !strings.HasPrefix(text, t) {
		text = t + " | " + text
	}
	return text
}

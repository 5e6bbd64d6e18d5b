package core

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cucumber/godog"
	"github.com/go-resty/resty/v2"
	"golang.org/x/net/html"
)

// Exchange is one HTTP request and its answer, kept for assertions and as the evidence a failed scenario shows.
type Exchange struct {
	Method, URL string
	// RequestID is the x-request-id the request carried, when the steps set one (the gateway's access log
	// is searched by it).
	RequestID string
	// RequestHeader and RequestBody are what was sent, as it went on the wire (evidence.go masks the secrets
	// when it shows them).
	RequestHeader  http.Header
	RequestBody    []byte
	Status         int
	Header         http.Header
	Body           []byte
	Sent, Received time.Time
	// BodyCut tells that the answer's body was longer than the harness reads: Body is its start.
	BodyCut bool
	// bodySize is the size of the whole body where Body holds a part of it (the evidence's cut), 0 otherwise.
	bodySize int
}

// Request is one request a step sends through the exchange core. The zero value of every field is "none".
type Request struct {
	Method, URL string
	// Form or JSON is the body (a non-nil empty form is an empty form body); Accept is the Accept header,
	// none when empty (API sends application/json then).
	Form   url.Values
	JSON   any
	Accept string
	// Basic is HTTP Basic with a client's id and secret, form-encoded as RFC 6749 2.3.1 asks of clients;
	// User is HTTP Basic as written, as a person signs in; Bearer is a token.
	Basic, User *Credentials
	Bearer      string
	Header      map[string]string
}

// Credentials are a name and a password (or a client id and secret).
type Credentials struct{ Name, Password string }

// MaxBody bounds what an answer may bring into memory.
const MaxBody = 4 << 20

// NewRestyClient wraps the suite's HTTP client (redirects are answers to check, not to follow) and records
// every answer it gets.
func NewRestyClient(hc *http.Client, record func(*Exchange)) *resty.Client {
	// Basic credentials over plain HTTP are what a loopback target gets; resty's warning about it is noise.
	c := resty.NewWithClient(hc).SetResponseBodyLimit(MaxBody).SetDisableWarn(true)
	c.OnAfterResponse(func(_ *resty.Client, r *resty.Response) error {
		ex := &Exchange{Method: r.Request.Method, URL: r.Request.URL, RequestID: r.Request.Header.Get("x-request-id"),
			Status: r.StatusCode(), Header: r.Header(), Body: r.Body(), Sent: r.Request.Time, Received: r.ReceivedAt()}
		if raw := r.Request.RawRequest; raw != nil { // the request as sent: with its credentials and its body
			ex.RequestHeader, ex.RequestBody = raw.Header.Clone(), ReadRequestBody(raw)
		}
		record(ex)
		return nil
	})
	return c
}

// ReadRequestBody reads again the body of a request that was sent, from its GetBody; nil when it has none.
func ReadRequestBody(req *http.Request) []byte {
	if req.GetBody == nil {
		return nil
	}
	rc, err := req.GetBody()
	if err != nil {
		return nil
	}
	defer rc.Close()
	body, _ := io.ReadAll(io.LimitReader(rc, MaxBody))
	return body
}

// Record makes an exchange the scenario's last and keeps it as evidence.
func (s *Scenario) Record(ex *Exchange) {
	s.Last = ex
	s.Keep(ex)
}

// Keep adds an exchange to the scenario's evidence, the last maxEvidence of them; it does not become the last
// answer (the browser's redirect hops are kept, the steps decide which page is the answer). The tokens a token
// response brings become secrets of the run. The evidence keeps each exchange cut to what it shows (evidence.go),
// so that twenty answers of 4 MiB do not stay in memory.
func (s *Scenario) Keep(ex *Exchange) {
	s.Run.Secrets.Learn(ex.Body)
	if len(s.exchanges) == maxEvidence {
		copy(s.exchanges, s.exchanges[1:])
		s.exchanges = s.exchanges[:maxEvidence-1]
	}
	s.exchanges = append(s.exchanges, ex.forEvidence())
}

// API makes a request to an API that answers JSON, and keeps the exchange as the scenario's last.
func (s *Scenario) API(r Request) error {
	r.Accept = cmp.Or(r.Accept, "application/json")
	return s.Send(r)
}

// Send makes a request as written and keeps the exchange as the scenario's last.
func (s *Scenario) Send(r Request) error {
	_, err := s.SendWith(s.HTTP, r)
	return err
}

// SendWith makes a request with a client of the exchange core and returns the exchange it recorded.
func (s *Scenario) SendWith(c *resty.Client, r Request) (*Exchange, error) {
	req := c.R()
	if r.Accept != "" {
		req.SetHeader("Accept", r.Accept)
	}
	switch {
	case r.Form != nil && len(r.Form) == 0: // resty sends no body, and no Content-Type, for an empty form
		req.SetHeader("Content-Type", "application/x-www-form-urlencoded").SetBody("")
	case r.Form != nil:
		req.SetFormDataFromValues(r.Form)
	case r.JSON != nil:
		req.SetHeader("Content-Type", "application/json").SetBody(r.JSON)
	}
	switch {
	case r.Basic != nil:
		req.SetBasicAuth(url.QueryEscape(r.Basic.Name), url.QueryEscape(r.Basic.Password))
	case r.User != nil:
		req.SetBasicAuth(r.User.Name, r.User.Password)
	case r.Bearer != "":
		req.SetAuthToken(r.Bearer)
	}
	req.SetHeaders(r.Header)
	req.SetContext(s.ctx)
	s.Last = nil
	defer s.Run.Waiting(r.Method + " " + redactedRaw(r.URL))()
	if _, err := req.Execute(r.Method, r.URL); err != nil {
		return nil, s.requestError(r.Method, r.URL, err)
	}
	return s.Last, nil
}

// requestError names the request that failed, without its query, and why: a deadline is said to be one.
func (s *Scenario) requestError(method, rawURL string, err error) error {
	var uo *UndeclaredOriginError
	switch {
	case errors.As(err, &uo):
		return fmt.Errorf("%s %s: %w", method, redactedRaw(rawURL), uo)
	case s.ctx.Err() != nil:
		return fmt.Errorf("%s %s: the run was stopped before the answer came: %w", method, redactedRaw(rawURL), context.Cause(s.ctx))
	case errors.Is(err, resty.ErrResponseBodyTooLarge):
		return fmt.Errorf("%s %s: the answer's body is larger than the %d MiB the harness reads", method, redactedRaw(rawURL), MaxBody>>20)
	case isTimeout(err):
		return fmt.Errorf("%s %s: no whole answer within %s (the harness's deadline for one request): %w",
			method, redactedRaw(rawURL), RequestTimeout, err)
	}
	return fmt.Errorf("%s %s: %w", method, redactedRaw(rawURL), err)
}

// isTimeout tells an error of a deadline.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// redactedRaw is Redacted for a URL as written; one that does not parse is left out.
func redactedRaw(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unparsable URL)"
	}
	return Redacted(u)
}

// Do sends a request built by hand, for what the exchange core would hide: a path sent exactly as written.
func (s *Scenario) Do(req *http.Request) error {
	sent := time.Now()
	req = req.WithContext(s.ctx)
	defer s.Run.Waiting(req.Method + " " + Redacted(req.URL))()
	resp, err := s.Run.HTTP.Do(req)
	if err != nil {
		return s.requestError(req.Method, req.URL.String(), err)
	}
	defer resp.Body.Close()
	body, cut, err := ReadBody(resp.Body, MaxBody)
	if err != nil {
		return s.requestError(req.Method, req.URL.String(), fmt.Errorf("reading the body: %w", err))
	}
	s.Record(&Exchange{Method: req.Method, URL: req.URL.String(), RequestHeader: req.Header.Clone(), RequestBody: ReadRequestBody(req),
		Status: resp.StatusCode, Header: resp.Header, Body: body, BodyCut: cut, Sent: sent, Received: time.Now()})
	return nil
}

// Answer returns the last exchange, or an error when no request was made yet.
func (s *Scenario) Answer() (*Exchange, error) {
	if s.Last == nil {
		return nil, fmt.Errorf("no request was made before this step")
	}
	return s.Last, nil
}

// Failf builds an assertion error that shows the exchange it is about.
func (s *Scenario) Failf(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if s.Last != nil {
		msg += "\n" + s.Last.String()
	}
	return fmt.Errorf("%s", MaskParams(s.Run.Secrets.Mask(Printable(msg))))
}

func (e *Exchange) String() string {
	body := Excerpt(e.Header.Get("Content-Type"), e.Body, 600)
	id := ""
	if e.RequestID != "" {
		id = " x-request-id=" + e.RequestID
	}
	return Printable(fmt.Sprintf("  %s %s%s -> %d %s\n  %s", e.Method, e.URL, id, e.Status, e.Header.Get("Content-Type"), body))
}

// JSON decodes the body of the exchange, keeping numbers exact.
func (e *Exchange) JSON() (any, error) {
	v, err := DecodeJSON(string(e.Body))
	if err != nil {
		return nil, fmt.Errorf("the body is not JSON: %w\n%s", err, e)
	}
	return v, nil
}

// JSONObject decodes the last answer as an object.
func (s *Scenario) JSONObject() (map[string]any, error) {
	a, err := s.Answer()
	if err != nil {
		return nil, err
	}
	v, err := a.JSON()
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, s.Failf("the answer is not a JSON object")
	}
	return obj, nil
}

// AttachEvidence puts the evidence of a failed or blocked scenario into the cucumber report: its last
// exchange as text, and its exchanges (the last maxEvidence) as the JSON the HTML report reads (evidence.go).
// A scenario that passed gets none.
func (s *Scenario) AttachEvidence(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
	if err == nil {
		return ctx, nil
	}
	if s.Last != nil {
		text := s.Run.Secrets.MaskEvidence(s.Last.masked().String())
		ctx = godog.Attach(ctx, godog.Attachment{FileName: "last exchange", MediaType: "text/plain", Body: []byte(text)})
	}
	if len(s.exchanges) > 0 {
		body, jerr := json.Marshal(s.Evidence())
		if jerr != nil {
			return ctx, fmt.Errorf("the evidence of the scenario: %w", jerr)
		}
		ctx = godog.Attach(ctx, godog.Attachment{FileName: ExchangesAttachment, MediaType: ExchangesMediaType, Body: body})
	}
	return ctx, nil
}

// DecodeJSON decodes one JSON value, keeping numbers exact.
func DecodeJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// Excerpt is what a person needs to read of a body: an HTML page's text (its title and visible text, without
// head, scripts and styles, where an error page keeps its message), any other body as it is, cut at max bytes
// with its full size noted.
func Excerpt(contentType string, body []byte, max int) string {
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

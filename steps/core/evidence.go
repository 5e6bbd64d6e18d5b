package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// The evidence of a failed or blocked scenario in cucumber.json, for the HTML report: one attachment that holds
// the scenario's HTTP exchanges, in order, as a JSON array of ExchangeRecord.
const (
	ExchangesAttachment = "exchanges"
	ExchangesMediaType  = "application/vnd.fortune-tck.exchanges+json"
)

// maxEvidence is how many exchanges a scenario keeps, its last; maxEvidenceBody is where the bodies of each
// are cut, maxEvidenceHeaders where their headers are, and maxHeaderValue where one header's value is.
const (
	maxEvidence        = 20
	maxEvidenceBody    = 16 << 10
	maxEvidenceHeaders = 16 << 10
	maxHeaderValue     = 4 << 10
)

// CutHeader is the header the evidence adds where it cut an exchange's headers, saying how much it left out.
const CutHeader = "X-Tck-Evidence-Cut"

// ExchangeRecord is one HTTP exchange in the attachment "exchanges". Secrets are masked: by name, the value of
// Authorization (its scheme is kept: "Basic ***"), and the form fields, JSON members and URL query parameters
// named in secretFields ("***"); by value, every secret the run knows (Secrets), wherever it appears. Bodies
// are cut at 16 KiB, ResponseBodySize being the size of the whole body; headers at 16 KiB, and the cut is said
// in the header CutHeader.
type ExchangeRecord struct {
	Method           string      `json:"method"`
	URL              string      `json:"url"`
	RequestHeaders   http.Header `json:"requestHeaders"`
	RequestBody      string      `json:"requestBody"`
	Status           int         `json:"status"`
	ResponseHeaders  http.Header `json:"responseHeaders"`
	ResponseBody     string      `json:"responseBody"`
	ResponseBodySize int         `json:"responseBodySize"`
	Sent             time.Time   `json:"sent"`     // RFC 3339 with nanoseconds
	Received         time.Time   `json:"received"` // RFC 3339 with nanoseconds
}

// secretFields are the request parameters whose values never leave the harness.
var secretFields = []string{"password", "client_secret", "refresh_token", "code", "code_verifier", "token", "access_token"}

// secretMask replaces a secret.
const secretMask = Mask

// evidenceOf is the attachment's content for a scenario's exchanges, the secrets of the run masked by value.
func evidenceOf(exs []*Exchange, secrets *Secrets) []ExchangeRecord {
	out := make([]ExchangeRecord, 0, len(exs))
	for _, e := range exs {
		e = e.forEvidence()
		size := len(e.Body)
		if e.bodySize > 0 {
			size = e.bodySize
		}
		body := secrets.MaskEvidence(string(e.Body))
		if e.BodyCut {
			body += fmt.Sprintf("… (cut: the answer was longer than the %d bytes the harness reads)", size)
		}
		out = append(out, ExchangeRecord{
			Method: e.Method, URL: secrets.MaskEvidence(maskURL(e.URL)),
			RequestHeaders: maskHeaderValues(maskHeaders(e.RequestHeader), secrets),
			RequestBody:    secrets.MaskEvidence(string(maskBody(e.RequestHeader.Get("Content-Type"), e.RequestBody))),
			Status:         e.Status, ResponseHeaders: maskHeaderValues(maskHeaders(e.Header), secrets),
			ResponseBody: body, ResponseBodySize: size,
			Sent: e.Sent, Received: e.Received,
		})
	}
	return out
}

// forEvidence is the exchange as evidence keeps it: its bodies cut at maxEvidenceBody on a character boundary
// (the size of the whole response body kept), its headers cut at maxEvidenceHeaders; e itself when it is within
// both.
func (e *Exchange) forEvidence() *Exchange {
	if len(e.Body) <= maxEvidenceBody && len(e.RequestBody) <= maxEvidenceBody && headerBytes(e.Header) <= maxEvidenceHeaders &&
		headerBytes(e.RequestHeader) <= maxEvidenceHeaders {
		return e
	}
	c := *e
	c.bodySize = max(e.bodySize, len(e.Body))
	c.Body, c.RequestBody = []byte(cut(e.Body)), []byte(cut(e.RequestBody))
	c.Header, c.RequestHeader = cutHeaders(e.Header), cutHeaders(e.RequestHeader)
	return &c
}

// headerBytes is the size of headers as written on the wire, near enough.
func headerBytes(h http.Header) int {
	n := 0
	for name, values := range h {
		for _, v := range values {
			n += len(name) + len(v) + 4
		}
	}
	return n
}

// cutHeaders keeps headers, in the order of their names, until maxEvidenceHeaders, each value cut at
// maxHeaderValue; what it leaves out is said in CutHeader.
func cutHeaders(h http.Header) http.Header {
	total := headerBytes(h)
	if total <= maxEvidenceHeaders {
		return h
	}
	out, kept := http.Header{}, 0
	for _, name := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[name] {
			if len(v) > maxHeaderValue {
				v = prefixOf(v, maxHeaderValue) + "…"
			}
			if kept+len(name)+len(v)+4 > maxEvidenceHeaders {
				continue
			}
			kept += len(name) + len(v) + 4
			out[name] = append(out[name], v)
		}
	}
	out.Set(CutHeader, fmt.Sprintf("the headers were %d bytes; %d are kept here", total, kept))
	return out
}

// maskHeaderValues masks the secrets of the run in every header value.
func maskHeaderValues(h http.Header, secrets *Secrets) http.Header {
	for name, values := range h {
		for i, v := range values {
			values[i] = secrets.MaskEvidence(v)
		}
		h[name] = values
	}
	return h
}

// masked is the exchange with its secrets masked by name, as its String shows it in a message.
func (e *Exchange) masked() *Exchange {
	c := *e
	c.URL = maskURL(e.URL)
	return &c
}

// maskHeaders copies the headers, never nil, with the credentials of Authorization masked and its scheme kept.
func maskHeaders(h http.Header) http.Header {
	out := http.Header{}
	for name, values := range h {
		values = slices.Clone(values)
		if c := http.CanonicalHeaderKey(name); c == "Authorization" || c == "Proxy-Authorization" {
			for i, v := range values {
				if scheme, _, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
					values[i] = scheme + " " + secretMask
				} else {
					values[i] = secretMask
				}
			}
		}
		out[name] = values
	}
	return out
}

// maskBody masks the secret fields of a form or the secret members of a JSON body; any other body is as sent.
func maskBody(contentType string, body []byte) []byte {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "application/x-www-form-urlencoded":
		return []byte(maskQuery(string(body)))
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return maskJSON(body)
	}
	return body
}

// maskQuery masks the secret fields of a form-encoded string, keeping the others and the order as written.
func maskQuery(q string) string {
	if q == "" {
		return q
	}
	parts := strings.Split(q, "&")
	for i, p := range parts {
		k, _, hasValue := strings.Cut(p, "=")
		if name, err := url.QueryUnescape(k); err == nil && hasValue && slices.Contains(secretFields, name) {
			parts[i] = k + "=" + secretMask
		}
	}
	return strings.Join(parts, "&")
}

// maskURL masks the secret parameters of a URL's query (a sign-in form sent with GET carries the password).
func maskURL(raw string) string {
	base, query, ok := strings.Cut(raw, "?")
	if !ok {
		return raw
	}
	query, fragment, hasFragment := strings.Cut(query, "#")
	out := base + "?" + maskQuery(query)
	if hasFragment {
		out += "#" + fragment
	}
	return out
}

// maskJSON masks the secret members of a JSON body at any depth; a body without any, or that is not JSON, is
// kept as sent.
func maskJSON(body []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || !maskMembers(v) {
		return body
	}
	out, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return out
}

// maskMembers masks the secret members of v, and tells whether it found any.
func maskMembers(v any) bool {
	found := false
	switch v := v.(type) {
	case map[string]any:
		for k, m := range v {
			if slices.Contains(secretFields, k) {
				if _, isString := m.(string); isString {
					v[k] = secretMask
					found = true
					continue
				}
			}
			found = maskMembers(m) || found
		}
	case []any:
		for _, m := range v {
			found = maskMembers(m) || found
		}
	}
	return found
}

// cut is a body as text, cut at maxEvidenceBody bytes on a character boundary.
func cut(body []byte) string { return prefixOf(string(body), maxEvidenceBody) }

// prefixOf is at most max bytes of text, ending on a character boundary.
func prefixOf(text string, max int) string {
	if len(text) <= max {
		return text
	}
	n := max
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n]
}

// Evidence is the scenario's evidence as the attachment "exchanges" holds it: its last exchanges, secrets
// masked.
func (s *Scenario) Evidence() []ExchangeRecord { return evidenceOf(s.exchanges, s.Run.Secrets) }

// ReadBody reads at most max bytes of a body; cut tells whether there was more, which is left unread.
func ReadBody(r io.Reader, max int) (body []byte, cut bool, err error) {
	body, err = io.ReadAll(io.LimitReader(r, int64(max)+1))
	if len(body) > max {
		return body[:max], true, err
	}
	return body, false, err
}

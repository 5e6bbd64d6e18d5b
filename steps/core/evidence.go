package core

import (
	"bytes"
	"encoding/json"
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
// are cut.
const (
	maxEvidence     = 20
	maxEvidenceBody = 16 << 10
)

// ExchangeRecord is one HTTP exchange in the attachment "exchanges". Secrets are masked: the value of Authorization
// (its scheme is kept: "Basic ***"), and the form fields, JSON members and URL query parameters named in
// secretFields ("***"). Bodies are cut at 16 KiB; ResponseBodySize is the size of the whole body.
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
const secretMask = "***"

// evidenceOf is the attachment's content for a scenario's exchanges.
func evidenceOf(exs []*Exchange) []ExchangeRecord {
	out := make([]ExchangeRecord, 0, len(exs))
	for _, e := range exs {
		out = append(out, ExchangeRecord{
			Method: e.Method, URL: maskURL(e.URL),
			RequestHeaders: maskHeaders(e.RequestHeader), RequestBody: cut(maskBody(e.RequestHeader.Get("Content-Type"), e.RequestBody)),
			Status: e.Status, ResponseHeaders: maskHeaders(e.Header), ResponseBody: cut(e.Body), ResponseBodySize: len(e.Body),
			Sent: e.Sent, Received: e.Received,
		})
	}
	return out
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
func (s *Scenario) Evidence() []ExchangeRecord { return evidenceOf(s.exchanges) }

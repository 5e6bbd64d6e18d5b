package htmlreport

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// fillFromCucumber takes a scenario's steps, duration and attachments from its cucumber element.
func fillFromCucumber(s *Scenario, el *cukeElement) {
	var total int64
	for _, h := range el.Before {
		total += h.Result.Duration
	}
	for _, h := range el.After {
		total += h.Result.Duration
	}
	for _, st := range el.Steps {
		total += st.Result.Duration
		step := Step{Keyword: strings.TrimSpace(st.Keyword), Text: st.Name, Status: st.Result.Status,
			Error: st.Result.Error, Duration: time.Duration(st.Result.Duration)}
		if st.DocString != nil {
			step.DocString = st.DocString.Value
		}
		for _, r := range st.Rows {
			step.Rows = append(step.Rows, r.Cells)
		}
		s.Steps = append(s.Steps, step)
	}
	s.Duration = time.Duration(total)
	for _, em := range el.embeddings() {
		addAttachment(s, em)
	}
}

// imageTypes are the pictures the page shows inline.
var imageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

func addAttachment(s *Scenario, em cukeEmbedding) {
	mt, data := em.mediaType(), em.data()
	name := cmp.Or(em.Name, mt)
	switch {
	case mt == ExchangesMediaType:
		xs, err := parseExchanges(data)
		if err != nil {
			s.Texts = append(s.Texts, Text{Name: name + " (unreadable: " + err.Error() + ")", Text: string(data)})
			return
		}
		s.Exchanges = append(s.Exchanges, xs...)
	case slices.Contains(imageTypes, mt):
		if len(data) > MaxImage {
			s.Omitted = append(s.Omitted, fmt.Sprintf("%s (%s, %d bytes: larger than %d)", name, mt, len(data), MaxImage))
			return
		}
		s.Images = append(s.Images, Image{Name: name, MediaType: mt, Data: data})
	case strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "":
		s.Texts = append(s.Texts, Text{Name: name, Text: string(data)})
	default:
		s.Omitted = append(s.Omitted, fmt.Sprintf("%s (%s, %d bytes)", name, mt, len(data)))
	}
}

// parseExchanges reads the exchanges attachment, leniently: a field of an unexpected type is shown as the JSON
// it is.
func parseExchanges(data []byte) ([]Exchange, error) {
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		return nil, err
	}
	var out []Exchange
	for _, it := range items {
		x := Exchange{Method: jsonText(it["method"]), URL: jsonText(it["url"]), Status: int(jsonInt(it["status"])),
			Sent: jsonText(it["sent"]), Received: jsonText(it["received"]),
			RequestHeaders: jsonHeaders(it["requestHeaders"]), ResponseHeaders: jsonHeaders(it["responseHeaders"])}
		x.RequestBody = body(jsonText(it["requestBody"]), jsonInt(it["requestBodySize"]))
		x.ResponseBody = body(jsonText(it["responseBody"]), jsonInt(it["responseBodySize"]))
		sent, err1 := time.Parse(time.RFC3339Nano, x.Sent)
		recv, err2 := time.Parse(time.RFC3339Nano, x.Received)
		if err1 == nil && err2 == nil && !recv.Before(sent) {
			x.Elapsed = recv.Sub(sent)
		}
		out = append(out, x)
	}
	return out, nil
}

// budget cuts the bodies past the first MaxBodies bytes of the page's bodies to MaxBodyOver, and tells whether
// it cut any.
func budget(scenarios []Scenario) bool {
	total, cut := 0, false
	for i := range scenarios {
		for j := range scenarios[i].Exchanges {
			x := &scenarios[i].Exchanges[j]
			for _, b := range []*Body{&x.RequestBody, &x.ResponseBody} {
				if total+len(b.Text) > MaxBodies && len(b.Text) > MaxBodyOver {
					b.Text = cutUTF8(b.Text, MaxBodyOver)
					b.Note = fmt.Sprintf("cut: the first %d of %d bytes (the page holds %d MiB of bodies at most)", len(b.Text), b.Size, MaxBodies>>20)
					cut = true
				}
				total += len(b.Text)
			}
		}
	}
	return cut
}

// body is a body cut at MaxBody, with a note of its size when it was cut; size is the size the writer
// reports, when it cut the body itself.
func body(text string, size int64) Body {
	b := Body{Text: text, Size: max(len(text), int(size))}
	var notes []string
	if !utf8.ValidString(text) {
		notes = append(notes, "not valid UTF-8: shown with the invalid bytes replaced")
	}
	if len(b.Text) > MaxBody {
		b.Text = cutUTF8(b.Text, MaxBody)
	}
	if b.Size > len(b.Text) {
		notes = append(notes, fmt.Sprintf("cut: the first %d of %d bytes", len(b.Text), b.Size))
	}
	b.Note = strings.Join(notes, "; ")
	return b
}

func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	return string(raw)
}

func jsonInt(raw json.RawMessage) int64 {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0
	}
	i, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil {
		return 0
	}
	return i
}

// jsonHeaders reads {name: [values]} (or {name: value}) as header lines, sorted by name.
func jsonHeaders(raw json.RawMessage) []Header {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		if len(raw) > 0 && string(raw) != "null" {
			return []Header{{Name: "(headers)", Value: string(raw)}}
		}
		return nil
	}
	var out []Header
	for name, v := range m {
		var vs []string
		if err := json.Unmarshal(v, &vs); err != nil {
			vs = []string{jsonText(v)}
		}
		for _, val := range vs {
			out = append(out, Header{Name: name, Value: val})
		}
	}
	slices.SortStableFunc(out, func(a, b Header) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
	return out
}

// sniffImage reports whether data is an image of the media type it claims.
func sniffImage(mediaType string, data []byte) bool {
	return slices.Contains(imageTypes, mediaType) && http.DetectContentType(data) == mediaType
}

package htmlreport

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// The cucumber JSON report as godog writes it (and as cucumber's other implementations mostly do): an array of
// features, each with its scenarios ("elements"), each with its steps and their results. Attachments are
// "embeddings" of a step (godog), of a hook (before, after) or of the element; their data is base64.

type cukeFeature struct {
	URI         string        `json:"uri"`
	ID          string        `json:"id"`
	Keyword     string        `json:"keyword"`
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Line        int           `json:"line"`
	Elements    []cukeElement `json:"elements"`
}

type cukeElement struct {
	ID         string          `json:"id"`
	Keyword    string          `json:"keyword"`
	Name       string          `json:"name"`
	Line       int             `json:"line"`
	Type       string          `json:"type"`
	Steps      []cukeStep      `json:"steps"`
	Before     []cukeHook      `json:"before"`
	After      []cukeHook      `json:"after"`
	Embeddings []cukeEmbedding `json:"embeddings"`
}

type cukeHook struct {
	Result     cukeResult      `json:"result"`
	Embeddings []cukeEmbedding `json:"embeddings"`
}

type cukeStep struct {
	Keyword   string `json:"keyword"`
	Name      string `json:"name"`
	Line      int    `json:"line"`
	DocString *struct {
		Value string `json:"value"`
	} `json:"doc_string"`
	Rows []struct {
		Cells []string `json:"cells"`
	} `json:"rows"`
	Result     cukeResult      `json:"result"`
	Embeddings []cukeEmbedding `json:"embeddings"`
}

type cukeResult struct {
	Status   string `json:"status"`
	Error    string `json:"error_message"`
	Duration int64  `json:"duration"` // nanoseconds
}

// cukeEmbedding is one attachment. Cucumber's JSON spells its type mime_type; some writers say media_type or
// mediaType (encoding/json matches keys without regard to case, so MediaType too).
type cukeEmbedding struct {
	Name      string `json:"name"`
	MimeType  string `json:"mime_type"`
	MediaType string `json:"media_type"`
	MediaAlt  string `json:"mediaType"`
	Data      string `json:"data"`
}

func (e cukeEmbedding) mediaType() string {
	t := e.MimeType
	if t == "" {
		t = e.MediaType
	}
	if t == "" {
		t = e.MediaAlt
	}
	t, _, _ = strings.Cut(t, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// data decodes the attachment; data that is not base64 is taken as written (some writers put text as it is).
func (e cukeEmbedding) data() []byte {
	if b, err := base64.StdEncoding.DecodeString(e.Data); err == nil {
		return b
	}
	if b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(e.Data), "")); err == nil {
		return b
	}
	return []byte(e.Data)
}

// embeddings are every attachment of an element: its hooks', its steps' and its own, in that order.
func (el cukeElement) embeddings() []cukeEmbedding {
	var out []cukeEmbedding
	for _, h := range el.Before {
		out = append(out, h.Embeddings...)
	}
	for _, s := range el.Steps {
		out = append(out, s.Embeddings...)
	}
	for _, h := range el.After {
		out = append(out, h.Embeddings...)
	}
	return append(out, el.Embeddings...)
}

// parseCucumber reads a cucumber JSON report. Anything else (not JSON, JSON of another shape) is an error that
// says what was found; name is the file, for the message.
func parseCucumber(name string, data []byte) ([]cukeFeature, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: empty; want the cucumber JSON report of a tck run", name)
	}
	var raw any
	if err := json.Unmarshal(trimmed, &raw); err != nil {
		return nil, fmt.Errorf("%s: not JSON (%v); want the cucumber JSON report of a tck run", name, err)
	}
	items, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: not a cucumber JSON report: want an array of features, found %s", name, jsonKind(raw))
	}
	for i, it := range items {
		obj, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: not a cucumber JSON report: item %d is %s, want a feature object", name, i, jsonKind(it))
		}
		if _, ok := obj["uri"].(string); !ok {
			return nil, fmt.Errorf("%s: not a cucumber JSON report: item %d has no \"uri\" (a feature of cucumber JSON has uri, name and elements)", name, i)
		}
		if el, ok := obj["elements"]; ok && el != nil {
			if _, ok := el.([]any); !ok {
				return nil, fmt.Errorf("%s: not a cucumber JSON report: item %d's \"elements\" is %s, want an array of scenarios", name, i, jsonKind(el))
			}
		}
	}
	var features []cukeFeature
	if err := json.Unmarshal(trimmed, &features); err != nil {
		return nil, fmt.Errorf("%s: not a cucumber JSON report: %v", name, err)
	}
	return features, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

package configserver

import (
	"bytes"
	"encoding/json"
)

// props is a flat property map that keeps insertion order, as the
// LinkedHashMap Spring serialises does. Values are string, bool, int64,
// uint64 or float64. A props in a cache is never modified.
type props struct {
	keys   []string
	values map[string]any
}

func newProps() *props { return &props{values: make(map[string]any)} }

// set adds or replaces a key; a replaced key keeps its first position.
func (p *props) set(key string, value any) {
	if _, ok := p.values[key]; !ok {
		p.keys = append(p.keys, key)
	}
	p.values[key] = value
}

func (p *props) len() int { return len(p.keys) }

// MarshalJSON writes the keys in order.
func (p *props) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range p.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := appendJSON(&buf, k); err != nil {
			return nil, err
		}
		buf.WriteByte(':')
		if err := appendJSON(&buf, p.values[k]); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// appendJSON encodes v without HTML escaping, as Jackson does.
func appendJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode adds a newline
	return nil
}

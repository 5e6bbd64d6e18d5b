package configapp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// environment is the configuration server's answer, reduced to what the
// client uses. PropertySources come highest precedence first.
type environment struct {
	Name            string           `json:"name"`
	Profiles        []string         `json:"profiles"`
	Label           *string          `json:"label"`
	Version         *string          `json:"version"`
	PropertySources []propertySource `json:"propertySources"`
}

type propertySource struct {
	Name   string `json:"name"`
	Source props  `json:"source"`
}

// props is a flat property map that keeps the server's key order (shown by
// /env). Values are compact JSON texts, so two values are equal exactly when
// their texts are: true and "true" differ, as they do for Spring.
type props struct {
	keys   []string
	values map[string]json.RawMessage
}

// UnmarshalJSON reads an object key by key to keep its order.
func (p *props) UnmarshalJSON(data []byte) error {
	*p = props{values: make(map[string]json.RawMessage)}
	if string(data) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("a property source is not a JSON object")
	}
	for dec.More() {
		if err := p.decodeEntry(dec); err != nil {
			return err
		}
	}
	return nil
}

func (p *props) decodeEntry(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	key, _ := tok.(string) // inside an object a token in key position is a string
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return fmt.Errorf("property %q: %w", key, err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return err
	}
	if _, ok := p.values[key]; !ok {
		p.keys = append(p.keys, key)
	}
	p.values[key] = buf.Bytes()
	return nil
}

// valueText is the value as a property string: a JSON string unquoted, null
// empty, anything else (numbers, booleans, nested JSON) as written.
func valueText(raw json.RawMessage) string {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	if string(raw) == "null" {
		return ""
	}
	return string(raw)
}

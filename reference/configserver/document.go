package configserver

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// mergeSources merges property sources (highest precedence first) into one
// map as Spring's EnvironmentController does: a higher source overrides a
// key, and a list it defines replaces the lower source's list as a whole, so
// a shorter list leaves no stale items behind.
func mergeSources(sources []propertySource) *props {
	merged := newProps()
	for _, src := range slices.Backward(sources) {
		for _, base := range listBases(src.Source) {
			merged = withoutList(merged, base)
		}
		for _, k := range src.Source.keys {
			merged.set(k, src.Source.values[k])
		}
	}
	return merged
}

// listBases returns the distinct keys before the first "[" of list keys.
func listBases(p *props) []string {
	var bases []string
	for _, k := range p.keys {
		if i := strings.IndexByte(k, '['); i > 0 && !slices.Contains(bases, k[:i]) {
			bases = append(bases, k[:i])
		}
	}
	return bases
}

func withoutList(p *props, base string) *props {
	out := newProps()
	for _, k := range p.keys {
		if !strings.HasPrefix(k, base+"[") {
			out.set(k, p.values[k])
		}
	}
	return out
}

// formatFloat writes a float so that it reads back as a float (1 -> 1.0).
func formatFloat(x float64) string {
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// formatValue renders a value for a .properties line.
func formatValue(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case float64:
		return formatFloat(v)
	default:
		return ""
	}
}

// propertiesText renders "key: value" lines sorted by key, as Spring does.
// Line breaks inside values are escaped so each property stays on one line.
func propertiesText(p *props) []byte {
	keys := slices.Clone(p.keys)
	slices.Sort(keys)
	escape := strings.NewReplacer("\\", `\\`, "\n", `\n`, "\r", `\r`)
	var buf bytes.Buffer
	for _, k := range keys {
		buf.WriteString(escape.Replace(k))
		buf.WriteString(": ")
		buf.WriteString(escape.Replace(formatValue(p.values[k])))
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// renderDocument renders merged properties in the format of ext.
func renderDocument(p *props, ext string) ([]byte, error) {
	switch ext {
	case ".properties":
		return propertiesText(p), nil
	case ".json":
		var buf bytes.Buffer
		if err := unflatten(p).appendJSON(&buf); err != nil {
			return nil, err
		}
		buf.WriteByte('\n')
		return buf.Bytes(), nil
	default:
		if p.len() == 0 {
			return []byte("{}\n"), nil
		}
		var buf bytes.Buffer
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(unflatten(p).yamlNode()); err != nil {
			return nil, err
		}
		return buf.Bytes(), enc.Close()
	}
}

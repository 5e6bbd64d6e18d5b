package harness

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fortune-tck/fortune-tck/harness/catalog"
)

// godog names scenarios in junit.xml by their names and in cucumber.json by an id made of the feature's and
// the scenario's names, both of which change when a sentence is reworded. The harness rewrites both files after
// godog wrote them, so that CI history and other tools see the stable IDs the conformance report uses
// (catalog.Scenario.ID).

// stableIDs rewrites junit.xml and cucumber.json in dir in place. A file it cannot rewrite is left as godog
// wrote it, and named in the error.
func stableIDs(dir string, cat *catalog.Catalog) error {
	var errs []error
	for _, f := range []struct {
		name    string
		rewrite func([]byte, *catalog.Catalog) ([]byte, error)
	}{{"junit.xml", stableJUnit}, {"cucumber.json", stableCucumber}} {
		path := filepath.Join(dir, f.name)
		data, err := os.ReadFile(path)
		if err == nil {
			data, err = f.rewrite(data, cat)
		}
		if err == nil {
			err = os.WriteFile(path, data, 0o644)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", path, err))
		}
	}
	return errors.Join(errs...)
}

// stableCucumber sets the id of every element (scenario, or row of an outline) to its stable ID, found by the
// feature's uri and the element's line (an outline row's own line, as in the catalog). Everything else is
// kept as godog wrote it, in its order.
func stableCucumber(data []byte, cat *catalog.Catalog) ([]byte, error) {
	byLine := map[string]catalog.Scenario{}
	for _, s := range cat.Scenarios {
		byLine[s.Location()] = s
	}
	var doc []object
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	for _, feature := range doc {
		var uri string
		if err := feature.get("uri", &uri); err != nil {
			return nil, err
		}
		var elements []object
		if err := feature.get("elements", &elements); err != nil {
			return nil, err
		}
		for _, el := range elements {
			var line int
			if err := el.get("line", &line); err != nil {
				return nil, err
			}
			s, ok := byLine[fmt.Sprintf("%s:%d", uri, line)]
			if !ok {
				return nil, fmt.Errorf("no scenario of the features at %s:%d", uri, line)
			}
			if err := el.set("id", s.ID()); err != nil {
				return nil, err
			}
		}
		if elements != nil {
			if err := feature.set("elements", elements); err != nil {
				return nil, err
			}
		}
	}
	out, err := json.MarshalIndent(doc, "", "    ")
	return append(out, '\n'), err
}

// object is a JSON object that keeps its members in their order.
type object []member

type member struct {
	key   string
	value json.RawMessage
}

func (o *object) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("want a JSON object, got %.40s", data)
	}
	*o = nil
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		*o = append(*o, member{key: t.(string), value: v})
	}
	_, err := dec.Token()
	return err
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// get decodes the member key into v; a missing member leaves v as it is.
func (o object) get(key string, v any) error {
	for _, m := range o {
		if m.key == key {
			if err := json.Unmarshal(m.value, v); err != nil {
				return fmt.Errorf("%q: %w", key, err)
			}
		}
	}
	return nil
}

// set replaces the member key, or adds it at the end.
func (o *object) set(key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	for i, m := range *o {
		if m.key == key {
			(*o)[i].value = data
			return nil
		}
	}
	*o = append(*o, member{key: key, value: data})
	return nil
}

// stableJUnit names every testcase by its stable ID and gives it the feature (its file without .feature, the
// prefix of the ID) as classname. junit.xml knows a testcase only by the name of its feature (the testsuite)
// and its own name (the pickle's, unique within a feature file since their IDs are); two feature files with
// one name are told apart by which of them has all the testsuite's scenarios.
func stableJUnit(data []byte, cat *catalog.Catalog) ([]byte, error) {
	var doc junitSuites
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	byFeature := map[string][]string{} // feature name -> its files, in catalog order
	byName := map[string]catalog.Scenario{}
	for _, s := range cat.Scenarios {
		if fs := byFeature[s.Feature]; len(fs) == 0 || fs[len(fs)-1] != s.URI {
			byFeature[s.Feature] = append(fs, s.URI)
		}
		byName[s.URI+"\x00"+s.Name] = s
	}
	used := map[string]bool{}
	for i := range doc.Suites {
		suite := &doc.Suites[i]
		name := attr(suite.Attrs, "name")
		uri := ""
		for _, u := range byFeature[name] {
			if used[u] {
				continue
			}
			all := true
			for _, c := range suite.Cases {
				if _, ok := byName[u+"\x00"+attr(c.Attrs, "name")]; !ok {
					all = false
					break
				}
			}
			if all {
				uri = u
				break
			}
		}
		if uri == "" {
			return nil, fmt.Errorf("the testsuite %q is no feature file whose scenarios are its testcases", name)
		}
		used[uri] = true
		for j := range suite.Cases {
			c := &suite.Cases[j]
			s := byName[uri+"\x00"+attr(c.Attrs, "name")]
			c.Attrs = setAttr(c.Attrs, "name", s.ID())
			c.Attrs = setAttr(c.Attrs, "classname", strings.TrimSuffix(s.URI, ".feature"))
		}
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// The shape of godog's junit.xml, with every attribute kept as it is and a testcase's children (failure,
// error) kept as written.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Attrs   []xml.Attr   `xml:",any,attr"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Attrs []xml.Attr  `xml:",any,attr"`
	Cases []junitCase `xml:"testcase"`
}

type junitCase struct {
	Attrs []xml.Attr `xml:",any,attr"`
	Inner string     `xml:",innerxml"`
}

func attr(attrs []xml.Attr, name string) string {
	for _, a := range attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// setAttr sets the attribute name; a new one comes right after name (classname reads best beside it).
func setAttr(attrs []xml.Attr, name, value string) []xml.Attr {
	for i, a := range attrs {
		if a.Name.Local == name {
			attrs[i].Value = value
			return attrs
		}
	}
	a := xml.Attr{Name: xml.Name{Local: name}, Value: value}
	if len(attrs) > 0 && attrs[0].Name.Local == "name" {
		return append(attrs[:1], append([]xml.Attr{a}, attrs[1:]...)...)
	}
	return append(attrs, a)
}

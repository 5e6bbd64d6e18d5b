package configserver

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseYAMLFlattensLikeSpring(t *testing.T) {
	src := `
base: &base
  host: localhost
  port: 80
server:
  <<: *base
  port: 8080
flags: {on: true, off: false, quoted: "true"}
numbers: [1, -2, 0x10, 1.5, 1e3, .inf, .nan, 99999999999999999999, 18446744073709551615]
nested: [[a, b], [], {}]
empty_map: {}
empty_list: []
nulls: [~, null]
text: |
  two
  lines
"[weird]": x
dotted.key: y
when: 2024-01-02
---
second: document
text: overridden
`
	p, err := parseYAML([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"base.host": "localhost", "base.port": int64(80),
		"server.host": "localhost", "server.port": int64(8080),
		"flags.on": true, "flags.off": false, "flags.quoted": "true",
		"numbers[0]": int64(1), "numbers[1]": int64(-2), "numbers[2]": int64(16), "numbers[3]": 1.5,
		"numbers[4]": 1000.0, "numbers[5]": ".inf", "numbers[6]": ".nan",
		"numbers[7]": 1e20, "numbers[8]": uint64(18446744073709551615),
		"nested[0][0]": "a", "nested[0][1]": "b", "nested[1]": "",
		"empty_list": "", "nulls[0]": "", "nulls[1]": "",
		"text": "overridden", "[weird]": "x", "dotted.key": "y", "when": "2024-01-02",
		"second": "document",
	}
	if !reflect.DeepEqual(p.values, want) {
		for k, v := range p.values {
			if !reflect.DeepEqual(want[k], v) {
				t.Errorf("%s = %#v, want %#v", k, v, want[k])
			}
		}
		for k := range want {
			if _, ok := p.values[k]; !ok {
				t.Errorf("missing %s", k)
			}
		}
	}
	if p.keys[0] != "base.host" || p.keys[len(p.keys)-1] != "second" {
		t.Errorf("order %v", p.keys)
	}
}

func TestParseYAMLErrorsCarryTheLine(t *testing.T) {
	tests := map[string]string{
		"a: 1\nb: [x\n":        "line ",
		"- a\n":                "line 1",
		"a: 1\n---\nplain\n":   "line 3",
		"a:\n  ? [x]\n  : y\n": "line 2",
		"a:\n  <<: 3\n":        "line 2",
		"\t- a: b":             "line 1",
	}
	for src, line := range tests {
		_, err := parseYAML([]byte(src))
		if err == nil || !strings.Contains(err.Error(), line) {
			t.Errorf("parseYAML(%q) = %v, want an error with %q", src, err, line)
		}
	}
	// The line of the error itself, not the line before it (yaml.v3 reports
	// the line of its parsing context, counted from 0, for parser errors).
	exact := map[string]string{
		"a: 1\nb: 2\nc: d: e\n":     "yaml: line 3: ",
		"a: 1\nb: 2\n\tc: 3\n":      "yaml: line 3: ",
		"a: 1\nb: 2\n- x\n":         "yaml: line 3: ",
		"a: 1\nb: {x: 1\n":          "yaml: line 2: ",
		"a: 1\nb: 2\nc: [x\nd: 4\n": "yaml: line 3: ",
		"a: 1\nb:\n  - x\n  y: 1\n": "yaml: line 4: ",
		"a: 1\nb: 2\nc: \"x\n":      "yaml: line 3: ",
		"a: 1\nb: 2\nc: *nope\n":    "yaml: line 3: ",
		"a: 1\n\n\n# c\nb: c: d\n":  "yaml: line 5: ",
	}
	for src, prefix := range exact {
		_, err := parseYAML([]byte(src))
		if err == nil || !strings.HasPrefix(err.Error(), prefix) {
			t.Errorf("parseYAML(%q) = %v, want an error starting %q", src, err, prefix)
		}
	}
	for _, src := range []string{"", "# comment only\n", "~\n", "---\n---\n"} {
		if p, err := parseYAML([]byte(src)); err != nil || p.len() != 0 {
			t.Errorf("parseYAML(%q) = %v, %v; want no keys", src, p, err)
		}
	}
}

func TestParseYAMLResistsAliasBombsAndDepth(t *testing.T) {
	bomb := `a: &a ["x","x","x","x","x","x","x","x","x"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
`
	start := time.Now()
	_, err := parseYAML([]byte(bomb))
	if err == nil || time.Since(start) > 10*time.Second {
		t.Fatalf("alias bomb: %v after %v", err, time.Since(start))
	}
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	if _, err := parseYAML([]byte("a: " + deep)); err == nil {
		t.Fatal("deep nesting accepted")
	}
}

func FuzzParseYAML(f *testing.F) {
	f.Add([]byte(appYML))
	f.Add([]byte("a: &x {b: *x}"))
	f.Add([]byte("<<: [{a: 1}, {b: 2}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parseYAML(data)
		if err != nil {
			return
		}
		for _, ext := range []string{".yml", ".json", ".properties"} {
			if _, err := renderDocument(p, ext); err != nil {
				t.Fatalf("render %s: %v", ext, err)
			}
		}
	})
}

package configserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Bounds that keep a hostile or broken file (deep nesting, alias bombs) from
// exhausting the server; real configuration is far below them.
const (
	maxDepth  = 64
	maxKeys   = 100_000
	maxVisits = 1_000_000
)

// parseYAML flattens a YAML file into properties the way Spring's
// YamlProcessor does: nested keys joined with ".", list items as "[i]", null
// and empty lists as "", empty maps dropped. Several documents in one file
// are merged in order (later documents win); spring.profiles activation
// inside a file is not supported.
func parseYAML(data []byte) (p *props, err error) {
	defer func() {
		if r := recover(); r != nil { // the YAML library must not take the server down
			p, err = nil, fmt.Errorf("the YAML parser failed: %v", r)
		}
	}()
	if p, err = flatten(data); err != nil {
		return nil, withLine(data, err)
	}
	return p, nil
}

func flatten(data []byte) (*props, error) {
	f := &flattener{out: newProps()}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return f.out, nil
		}
		if err != nil {
			return nil, &syntaxError{err}
		}
		if err := f.document(&doc); err != nil {
			return nil, err
		}
	}
}

// yamlLine matches the line yaml.v3 puts in its errors.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// syntaxError is an error of the YAML library, whose line is not to be
// trusted: parser errors carry the line where the construct being parsed
// began, counted from 0, and a few scanner errors carry none.
type syntaxError struct{ err error }

func (e *syntaxError) Error() string { return e.err.Error() }

// withLine gives a syntax error the line where the file stops being valid
// YAML: the shortest prefix of whole lines that fails the same way, searched
// from the line the library reported (the start of the construct, which
// cannot be after the error). Errors of the flattener carry node lines,
// which are right, and are returned as they are.
func withLine(data []byte, err error) error {
	var se *syntaxError
	if !errors.As(err, &se) {
		return err
	}
	msg, from := stripLine(se.err.Error())
	lines := bytes.SplitAfter(data, []byte("\n"))
	lo, hi := max(from, 1), len(lines)
	if lo > hi {
		lo = hi
	}
	for lo < hi {
		mid := (lo + hi) / 2
		_, perr := flatten(bytes.Join(lines[:mid], nil))
		if perr != nil {
			if pmsg, _ := stripLine(perr.Error()); pmsg == msg {
				hi = mid
				continue
			}
		}
		lo = mid + 1
	}
	return fmt.Errorf("yaml: line %d: %s", lo, msg)
}

// stripLine splits "yaml: line N: message" into the message and N (0 when
// there is no line).
func stripLine(s string) (string, int) {
	m := yamlLine.FindStringSubmatch(s)
	if m == nil {
		return strings.TrimPrefix(s, "yaml: "), 0
	}
	n, _ := strconv.Atoi(m[1])
	return s[len(m[0]):], n
}

type flattener struct {
	out    *props
	visits int
}

func (f *flattener) document(doc *yaml.Node) error {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil
	}
	root := deref(doc.Content[0])
	switch {
	case root.Kind == yaml.MappingNode:
		return f.mapping("", root, 0)
	case root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null":
		return nil // an empty document
	default:
		return fmt.Errorf("yaml: line %d: the top level is %s, not a mapping", root.Line, kindName(root.Kind))
	}
}

func (f *flattener) node(key string, n *yaml.Node, depth int) error {
	n = deref(n)
	if f.visits++; f.visits > maxVisits {
		return fmt.Errorf("yaml: line %d: too many nodes (aliases expand to more than %d)", n.Line, maxVisits)
	}
	if depth > maxDepth {
		return fmt.Errorf("yaml: line %d: nested more than %d levels deep", n.Line, maxDepth)
	}
	switch n.Kind {
	case yaml.MappingNode:
		return f.mapping(key, n, depth)
	case yaml.SequenceNode:
		return f.sequence(key, n, depth)
	case yaml.ScalarNode:
		return f.set(key, scalarValue(n), n.Line)
	default:
		return f.set(key, "", n.Line)
	}
}

// mapping flattens a mapping; merge keys (<<) are applied first so that the
// mapping's own keys override them wherever they appear.
func (f *flattener) mapping(prefix string, n *yaml.Node, depth int) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.ShortTag() == "!!merge" {
			if err := f.merge(prefix, n.Content[i+1], depth); err != nil {
				return err
			}
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := deref(n.Content[i])
		if k.ShortTag() == "!!merge" {
			continue
		}
		if k.Kind != yaml.ScalarNode {
			return fmt.Errorf("yaml: line %d: a mapping key must be a scalar, not %s", k.Line, kindName(k.Kind))
		}
		if err := f.node(joinKey(prefix, k.Value), n.Content[i+1], depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (f *flattener) merge(prefix string, v *yaml.Node, depth int) error {
	v = deref(v)
	sources := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		sources = v.Content
	}
	for _, m := range sources {
		m = deref(m)
		if m.Kind != yaml.MappingNode {
			return fmt.Errorf("yaml: line %d: a merge key (<<) needs a mapping", m.Line)
		}
		if err := f.node(prefix, m, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (f *flattener) sequence(key string, n *yaml.Node, depth int) error {
	if len(n.Content) == 0 {
		return f.set(key, "", n.Line)
	}
	for i, item := range n.Content {
		if err := f.node(key+"["+strconv.Itoa(i)+"]", item, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (f *flattener) set(key string, v any, line int) error {
	if f.out.len() >= maxKeys {
		return fmt.Errorf("yaml: line %d: more than %d keys", line, maxKeys)
	}
	f.out.set(key, v)
	return nil
}

// joinKey joins like Spring: list indexes attach without a dot.
func joinKey(prefix, key string) string {
	switch {
	case prefix == "":
		return key
	case len(key) > 0 && key[0] == '[':
		return prefix + key
	default:
		return prefix + "." + key
	}
}

// scalarValue keeps the YAML type (bool, int, float, string; null is "").
// Values JSON cannot carry (.inf, .nan, huge ints) stay strings.
func scalarValue(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return ""
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return i
		}
		var u uint64
		if n.Decode(&u) == nil {
			return u
		}
	case "!!float":
		var x float64
		if n.Decode(&x) == nil && !math.IsInf(x, 0) && !math.IsNaN(x) {
			return x
		}
	}
	return n.Value
}

// deref follows aliases; yaml.v3 rejects alias cycles, the bound is a guard.
func deref(n *yaml.Node) *yaml.Node {
	for range maxDepth {
		if n.Kind != yaml.AliasNode || n.Alias == nil {
			return n
		}
		n = n.Alias
	}
	return n
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "a scalar"
	case yaml.AliasNode:
		return "an alias"
	case yaml.MappingNode:
		return "a mapping"
	default:
		return "empty"
	}
}

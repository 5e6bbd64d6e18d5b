package configserver

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// tree is a nested document rebuilt from flat keys.
type tree struct {
	kind   treeKind
	value  any              // leaf
	keys   []string         // mapping, in insertion order
	fields map[string]*tree // mapping
	items  map[int]*tree    // list; sparse so a key like a[99999] costs nothing
}

type treeKind int

const (
	emptyKind treeKind = iota
	leafKind
	mapKind
	listKind
)

// step is one element of a flat key: a mapping key or a list index.
type step struct {
	key   string
	index int
	list  bool
}

// unflatten rebuilds the nested document. Flat keys from different files may
// disagree on a shape ("a: 1" and "a.b: 2"): a container replaces a leaf, and
// a key that conflicts with an existing container of the other kind is dropped.
func unflatten(p *props) *tree {
	root := &tree{}
	root.become(mapKind)
	for _, k := range p.keys {
		root.insert(splitKey(k), p.values[k])
	}
	return root
}

func (t *tree) become(kind treeKind) {
	t.kind, t.value = kind, nil
	switch kind {
	case mapKind:
		t.fields = make(map[string]*tree)
	case listKind:
		t.items = make(map[int]*tree)
	}
}

func (t *tree) insert(steps []step, v any) {
	cur := t
	for _, s := range steps {
		if cur = cur.child(s); cur == nil {
			return
		}
	}
	if cur.kind == emptyKind || cur.kind == leafKind {
		cur.kind, cur.value = leafKind, v
	}
}

func (t *tree) child(s step) *tree {
	want := mapKind
	if s.list {
		want = listKind
	}
	if t.kind == emptyKind || t.kind == leafKind {
		t.become(want)
	}
	if t.kind != want {
		return nil
	}
	if s.list {
		if t.items[s.index] == nil {
			t.items[s.index] = &tree{}
		}
		return t.items[s.index]
	}
	if t.fields[s.key] == nil {
		t.fields[s.key] = &tree{}
		t.keys = append(t.keys, s.key)
	}
	return t.fields[s.key]
}

// splitKey parses "a.b[0][1].c" into steps. Anything that is not a clean
// index (a[x], a[], a[-1], [0] alone) is kept as a literal key.
func splitKey(key string) []step {
	var steps []step
	for _, part := range strings.Split(key, ".") {
		base, indexes := splitIndexes(part)
		steps = append(steps, step{key: base})
		for _, i := range indexes {
			steps = append(steps, step{index: i, list: true})
		}
	}
	return steps
}

func splitIndexes(part string) (string, []int) {
	base := part
	var indexes []int
	for strings.HasSuffix(base, "]") {
		open := strings.LastIndexByte(base, '[')
		if open < 0 {
			break
		}
		digits := base[open+1 : len(base)-1]
		i, err := strconv.Atoi(digits)
		if err != nil || i < 0 || digits != strconv.Itoa(i) {
			break
		}
		indexes = append([]int{i}, indexes...)
		base = base[:open]
	}
	if base == "" {
		return part, nil
	}
	return base, indexes
}

func (t *tree) sortedIndexes() []int {
	idx := make([]int, 0, len(t.items))
	for i := range t.items {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	return idx
}

// appendJSON writes the tree as JSON, mappings in insertion order and lists
// compacted in index order.
func (t *tree) appendJSON(buf *bytes.Buffer) error {
	switch t.kind {
	case mapKind:
		buf.WriteByte('{')
		for i, k := range t.keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := appendJSON(buf, k); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := t.fields[k].appendJSON(buf); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case listKind:
		buf.WriteByte('[')
		for n, i := range t.sortedIndexes() {
			if n > 0 {
				buf.WriteByte(',')
			}
			if err := t.items[i].appendJSON(buf); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case leafKind:
		return appendJSON(buf, t.value)
	default:
		buf.WriteString("null")
	}
	return nil
}

// yamlNode converts the tree for the YAML encoder, keeping order and types.
func (t *tree) yamlNode() *yaml.Node {
	switch t.kind {
	case mapKind:
		n := &yaml.Node{Kind: yaml.MappingNode}
		for _, k := range t.keys {
			key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}
			n.Content = append(n.Content, key, t.fields[k].yamlNode())
		}
		return n
	case listKind:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for _, i := range t.sortedIndexes() {
			n.Content = append(n.Content, t.items[i].yamlNode())
		}
		return n
	case leafKind:
		return scalarNode(t.value)
	default:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
}

func scalarNode(v any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode}
	switch v := v.(type) {
	case string:
		n.Tag, n.Value = "!!str", v
	case bool:
		n.Tag, n.Value = "!!bool", strconv.FormatBool(v)
	case int64:
		n.Tag, n.Value = "!!int", strconv.FormatInt(v, 10)
	case uint64:
		n.Tag, n.Value = "!!int", strconv.FormatUint(v, 10)
	case float64:
		n.Tag, n.Value = "!!float", formatFloat(v)
	default:
		n.Tag, n.Value = "!!null", "null"
	}
	return n
}

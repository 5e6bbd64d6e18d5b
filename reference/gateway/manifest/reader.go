package manifest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxNodes bounds the values read from one document. YAML aliases let a
// small file name the same subtree many times; reading it would then take
// time exponential in the file's size.
const maxNodes = 200_000

// doc collects what reading one resource finds: errors refuse the whole
// configuration, notices are logged and the rest is applied.
type doc struct {
	file     string
	resource string
	line     int // where the document starts
	nodes    int
	errs     Errors
	notices  []Notice
}

func (d *doc) errorf(n *yaml.Node, field, format string, args ...any) {
	d.errs = append(d.errs, &Error{File: d.file, Line: lineOf(n, d.line), Resource: d.resource, Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (d *doc) notice(n *yaml.Node, field, msg string) {
	d.notices = append(d.notices, Notice{File: d.file, Line: lineOf(n, d.line), Resource: d.resource, Field: field, Msg: msg})
}

// visit counts a node; false once the document is too large to read.
func (d *doc) visit(n *yaml.Node) bool {
	d.nodes++
	if d.nodes == maxNodes {
		d.errorf(n, "", "document too large (more than %d values once YAML aliases are expanded)", maxNodes)
	}
	return d.nodes < maxNodes
}

func lineOf(n *yaml.Node, fallback int) int {
	if n != nil && n.Line > 0 {
		return n.Line
	}
	return fallback
}

// resolve follows aliases and turns an explicit null into "absent", as the
// Kubernetes API server does.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	if n == nil || n.Kind == yaml.AliasNode || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null") {
		return nil
	}
	return n
}

// object is one YAML mapping being read. Every key read is marked; done
// reports the others, so a field the gateway does not act on is never
// ignored silently.
type object struct {
	d    *doc
	path string
	node *yaml.Node // nil when the object is absent
	keys []*yaml.Node
	vals map[string]*yaml.Node
	used map[string]bool
}

// object reads n, at path, as a mapping; an absent or invalid value gives an
// empty object (the error, if any, is recorded).
func (d *doc) object(path string, n *yaml.Node) *object {
	o := &object{d: d, path: path, vals: map[string]*yaml.Node{}, used: map[string]bool{}}
	n = resolve(n)
	if n == nil || !d.visit(n) {
		return o
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "must be an object")
		return o
	}
	o.node = n
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, path, "keys must be strings")
			continue
		}
		if _, dup := o.vals[k.Value]; dup {
			d.errorf(k, o.field(k.Value), "appears twice")
			continue
		}
		o.keys = append(o.keys, k)
		o.vals[k.Value] = v
	}
	return o
}

// present tells whether the object was given at all.
func (o *object) present() bool { return o.node != nil }

func (o *object) field(key string) string {
	if o.path == "" {
		return key
	}
	return o.path + "." + key
}

// take marks key as read and returns its value; nil when absent or null.
func (o *object) take(key string) *yaml.Node {
	o.used[key] = true
	return resolve(o.vals[key])
}

// has tells whether key is given with a non-null value, without reading it.
func (o *object) has(key string) bool { return resolve(o.vals[key]) != nil }

// ignore marks keys that carry no behaviour (metadata.labels, status).
func (o *object) ignore(keys ...string) {
	for _, k := range keys {
		o.used[k] = true
	}
}

// done reports every key that was not read as not implemented.
func (o *object) done() {
	for _, k := range o.keys {
		if !o.used[k.Value] {
			o.d.notice(k, o.field(k.Value), notImplemented)
		}
	}
}

// line is the line of key's value, or of the object.
func (o *object) line(key string) *yaml.Node {
	if v := resolve(o.vals[key]); v != nil {
		return v
	}
	return o.node
}

func (o *object) errorf(key, format string, args ...any) {
	o.d.errorf(o.line(key), o.field(key), format, args...)
}

// scalar returns key's scalar value and YAML tag, or ok=false (with an
// error when the value is not a scalar).
func (o *object) scalar(key string) (value, tag string, ok bool) {
	n := o.take(key)
	if n == nil || !o.d.visit(n) {
		return "", "", false
	}
	if n.Kind != yaml.ScalarNode {
		o.errorf(key, "must be a single value, not a list or an object")
		return "", "", false
	}
	return n.Value, n.ShortTag(), true
}

// str reads an optional string.
func (o *object) str(key string) string {
	v, _ := o.strOK(key)
	return v
}

// strOK reads an optional string; ok is false when it is absent or not a
// string. Numbers and booleans are refused, as the Kubernetes API server
// refuses them for a string field.
func (o *object) strOK(key string) (string, bool) {
	v, tag, ok := o.scalar(key)
	if !ok {
		return "", false
	}
	if tag != "!!str" && tag != "!!timestamp" {
		o.errorf(key, "must be a string (quote %q)", v)
		return "", false
	}
	return v, true
}

// requiredStr reads a string that must be given and not empty.
func (o *object) requiredStr(key string) string {
	if !o.has(key) {
		o.used[key] = true
		o.errorf(key, "is required")
		return ""
	}
	v, ok := o.strOK(key)
	if ok && v == "" {
		o.errorf(key, "must not be empty")
	}
	return v
}

// integer reads an optional integer within [min, max].
func (o *object) integer(key string, min, max int64) (int64, bool) {
	v, tag, ok := o.scalar(key)
	if !ok {
		return 0, false
	}
	if tag != "!!int" {
		o.errorf(key, "must be an integer, not %q", v)
		return 0, false
	}
	n, err := strconv.ParseInt(v, 0, 64)
	if err != nil || n < min || n > max {
		o.errorf(key, "must be an integer from %d to %d, not %s", min, max, v)
		return 0, false
	}
	return n, true
}

// boolean reads an optional boolean (true/false).
func (o *object) boolean(key string) bool {
	v, tag, ok := o.scalar(key)
	if !ok {
		return false
	}
	b, err := strconv.ParseBool(v)
	if tag != "!!bool" || err != nil {
		o.errorf(key, "must be true or false, not %q", v)
		return false
	}
	return b
}

// enum reads an optional string that must be one of valid; def when absent.
func (o *object) enum(key, def string, valid ...string) string {
	if !o.has(key) {
		o.used[key] = true
		return def
	}
	v, ok := o.strOK(key)
	if !ok {
		return ""
	}
	if slices.Contains(valid, v) {
		return v
	}
	o.errorf(key, "unsupported value %q; valid: %s", v, strings.Join(valid, ", "))
	return ""
}

// list reads an optional sequence; each element comes with its path.
func (o *object) list(key string) []item {
	n := o.take(key)
	if n == nil || !o.d.visit(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		o.errorf(key, "must be a list")
		return nil
	}
	items := make([]item, 0, len(n.Content))
	for i, c := range n.Content {
		items = append(items, item{path: fmt.Sprintf("%s[%d]", o.field(key), i), node: c})
	}
	return items
}

// item is one element of a list, with its field path.
type item struct {
	path string
	node *yaml.Node
}

// objects reads an optional list of objects.
func (o *object) objects(key string) []*object {
	var objs []*object
	for _, it := range o.list(key) {
		if resolve(it.node) == nil {
			o.d.errorf(it.node, it.path, "must be an object, not null")
			continue
		}
		objs = append(objs, o.d.object(it.path, it.node))
	}
	return objs
}

// strItem reads a list element that must be a string; "" after an error.
func (d *doc) strItem(it item) string {
	n := resolve(it.node)
	if n == nil || !d.visit(n) || n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		d.errorf(it.node, it.path, "must be a string")
		return ""
	}
	return n.Value
}

// child reads an optional nested object.
func (o *object) child(key string) *object { return o.d.object(o.field(key), o.take(key)) }

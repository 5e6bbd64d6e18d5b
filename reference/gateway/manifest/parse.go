package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// API groups and versions this gateway reads.
const (
	GatewayAPIGroup = "gateway.networking.k8s.io"
	EnvoyGroup      = "gateway.envoyproxy.io"
)

// MaxFileSize bounds one manifest file; a configuration directory holds
// hand-written resources, not data.
const MaxFileSize = 4 << 20

// File is one manifest file: its name (as shown in errors) and content.
type File struct {
	Name string
	Data []byte
}

// IsManifest tells whether a directory entry name is read as a manifest:
// *.yaml and *.yml, except hidden files (editors' temporary copies).
func IsManifest(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return !strings.HasPrefix(name, ".") && (ext == ".yaml" || ext == ".yml")
}

// ReadDir reads the manifest files of dir (not its sub-directories), sorted
// by name.
func ReadDir(dir string) ([]File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading configuration directory: %w", err)
	}
	var files []File
	for _, e := range entries {
		if !IsManifest(e.Name()) {
			continue
		}
		f, ok, err := readFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if ok {
			files = append(files, f)
		}
	}
	return files, nil
}

// ReadFile reads the manifest file name of dir as ReadDir would: ok is
// false when ReadDir would not read it (no such file, not a regular file,
// not a manifest name).
func ReadFile(dir, name string) (File, bool, error) {
	if !IsManifest(name) || name != filepath.Base(name) {
		return File{}, false, nil
	}
	f, ok, err := readFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return File{}, false, nil
	}
	return f, ok, err
}

func readFile(path string) (File, bool, error) {
	st, err := os.Stat(path) // follows symbolic links
	if err != nil {
		return File{}, false, fmt.Errorf("%s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return File{}, false, nil
	}
	if st.Size() > MaxFileSize {
		return File{}, false, fmt.Errorf("%s: larger than %d bytes", path, MaxFileSize)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return File{}, false, fmt.Errorf("%s: %w", path, err)
	}
	return File{Name: path, Data: data}, true, nil
}

// Parse reads every resource of files. Any error refuses the whole set:
// the result is then nil and the error is Errors, listing each problem with
// its file, resource and field. Notices (fields and kinds this gateway does
// not implement) come back either way. It is ParseFile of each file, then
// Combine.
func Parse(files []File) (*Set, []Notice, error) {
	parsed := make([]*Parsed, len(files))
	for i, f := range files {
		parsed[i] = ParseFile(f)
	}
	return Combine(parsed)
}

// LoadDir is ReadDir then Parse.
func LoadDir(dir string) (*Set, []Notice, error) {
	files, err := ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	return Parse(files)
}

type parser struct {
	set     *Set
	named   []named // resources with a name, for Combine's check of duplicates
	errs    Errors
	notices []Notice
}

func (p *parser) file(f File) {
	if len(f.Data) > MaxFileSize {
		p.errs = append(p.errs, &Error{File: f.Name, Msg: fmt.Sprintf("larger than %d bytes", MaxFileSize)})
		return
	}
	dec := yaml.NewDecoder(bytes.NewReader(f.Data))
	for i := 1; ; i++ {
		root, err := decode(dec)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			p.errs = append(p.errs, &Error{File: f.Name, Resource: fmt.Sprintf("document %d", i), Msg: "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")})
			return // the decoder cannot go on after a syntax error
		}
		if len(root.Content) == 0 {
			continue // an empty document: "---" alone, or only comments
		}
		d := &doc{file: f.Name, resource: fmt.Sprintf("document %d", i), line: root.Line}
		p.document(d, "", root.Content[0])
	}
}

// decode reads the next document. yaml.v3 has panicked on some malformed
// inputs in the past; a bad file must not stop the gateway.
func decode(dec *yaml.Decoder) (root *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cannot parse: %v", r)
		}
	}()
	var n yaml.Node
	if err := dec.Decode(&n); err != nil {
		return nil, err
	}
	return &n, nil
}

// document reads one resource (or a v1 List of resources) at path.
func (p *parser) document(d *doc, path string, n *yaml.Node) {
	defer p.collect(d)
	if resolve(n) == nil {
		return
	}
	o := d.object(path, n)
	if !o.present() {
		return
	}
	apiVersion, kind := o.requiredStr("apiVersion"), o.requiredStr("kind")
	if kind == "" || apiVersion == "" {
		return
	}
	if kind == "List" && apiVersion == "v1" {
		p.list(d, o)
		return
	}
	k, ok := kinds[kind]
	if !ok && !knownKind(apiVersion, kind) {
		group, _, _ := strings.Cut(apiVersion, "/")
		d.errorf(o.node, path, "kind %s is not a kind of %s; %s", kind, group, suggestKind(group, kind))
		return
	}
	if !ok {
		d.notice(o.node, path, fmt.Sprintf("kind %s (%s) is not implemented by this gateway; ignored", kind, apiVersion))
		return
	}
	meta := p.meta(d, o, kind)
	if !slices.Contains(k.versions, apiVersion) {
		o.errorf("apiVersion", "%q is not served for kind %s; valid: %s", apiVersion, kind, strings.Join(k.versions, ", "))
		return
	}
	o.ignore("status")
	k.read(p.set, meta, o)
	o.done()
}

// list reads the items of a v1 List (what kubectl get -o yaml prints).
func (p *parser) list(d *doc, o *object) {
	o.ignore("metadata")
	for _, it := range o.list("items") {
		item := &doc{file: d.file, resource: it.path, line: lineOf(it.node, d.line)}
		p.document(item, it.path, it.node)
	}
	o.done()
}

func (p *parser) collect(d *doc) {
	p.errs = append(p.errs, d.errs...)
	p.notices = append(p.notices, d.notices...)
	d.errs, d.notices = nil, nil
}

// kind is how one resource kind is read.
type kind struct {
	versions []string
	read     func(set *Set, m Meta, o *object)
}

var kinds = map[string]kind{
	"Gateway":              {[]string{GatewayAPIGroup + "/v1", GatewayAPIGroup + "/v1beta1"}, readGateway},
	"HTTPRoute":            {[]string{GatewayAPIGroup + "/v1", GatewayAPIGroup + "/v1beta1"}, readHTTPRoute},
	"Backend":              {[]string{EnvoyGroup + "/v1alpha1"}, readBackend},
	"BackendTrafficPolicy": {[]string{EnvoyGroup + "/v1alpha1"}, readPolicy},
	"Secret":               {[]string{"v1"}, readSecret},
}

// groupKinds are every kind of the API groups this gateway reads, whether
// it implements them or not. In these groups an unknown kind is a mistake
// (a misspelt BackendTrafficPolicy would leave its route unlimited), not
// something to ignore; kinds of other groups are ignored with a notice.
var groupKinds = map[string][]string{
	GatewayAPIGroup: {"BackendLBPolicy", "BackendTLSPolicy", "GRPCRoute", "Gateway", "GatewayClass", "HTTPRoute",
		"ListenerSet", "ReferenceGrant", "TCPRoute", "TLSRoute", "UDPRoute", "XBackendTrafficPolicy", "XListenerSet"},
	EnvoyGroup: {"Backend", "BackendTrafficPolicy", "ClientTrafficPolicy", "EnvoyExtensionPolicy", "EnvoyPatchPolicy",
		"EnvoyProxy", "HTTPRouteFilter", "SecurityPolicy"},
}

// knownKind reports whether kind may appear with apiVersion: any kind of a
// group this gateway does not read, a kind of one it reads.
func knownKind(apiVersion, kind string) bool {
	group, _, found := strings.Cut(apiVersion, "/")
	if !found {
		return true // the core group (v1): Secret is read, the rest ignored
	}
	known, owned := groupKinds[group]
	return !owned || slices.Contains(known, kind)
}

// suggestKind names the kind of group closest to kind, or lists them all.
func suggestKind(group, kind string) string {
	best, bestDist := "", 3 // at most two edits away
	for _, k := range groupKinds[group] {
		if d := editDistance(strings.ToLower(k), strings.ToLower(kind)); d < bestDist {
			best, bestDist = k, d
		}
	}
	if best != "" {
		return "did you mean " + best + "?"
	}
	return "valid: " + strings.Join(groupKinds[group], ", ")
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// meta reads metadata, names the document after the resource, and refuses
// a second resource of the same kind, namespace and name.
func (p *parser) meta(d *doc, o *object, kind string) Meta {
	md := o.child("metadata")
	m := Meta{Kind: kind, Namespace: "default", File: d.file, Line: lineOf(o.node, d.line)}
	name, nameOK := md.strOK("name")
	m.Name = name
	if ns, ok := md.strOK("namespace"); ok {
		m.Namespace = ns
	}
	if m.Name != "" {
		d.resource = m.String() // errors from here on name the resource
	}
	switch {
	case !md.has("name"):
		md.errorf("name", "is required")
	case nameOK && !validName(m.Name):
		md.errorf("name", "%q is not a valid name (lower-case letters, digits, '-' and '.', at most 253)", m.Name)
	}
	if md.has("namespace") && !validNamespace(m.Namespace) {
		md.errorf("namespace", "%q is not a valid namespace (lower-case letters, digits and '-', at most 63)", m.Namespace)
	}
	if ts := md.str("creationTimestamp"); ts != "" {
		t, err := time.Parse(time.RFC3339, ts)
		if err != nil {
			md.errorf("creationTimestamp", "must be an RFC 3339 time, e.g. 2024-01-02T15:04:05Z")
		}
		m.Created = t
	}
	md.ignore("labels", "annotations", "uid", "resourceVersion", "generation", "managedFields",
		"finalizers", "ownerReferences", "generateName", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds")
	md.done()
	if m.Name != "" {
		// Whether it is defined twice is known once every file is read
		// (Combine); its error would come here.
		p.named = append(p.named, named{key: m.String(), file: m.File, line: m.Line, errAt: len(p.errs) + len(d.errs),
			err: Error{File: d.file, Line: lineOf(md.line("name"), d.line), Resource: d.resource, Field: md.field("name")}})
	}
	return m
}

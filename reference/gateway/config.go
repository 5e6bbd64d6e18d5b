package gateway

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
	"github.com/fortune-tck/fortune-tck/reference/gateway/routing"
)

// config is one loaded directory: immutable once in force.
type config struct {
	table       *routing.Table
	fingerprint [sha256.Size]byte
	// accepted is the version in force of every file, sorted by name: what stands in for a file when a
	// later version of it is refused.
	accepted []*fileRead
}

// fileRead is one manifest file as last read, with what it holds, parsed
// on first need: a reload parses only the files whose bytes changed.
// Never modified once parsed.
type fileRead struct {
	name   string
	data   []byte
	id     [sha256.Size]byte // digest of the name and the content
	parsed *manifest.Parsed
}

func newFileRead(f manifest.File) *fileRead {
	h := sha256.New()
	fmt.Fprintf(h, "%d:%s\x00", len(f.Name), f.Name)
	h.Write(f.Data)
	r := &fileRead{name: f.Name, data: f.Data}
	h.Sum(r.id[:0])
	return r
}

// findRead finds the file named name in reads, sorted by name.
func findRead(reads []*fileRead, name string) (int, bool) {
	return slices.BinarySearchFunc(reads, name, func(r *fileRead, name string) int { return strings.Compare(r.name, name) })
}

func (f *fileRead) parse() *manifest.Parsed {
	if f.parsed == nil {
		f.parsed = manifest.ParseFile(manifest.File{Name: f.name, Data: f.data})
	}
	return f.parsed
}

// noContent marks a refusal that is not about the directory's content (it
// cannot be read, a port cannot be bound): it is retried and logged at
// every re-scan.
var noContent [sha256.Size]byte

// Reload reads the directory now (it is also read on every change and
// every Options.Rescan) and puts it in force when it changed. A file with
// errors is refused on its own: its last accepted version (none for a new
// file) stays in force and the other files apply, as a refused resource
// holds back no other in Kubernetes. A change that fails as a whole (a port
// that cannot be bound, routes that do not build) leaves the configuration
// in force untouched. Either way Reload returns why.
func (g *Gateway) Reload() error {
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	files, err := manifest.ReadDir(g.o.Dir)
	if err != nil {
		return g.unreadable(err)
	}
	return g.load(files)
}

// reloadFiles is Reload that reads again only the files named (the
// directory's entries a notification named), taking the others as last
// read: a change to one file of thousands reads one file. The periodic
// re-scan reads them all.
func (g *Gateway) reloadFiles(names []string) error {
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	if g.read == nil {
		files, err := manifest.ReadDir(g.o.Dir)
		if err != nil {
			return g.unreadable(err)
		}
		return g.load(files)
	}
	reads := slices.Clone(g.read)
	for _, name := range names {
		f, ok, err := manifest.ReadFile(g.o.Dir, name)
		if err != nil {
			return g.unreadable(err)
		}
		i, found := findRead(reads, filepath.Join(g.o.Dir, name))
		switch {
		case found && !ok:
			reads = slices.Delete(reads, i, i+1)
		case found && bytes.Equal(reads[i].data, f.Data):
		case found:
			reads[i] = newFileRead(f)
		case ok:
			reads = slices.Insert(reads, i, newFileRead(f))
		}
	}
	return g.apply(reads)
}

func (g *Gateway) unreadable(err error) error {
	err = fmt.Errorf("gateway: %w", err)
	g.refuse(err, noContent)
	return err
}

// load puts files, the whole directory as read, in force; the caller holds
// reloadMu. A file read before with the same bytes is not parsed again.
func (g *Gateway) load(files []manifest.File) error {
	reads := make([]*fileRead, len(files))
	for i, f := range files {
		if j, ok := findRead(g.read, f.Name); ok && bytes.Equal(g.read[j].data, f.Data) {
			reads[i] = g.read[j]
		} else {
			reads[i] = newFileRead(f)
		}
	}
	return g.apply(reads)
}

// apply puts reads, every file of the directory sorted by name, in force
// (when they differ from what is); the caller holds reloadMu.
func (g *Gateway) apply(reads []*fileRead) error {
	g.read = reads
	fp := fingerprint(reads)
	cur := g.config.Load()
	if cur != nil && cur.fingerprint == fp {
		return nil
	}
	set, notices, err := combine(reads)
	refused := fileErrors(err)
	if refused != nil {
		g.logRefused(cur, refused, fp)
		reads = substitute(cur, reads, refused)
		set, notices, err = combine(reads)
	}
	var cfg *config
	if err == nil {
		cfg, err = g.build(cur, set, notices, reads, fp)
	}
	if err != nil {
		g.refuse(err, fp)
		return err
	}
	if err := g.serveConfig(cfg); err != nil {
		g.refuse(err, noContent)
		return err
	}
	if refused != nil {
		return refused
	}
	return nil
}

func combine(reads []*fileRead) (*manifest.Set, []manifest.Notice, error) {
	parsed := make([]*manifest.Parsed, len(reads))
	for i, r := range reads {
		parsed[i] = r.parse()
	}
	return manifest.Combine(parsed)
}

// fileErrors are the errors of a parse when each names its file, so that
// each file can be refused alone; nil otherwise (the change is then
// refused as a whole).
func fileErrors(err error) manifest.Errors {
	var errs manifest.Errors
	if !errors.As(err, &errs) || slices.ContainsFunc(errs, func(e *manifest.Error) bool { return e.File == "" }) {
		return nil
	}
	return errs
}

// logRefused says why files are refused, once per directory content.
func (g *Gateway) logRefused(cur *config, errs manifest.Errors, fp [sha256.Size]byte) {
	if fp == g.refused { // a whole refusal of the same content was logged already
		return
	}
	for _, e := range errs {
		keep := "it is not applied; the other manifests are"
		if cur.file(e.File) != nil {
			keep = "its last accepted version stays in force; the other manifests apply"
		}
		g.log.Error("manifest refused; "+keep, "file", fileLine(e.File, e.Line), "resource", e.Resource, "field", e.Field, "err", e.Msg)
	}
}

// substitute replaces each refused file by its version in force, or leaves
// it out when it has none.
func substitute(cur *config, reads []*fileRead, refused manifest.Errors) []*fileRead {
	out := make([]*fileRead, 0, len(reads))
	for _, r := range reads {
		if !slices.ContainsFunc(refused, func(e *manifest.Error) bool { return e.File == r.name }) {
			out = append(out, r)
		} else if old := cur.file(r.name); old != nil {
			out = append(out, old)
		}
	}
	return out
}

// file is the version in force of the named file; a nil config has none.
func (c *config) file(name string) *fileRead {
	if c == nil {
		return nil
	}
	if i, ok := findRead(c.accepted, name); ok {
		return c.accepted[i]
	}
	return nil
}

// build compiles the parsed files, logging what is not implemented. When
// the files that changed since cur hold HTTPRoutes only, the table of cur
// is updated with them (routing.Table.Update) rather than built anew.
func (g *Gateway) build(cur *config, set *manifest.Set, notices []manifest.Notice, reads []*fileRead, fp [sha256.Size]byte) (*config, error) {
	var table *routing.Table
	var more []manifest.Notice
	removed, added, ok := routesChanged(cur, reads)
	if ok = ok && !g.buildAll; ok {
		table, more, ok = cur.table.Update(set, removed, added)
	}
	if !ok {
		var err error
		if table, more, err = routing.Build(set, routing.Options{SelfSigned: g.certs.get}); err != nil {
			return nil, err
		}
	}
	g.logNotices(append(notices, more...))
	return &config{table: table, fingerprint: fp, accepted: reads}, nil
}

// routesChanged lists the HTTPRoutes of the files that differ between cur
// and reads, as they were and as they are; ok is false when a file that
// changed holds anything else (or held it), or when many files changed.
func routesChanged(cur *config, reads []*fileRead) (removed, added []*manifest.HTTPRoute, ok bool) {
	if cur == nil {
		return nil, nil, false
	}
	routesOnly := func(r *fileRead) bool {
		kinds := r.parse().Kinds()
		return len(kinds) == 0 || len(kinds) == 1 && kinds["HTTPRoute"] > 0
	}
	old, changed := cur.accepted, 0
	for i, j := 0, 0; i < len(reads) || j < len(old); {
		var was, is *fileRead
		switch c := compareReads(reads, i, old, j); {
		case c == 0 && reads[i] == old[j]:
			i, j = i+1, j+1
			continue
		case c == 0:
			is, was = reads[i], old[j]
			i, j = i+1, j+1
		case c < 0:
			is = reads[i]
			i++
		default:
			was = old[j]
			j++
		}
		if changed++; changed > len(reads)/4+1 || is != nil && !routesOnly(is) || was != nil && !routesOnly(was) {
			return nil, nil, false
		}
		if is != nil {
			added = append(added, is.parse().Routes()...)
		}
		if was != nil {
			removed = append(removed, was.parse().Routes()...)
		}
	}
	return removed, added, true
}

// compareReads orders a[i] and b[j] by name, an exhausted list last.
func compareReads(a []*fileRead, i int, b []*fileRead, j int) int {
	switch {
	case i == len(a):
		return 1
	case j == len(b):
		return -1
	}
	return strings.Compare(a[i].name, b[j].name)
}

// serveConfig binds the new ports, puts cfg in force, then serves the new
// ports and drains the removed ones. A port that cannot be bound refuses
// cfg.
func (g *Gateway) serveConfig(cfg *config) error {
	if err := g.ports.bind(cfg.table); err != nil {
		return fmt.Errorf("gateway: %w", err)
	}
	g.config.Store(cfg)
	g.ports.commit(cfg.table)
	g.refused = noContent
	for _, p := range cfg.table.Ports() {
		g.log.Info("serving", "port", p.Number, "protocol", p.Protocol, "listeners", p.Listeners)
	}
	g.log.Info("configuration in force", "dir", g.o.Dir)
	return nil
}

// refuse logs why a directory was refused, once per content.
func (g *Gateway) refuse(err error, fp [sha256.Size]byte) {
	if fp != noContent && fp == g.refused {
		return
	}
	g.refused = fp
	keep := "the configuration in force stays"
	if g.config.Load() == nil {
		keep = "nothing is served"
	}
	var errs manifest.Errors
	if !errors.As(err, &errs) {
		g.log.Error("configuration refused; "+keep, "err", err)
		return
	}
	for _, e := range errs {
		g.log.Error("configuration refused; "+keep, "file", fileLine(e.File, e.Line), "resource", e.Resource, "field", e.Field, "err", e.Msg)
	}
}

func (g *Gateway) logNotices(notices []manifest.Notice) {
	for _, n := range notices {
		g.log.Warn(n.Msg, "file", fileLine(n.File, n.Line), "resource", n.Resource, "field", n.Field)
	}
}

func fileLine(file string, line int) string {
	if line <= 0 {
		return file
	}
	return fmt.Sprintf("%s:%d", file, line)
}

// fingerprint identifies a directory's content, so a re-scan or an event
// that changed nothing does not reload: the digests of every file's name
// and content combined, each file hashed once per version.
func fingerprint(reads []*fileRead) [sha256.Size]byte {
	var sum [sha256.Size/8 + 1]uint64
	for _, r := range reads {
		for i := range sha256.Size / 8 {
			sum[i] ^= binary.LittleEndian.Uint64(r.id[8*i:])
		}
	}
	sum[len(sum)-1] = uint64(len(reads))
	var all [len(sum) * 8]byte
	for i, v := range sum {
		binary.LittleEndian.PutUint64(all[8*i:], v)
	}
	return sha256.Sum256(all[:])
}

// tlsConfig is the TLS configuration of a port in force; nil for HTTP.
func (g *Gateway) tlsConfig(port int) *tls.Config {
	if p := g.config.Load().table.Port(port); p != nil {
		return p.TLS
	}
	return nil
}

package gateway

import (
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"slices"

	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
	"github.com/fortune-tck/fortune-tck/reference/gateway/routing"
)

// config is one loaded directory: immutable once in force.
type config struct {
	table       *routing.Table
	fingerprint [sha256.Size]byte
	// accepted is the version in force of every file, by name: what stands in for a file when a later
	// version of it is refused.
	accepted map[string][]byte
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
		err = fmt.Errorf("gateway: %w", err)
		g.refuse(err, noContent)
		return err
	}
	fp := fingerprint(files)
	cur := g.config.Load()
	if cur != nil && cur.fingerprint == fp {
		return nil
	}
	set, notices, err := manifest.Parse(files)
	refused := fileErrors(err)
	if refused != nil {
		g.logRefused(cur, refused, fp)
		files = substitute(cur, files, refused)
		set, notices, err = manifest.Parse(files)
	}
	var cfg *config
	if err == nil {
		cfg, err = g.build(set, notices, files, fp)
	}
	if err != nil {
		g.refuse(err, fp)
		return err
	}
	if err := g.apply(cfg); err != nil {
		g.refuse(err, noContent)
		return err
	}
	if refused != nil {
		return refused
	}
	return nil
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
		if _, ok := cur.file(e.File); ok {
			keep = "its last accepted version stays in force; the other manifests apply"
		}
		g.log.Error("manifest refused; "+keep, "file", fileLine(e.File, e.Line), "resource", e.Resource, "field", e.Field, "err", e.Msg)
	}
}

// substitute replaces each refused file by its version in force, or leaves
// it out when it has none.
func substitute(cur *config, files []manifest.File, refused manifest.Errors) []manifest.File {
	out := make([]manifest.File, 0, len(files))
	for _, f := range files {
		if !slices.ContainsFunc(refused, func(e *manifest.Error) bool { return e.File == f.Name }) {
			out = append(out, f)
		} else if data, ok := cur.file(f.Name); ok {
			out = append(out, manifest.File{Name: f.Name, Data: data})
		}
	}
	return out
}

// file is the version in force of the named file; a nil config has none.
func (c *config) file(name string) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	data, ok := c.accepted[name]
	return data, ok
}

// build compiles the parsed files, logging what is not implemented.
func (g *Gateway) build(set *manifest.Set, notices []manifest.Notice, files []manifest.File, fp [sha256.Size]byte) (*config, error) {
	table, more, err := routing.Build(set, routing.Options{SelfSigned: g.certs.get})
	if err != nil {
		return nil, err
	}
	g.logNotices(append(notices, more...))
	accepted := make(map[string][]byte, len(files))
	for _, f := range files {
		accepted[f.Name] = f.Data
	}
	return &config{table: table, fingerprint: fp, accepted: accepted}, nil
}

// apply binds the new ports, puts cfg in force, then serves the new ports
// and drains the removed ones. A port that cannot be bound refuses cfg.
func (g *Gateway) apply(cfg *config) error {
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
// that changed nothing does not reload.
func fingerprint(files []manifest.File) [sha256.Size]byte {
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%d:%s\x00%d:", len(f.Name), f.Name, len(f.Data))
		h.Write(f.Data)
	}
	var fp [sha256.Size]byte
	copy(fp[:], h.Sum(nil))
	return fp
}

// tlsConfig is the TLS configuration of a port in force; nil for HTTP.
func (g *Gateway) tlsConfig(port int) *tls.Config {
	if p := g.config.Load().table.Port(port); p != nil {
		return p.TLS
	}
	return nil
}

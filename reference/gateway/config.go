package gateway

import (
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"

	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
	"github.com/fortune-tck/fortune-tck/reference/gateway/routing"
)

// config is one loaded directory: immutable once in force.
type config struct {
	table       *routing.Table
	fingerprint [sha256.Size]byte
}

// noContent marks a refusal that is not about the directory's content (it
// cannot be read, a port cannot be bound): it is retried and logged at
// every re-scan.
var noContent [sha256.Size]byte

// Reload reads the directory now (it is also read on every change and
// every Options.Rescan) and puts it in force when it changed. An invalid
// directory leaves the configuration in force untouched and returns why.
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
	if cur := g.config.Load(); cur != nil && cur.fingerprint == fp {
		return nil
	}
	cfg, err := g.build(files, fp)
	if err != nil {
		g.refuse(err, fp)
		return err
	}
	if err := g.apply(cfg); err != nil {
		g.refuse(err, noContent)
		return err
	}
	return nil
}

// build parses and compiles files, logging what is not implemented.
func (g *Gateway) build(files []manifest.File, fp [sha256.Size]byte) (*config, error) {
	set, notices, err := manifest.Parse(files)
	if err != nil {
		return nil, err
	}
	table, more, err := routing.Build(set, routing.Options{SelfSigned: g.certs.get})
	if err != nil {
		return nil, err
	}
	g.logNotices(append(notices, more...))
	return &config{table: table, fingerprint: fp}, nil
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

package ratelimit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/internal/atomicfile"
	"github.com/fortune-tck/fortune-tck/reference/gateway/manifest"
)

// ServiceFile is one file of a rate limit service's configuration: the
// descriptors and limits of one domain, in envoyproxy/ratelimit's format.
type ServiceFile struct {
	Domain string
	Name   string // the file's name in the service's folder
	Data   []byte
}

// The service's file format (envoyproxy/ratelimit's README, "The
// configuration format"): unknown keys make it refuse the file.
type (
	yamlDomain struct {
		Domain      string            `yaml:"domain"`
		Descriptors []*yamlDescriptor `yaml:"descriptors"`
	}
	yamlDescriptor struct {
		Key         string            `yaml:"key"`
		Value       string            `yaml:"value,omitempty"`
		RateLimit   *yamlRateLimit    `yaml:"rate_limit,omitempty"`
		ShadowMode  bool              `yaml:"shadow_mode,omitempty"`
		Descriptors []*yamlDescriptor `yaml:"descriptors,omitempty"`
		rule        string            // the rule whose chain this is (Envoy Gateway's name), for warnings
	}
	yamlRateLimit struct {
		Unit            string `yaml:"unit"`
		RequestsPerUnit int64  `yaml:"requests_per_unit"`
	}
)

// serviceFilePrefix marks the files the gateway writes in the service's
// folder: it replaces and removes those, and leaves any other file alone.
const serviceFilePrefix = "gateway-"

// serviceFileHeader says where a file comes from.
const serviceFileHeader = "# Written by the fortune-tck reference gateway from its manifests (the BackendTrafficPolicy\n" +
	"# rules Envoy Gateway would hand this service); it is rewritten when they change.\n"

// ServiceConfig is the rate limit service's configuration for the Global
// rules of routes, as Envoy Gateway generates it
// (BuildRateLimitServiceConfig in its internal/xds/translator/ratelimit.go):
// per domain, one descriptor per route (or per shared rule) whose
// descriptors are each rule's chain of conditions, the limit on the last.
// Files come sorted by domain. Warnings name rules whose descriptors
// collide, which makes the service refuse that domain's file (as it would
// Envoy Gateway's).
func ServiceConfig(routes []*Route) (files []ServiceFile, warnings []string) {
	domains := map[string]*yamlDomain{}
	for _, rt := range routes {
		if rt == nil {
			continue
		}
		for _, d := range rt.service {
			y := domains[d.domain]
			if y == nil {
				y = &yamlDomain{Domain: d.domain}
				domains[d.domain] = y
			}
			for _, s := range d.rules {
				if w := y.add(s); w != "" {
					warnings = append(warnings, w)
				}
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(domains)) {
		y := domains[name]
		slices.SortStableFunc(y.Descriptors, func(a, b *yamlDescriptor) int { return strings.Compare(a.Key, b.Key) })
		data, err := yaml.Marshal(y)
		if err != nil { // strings, numbers and booleans always marshal
			panic(err)
		}
		files = append(files, ServiceFile{Domain: name, Name: serviceFileName(name), Data: append([]byte(serviceFileHeader), data...)})
	}
	return files, warnings
}

// add puts the rule's chain under the descriptor of its route (or shared
// rule), once: a route on two hostnames of one listener is two routes with
// the same rules.
func (y *yamlDomain) add(s *serviceRule) string {
	var top *yamlDescriptor
	for _, d := range y.Descriptors {
		if d.Key == s.top {
			top = d
		}
	}
	if top == nil {
		top = &yamlDescriptor{Key: s.top, Value: s.top}
		y.Descriptors = append(y.Descriptors, top)
	}
	chain := s.chain()
	for _, d := range top.Descriptors {
		switch {
		case sameKeys(d, chain) && d.rule == chain.rule:
			return ""
		case sameKeys(d, chain):
			return fmt.Sprintf("rate limit service domain %q: rule %s of %s has the descriptors of rule %s; the service knows the limit of %s only, "+
				"and a request both pick counts twice there (as with Envoy Gateway)", y.Domain, chain.rule, s.top, d.rule, d.rule)
		case d.Key == chain.Key && d.Value == chain.Value:
			return fmt.Sprintf("rate limit service domain %q: rule %s of %s starts with the descriptor %s=%s of rule %s; the service refuses the domain "+
				"(as it would Envoy Gateway's)", y.Domain, chain.rule, s.top, d.Key, d.Value, d.rule)
		}
	}
	top.Descriptors = append(top.Descriptors, chain)
	return ""
}

// chain is the rule's descriptors in the service's configuration: one per
// action after the route's, nested, with the limit on the innermost. A
// Distinct header (and a Distinct source's address) has a key and no value:
// each value the request brings counts apart.
func (s *serviceRule) chain() *yamlDescriptor {
	var nodes []*yamlDescriptor
	for i, h := range s.headers {
		d := &yamlDescriptor{Key: s.headerKeys[i]}
		if h.Type != manifest.MatchDistinct {
			d.Value = d.Key
		}
		nodes = append(nodes, d)
	}
	if len(s.methods) > 0 {
		nodes = append(nodes, &yamlDescriptor{Key: s.methodKey, Value: s.methodKey})
	}
	if s.path != nil {
		nodes = append(nodes, &yamlDescriptor{Key: s.pathKey, Value: s.pathKey})
	}
	if src := s.source; src != nil {
		nodes = append(nodes, &yamlDescriptor{Key: keyMaskedRemoteAddress, Value: src.Prefix.String()})
		if src.Distinct {
			nodes = append(nodes, &yamlDescriptor{Key: keyRemoteAddress})
		}
	}
	if s.noMatchKey != "" {
		nodes = append(nodes, &yamlDescriptor{Key: s.noMatchKey, Value: s.noMatchKey})
	}
	for i, d := range nodes {
		d.ShadowMode = s.Shadow
		if i > 0 {
			nodes[i-1].Descriptors = []*yamlDescriptor{d}
		}
	}
	nodes[len(nodes)-1].RateLimit = &yamlRateLimit{Unit: strings.ToUpper(s.Unit), RequestsPerUnit: s.Requests}
	nodes[0].rule = ruleName(s.Rule)
	return nodes[0]
}

// sameKeys compares two chains' keys and values, as Envoy Gateway does
// to add a rule once.
func sameKeys(a, b *yamlDescriptor) bool {
	if a.Key != b.Key || a.Value != b.Value || len(a.Descriptors) != len(b.Descriptors) {
		return false
	}
	for i := range a.Descriptors {
		if !sameKeys(a.Descriptors[i], b.Descriptors[i]) {
			return false
		}
	}
	return true
}

// serviceFileName is the file of a domain: the service loads one domain
// per file. The domain's characters that a file name or the service's
// runtime keys would not keep become _, and a hash keeps names apart.
func serviceFileName(domain string) string {
	sum := sha256.Sum256([]byte(domain))
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, domain)
	return serviceFilePrefix + safe + "-" + hex.EncodeToString(sum[:4]) + ".yaml"
}

// WriteServiceConfig makes dir hold files: a file whose content differs
// is replaced through a rename (when its temporary file must be made in
// dir, its name starts with a dot: the service must ignore dot files,
// RUNTIME_IGNOREDOTFILES=true), the files
// this function wrote before that files no longer has are removed, and
// others are left alone. It tells whether anything changed.
func WriteServiceConfig(dir string, files []ServiceFile) (changed bool, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	keep := map[string]bool{}
	for _, f := range files {
		keep[f.Name] = true
		path := filepath.Join(dir, f.Name)
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, f.Data) {
			continue
		}
		if err := writeAtomic(path, f.Data); err != nil {
			return changed, err
		}
		changed = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return changed, err
	}
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, serviceFilePrefix) && strings.HasSuffix(name, ".yaml") && !keep[name] {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
				continue
			}
			changed = true
		}
	}
	return changed, errors.Join(errs...)
}

// writeAtomic replaces path with data through a rename. The temporary file
// is made beside the folder, where the service does not look (it logs a
// warning for every dot file that comes and goes in its folder), unless
// that is not possible (another file system, no right to write there):
// then in the folder, as atomicfile does.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(filepath.Dir(path)), "."+filepath.Base(path)+".*")
	if err != nil {
		return atomicfile.Write(path, data)
	}
	defer os.Remove(f.Name()) // after a successful rename, nothing is left to remove
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return atomicfile.Write(path, data)
	}
	return nil
}

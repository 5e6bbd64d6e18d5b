package main

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// catalogueYAML is embedded so that the command and its test read the very catalogue that is committed.
//
//go:embed catalogue.yaml
var catalogueYAML []byte

// services are the services of the reference; the test requires mutants for every one of them, so that a
// service cannot silently drop out of the mutation check.
var services = []string{"authserver", "fortune", "greeting", "gateway", "configserver", "configapp", "bus"}

// Mutant is one deliberate bug: a plausible implementer's mistake, written as one or more exact
// find/replace patches on the reference. A find/replace patch survives unrelated edits to the file, and
// fails loudly (instead of silently patching something else) when the code it targets changes.
type Mutant struct {
	ID      string `yaml:"id"`
	Service string `yaml:"service"`
	Spec    string `yaml:"spec"`
	Mistake string `yaml:"mistake"`
	Patch   `yaml:",inline"`
	// More are further patches of the same mistake (another field, another file); file defaults to the
	// mutant's.
	More []Patch `yaml:"more,omitempty"`
}

// Patch replaces the one occurrence of Find in File (a path relative to the checkout) by Replace.
type Patch struct {
	File    string `yaml:"file"`
	Find    string `yaml:"find"`
	Replace string `yaml:"replace"`
}

// Patches returns every patch of the mutant, with the files of the extra ones filled in.
func (m Mutant) Patches() []Patch {
	out := []Patch{m.Patch}
	for _, p := range m.More {
		if p.File == "" {
			p.File = m.File
		}
		out = append(out, p)
	}
	return out
}

var kebab = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// parseCatalogue reads the catalogue and checks what can be checked without the source tree: required
// fields, unique kebab ids, known services.
func parseCatalogue(data []byte) ([]Mutant, error) {
	var doc struct {
		Mutants []Mutant `yaml:"mutants"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("catalogue.yaml: %w", err)
	}
	seen := map[string]bool{}
	for i := range doc.Mutants {
		doc.Mutants[i].untab()
	}
	for i, m := range doc.Mutants {
		where := fmt.Sprintf("catalogue.yaml: mutant %d (%s)", i+1, m.ID)
		switch {
		case !kebab.MatchString(m.ID):
			return nil, fmt.Errorf("%s: id must be kebab-case (a-z, 0-9, single hyphens)", where)
		case seen[m.ID]:
			return nil, fmt.Errorf("%s: id used twice; ids must be unique and stable", where)
		case !slices.Contains(services, m.Service):
			return nil, fmt.Errorf("%s: service %q is not one of %s", where, m.Service, strings.Join(services, ", "))
		case m.Spec == "" || m.Mistake == "":
			return nil, fmt.Errorf("%s: spec and mistake are required: say what it breaks and why it is plausible", where)
		}
		for _, p := range m.Patches() {
			if p.File == "" || p.Find == "" {
				return nil, fmt.Errorf("%s: every patch needs file and find", where)
			}
			if p.Find == p.Replace {
				return nil, fmt.Errorf("%s: replace equals find in %s: the patch changes nothing", where, p.File)
			}
		}
		seen[m.ID] = true
	}
	return doc.Mutants, nil
}

// untab turns every 4 leading spaces of each line of the finds and replaces into a tab: gofmt indents Go
// with tabs, and YAML forbids tabs in block text, so the catalogue writes them as 4 spaces.
func (m *Mutant) untab() {
	m.Patch.untab()
	for i := range m.More {
		m.More[i].untab()
	}
}

func (p *Patch) untab() { p.Find, p.Replace = tabs(p.Find), tabs(p.Replace) }

func tabs(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		n := 0
		for strings.HasPrefix(l[n*4:], "    ") {
			n++
		}
		lines[i] = strings.Repeat("\t", n) + l[n*4:]
	}
	return strings.Join(lines, "\n")
}

// apply patches the tree under root. It fails, naming the file, when a find does not occur exactly once:
// the catalogue must then follow the code it targets.
func (m Mutant) apply(root string) error {
	for _, p := range m.Patches() {
		path := filepath.Join(root, filepath.FromSlash(p.File))
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("mutant %s: %w", m.ID, err)
		}
		if n := strings.Count(string(data), p.Find); n != 1 {
			return fmt.Errorf("mutant %s: its find occurs %d times in %s, want exactly once; update the catalogue to the current code", m.ID, n, p.File)
		}
		out := strings.Replace(string(data), p.Find, p.Replace, 1)
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			return fmt.Errorf("mutant %s: %w", m.ID, err)
		}
	}
	return nil
}

// selectMutants returns the mutants named in only (comma-separated ids), or all when only is empty.
func selectMutants(all []Mutant, only string) ([]Mutant, error) {
	if strings.TrimSpace(only) == "" {
		return all, nil
	}
	byID := map[string]Mutant{}
	for _, m := range all {
		byID[m.ID] = m
	}
	var out []Mutant
	for _, id := range strings.Split(only, ",") {
		id = strings.TrimSpace(id)
		m, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("--only: no mutant %q (mutants --list shows the ids)", id)
		}
		out = append(out, m)
	}
	return out, nil
}

// Package catalog lists the scenarios of the features, with their area, tags and location, independently of a
// run: reports need every scenario (also those not run), coverage needs every tag, and the runner needs to know
// which scenarios a target cannot support before it starts.
package catalog

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"unicode"

	gherkin "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"

	"github.com/fortune-tck/fortune-tck/features"
)

// Scenario is one pickle: a scenario, or one example row of a scenario outline.
type Scenario struct {
	Area    features.Area        // the folder of the feature file
	Profile features.ProfileName // the feature's @profile-<name> tag, else the area
	URI     string               // path of the feature file inside the features FS
	Feature string
	Name    string
	Line    int // line of the scenario, or of the example row for an outline
	Tags    []string
	// FeatureTags are the tags of the feature itself, which every scenario of it inherits.
	FeatureTags []string
	// Outcomes are the texts of the scenario's outcome steps (Then and the And/But that follow it), each with
	// the cells of its table and the content of its doc string: what the scenario asserts.
	Outcomes []string
	key      string
}

// ID names a scenario in reports, stably: the feature file without its extension and the scenario's name as a
// slug ("config/server/a-label-that-does-not-exist-gets-404"). Editing a feature moves lines, not IDs; only
// renaming a scenario renames it. Load refuses two scenarios with one ID, so the rows of an outline must be
// told apart by their names (a <placeholder> in the name).
func (s Scenario) ID() string { return strings.TrimSuffix(s.URI, ".feature") + "/" + slug(s.Name) }

// Location is where the scenario is written: "config/server.feature:42".
func (s Scenario) Location() string { return fmt.Sprintf("%s:%d", s.URI, s.Line) }

// slug lowercases a name and joins its words with hyphens: letters, digits and the characters ._%() are kept
// (outline rows often differ only in those: "/{app}/default/.." and "/..(_){app}/default"), the rest separates.
func slug(name string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("._%()", r)
	}) {
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteString(w)
	}
	return b.String()
}

// HasTag reports whether the scenario (or its feature) carries the tag, written with its @.
func (s Scenario) HasTag(tag string) bool {
	for _, t := range s.Tags {
		if t == tag {
			return true
		}
	}
	return false
}

// TagsWithPrefix returns the tag values that start with prefix, prefix removed ("@spec-" gives "2.4", ...).
func (s Scenario) TagsWithPrefix(prefix string) []string {
	var out []string
	for _, t := range s.Tags {
		if v, ok := strings.CutPrefix(t, prefix); ok {
			out = append(out, v)
		}
	}
	return out
}

// Catalog is every scenario of a features FS, in file order.
type Catalog struct {
	Scenarios []Scenario
	byKey     map[string]int
	byID      map[string]int
}

// Key identifies a pickle by what godog hands to hooks, so that run results can be matched to the catalog.
// Outline rows differ in their substituted step texts.
func Key(uri, name string, steps []string) string {
	return uri + "\x00" + name + "\x00" + strings.Join(steps, "\x00")
}

// PickleKey is Key for a pickle as godog passes it to scenario hooks.
func PickleKey(p *messages.Pickle) string {
	steps := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		steps[i] = s.Text
	}
	return Key(p.Uri, p.Name, steps)
}

// Lookup finds the scenario of a pickle key.
func (c *Catalog) Lookup(key string) (Scenario, bool) {
	i, ok := c.byKey[key]
	if !ok {
		return Scenario{}, false
	}
	return c.Scenarios[i], true
}

// Areas returns the areas that have scenarios, in the order given.
func (c *Catalog) Areas(order []features.Area) []features.Area {
	var out []features.Area
	for _, a := range order {
		for _, s := range c.Scenarios {
			if s.Area == a {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

// Load parses every .feature file of fsys. A feature outside an area folder, a parse error or two scenarios that
// cannot be told apart are errors: the suite must never lose a scenario silently.
func Load(fsys fs.FS) (*Catalog, error) {
	var files []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".feature") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	c := &Catalog{byKey: map[string]int{}, byID: map[string]int{}}
	for _, f := range files {
		if err := c.addFile(fsys, f); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Catalog) addFile(fsys fs.FS, file string) error {
	area := path.Dir(file)
	if area == "." || strings.Contains(area, "/") {
		return fmt.Errorf("%s: a feature file belongs in one area folder, e.g. config/%s", file, path.Base(file))
	}
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return err
	}
	ids := &messages.Incrementing{}
	doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(data), ids.NewId)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if doc.Feature == nil {
		return fmt.Errorf("%s: no Feature", file)
	}
	lines := nodeLines(doc.Feature)
	for _, p := range gherkin.Pickles(*doc, file, ids.NewId) {
		s := Scenario{Area: features.Area(area), URI: file, Feature: doc.Feature.Name, Name: p.Name, key: PickleKey(p)}
		s.Line = lines[p.AstNodeIds[len(p.AstNodeIds)-1]]
		for _, t := range p.Tags {
			s.Tags = append(s.Tags, t.Name)
		}
		for _, t := range doc.Feature.Tags {
			s.FeatureTags = append(s.FeatureTags, t.Name)
		}
		s.Outcomes = outcomes(p)
		s.Profile = features.ProfileName(area)
		if profiles := s.TagsWithPrefix(features.ProfileTag); len(profiles) > 0 {
			s.Profile = features.ProfileName(profiles[0])
		}
		if prev, dup := c.byKey[s.key]; dup {
			return fmt.Errorf("%s: scenario %q cannot be told apart from line %d; give it another name",
				s.Location(), s.Name, c.Scenarios[prev].Line)
		}
		if prev, dup := c.byID[s.ID()]; dup {
			return fmt.Errorf("%s: scenario %q has the ID %s of line %d; give it another name (an outline's rows "+
				"need a <placeholder> in the name)", s.Location(), s.Name, s.ID(), c.Scenarios[prev].Line)
		}
		c.byID[s.ID()] = len(c.Scenarios)
		c.byKey[s.key] = len(c.Scenarios)
		c.Scenarios = append(c.Scenarios, s)
	}
	return nil
}

// outcomes returns the text of each outcome step of a pickle, with its argument's text appended.
func outcomes(p *messages.Pickle) []string {
	var out []string
	for _, st := range p.Steps {
		if st.Type != messages.PickleStepType_OUTCOME {
			continue
		}
		text := st.Text
		if a := st.Argument; a != nil && a.DataTable != nil {
			for _, row := range a.DataTable.Rows {
				for _, cell := range row.Cells {
					text += " | " + cell.Value
				}
			}
		}
		if a := st.Argument; a != nil && a.DocString != nil {
			text += "\n" + a.DocString.Content
		}
		out = append(out, text)
	}
	return out
}

// nodeLines maps the ids of scenarios and example rows to their lines.
func nodeLines(f *messages.Feature) map[string]int {
	lines := map[string]int{}
	addScenario := func(sc *messages.Scenario) {
		lines[sc.Id] = int(sc.Location.Line)
		for _, ex := range sc.Examples {
			for _, row := range ex.TableBody {
				lines[row.Id] = int(row.Location.Line)
			}
		}
	}
	for _, child := range f.Children {
		if child.Scenario != nil {
			addScenario(child.Scenario)
		}
		if child.Rule != nil {
			for _, rc := range child.Rule.Children {
				if rc.Scenario != nil {
					addScenario(rc.Scenario)
				}
			}
		}
	}
	return lines
}

package features

import (
	"bytes"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	gherkin "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"
)

// placeholder is a {name} a step or an example row uses; JSON bodies in doc strings ({"a": 1}) do not match.
var placeholder = regexp.MustCompile(`\{[a-z_]+\}`)

// A reader who knows the domain but not Go learns the features from their text alone: every placeholder a
// feature uses is introduced in its description.
func TestEveryPlaceholderIsIntroducedInTheFeatureDescription(t *testing.T) {
	for name, f := range parsedFeatures(t) {
		for _, p := range used(f) {
			if !strings.Contains(f.Description, p) {
				t.Errorf("%s uses %s, which its description does not introduce", name, p)
			}
		}
	}
}

// parsedFeatures parses every feature file of FS, by path.
func parsedFeatures(t *testing.T) map[string]*messages.Feature {
	t.Helper()
	out := map[string]*messages.Feature{}
	err := fs.WalkDir(FS, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(name, ".feature") {
			return err
		}
		data, err := fs.ReadFile(FS, name)
		if err != nil {
			return err
		}
		doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(data), (&messages.Incrementing{}).NewId)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		out[name] = doc.Feature
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// used lists the placeholders of every step, table cell and example row of a feature.
func used(f *messages.Feature) []string {
	var texts []string
	addSteps := func(steps []*messages.Step) {
		for _, s := range steps {
			texts = append(texts, s.Text)
			if s.DataTable != nil {
				texts = append(texts, cells(s.DataTable.Rows)...)
			}
			if s.DocString != nil {
				texts = append(texts, s.DocString.Content)
			}
		}
	}
	addScenario := func(sc *messages.Scenario) {
		addSteps(sc.Steps)
		for _, ex := range sc.Examples {
			texts = append(texts, cells(ex.TableBody)...)
		}
	}
	for _, c := range f.Children {
		switch {
		case c.Background != nil:
			addSteps(c.Background.Steps)
		case c.Scenario != nil:
			addScenario(c.Scenario)
		case c.Rule != nil:
			for _, rc := range c.Rule.Children {
				if rc.Background != nil {
					addSteps(rc.Background.Steps)
				}
				if rc.Scenario != nil {
					addScenario(rc.Scenario)
				}
			}
		}
	}
	var out []string
	for _, t := range texts {
		for _, p := range placeholder.FindAllString(t, -1) {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

func cells(rows []*messages.TableRow) []string {
	var out []string
	for _, r := range rows {
		for _, c := range r.Cells {
			out = append(out, c.Value)
		}
	}
	return out
}

// Package coverage relates the spec's numbered sections and table rows (features/sections.yaml) to the scenarios
// that cite them with @spec-<id> tags, so that what the suite does not verify yet is visible.
package coverage

import (
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/harness/catalog"
)

// SpecTag is the tag prefix by which a scenario cites a section.
const SpecTag = "@spec-"

// Section is one numbered section or table row of the spec.
type Section struct {
	ID       string `yaml:"id"`
	Area     string `yaml:"area"`
	Summary  string `yaml:"summary"`
	NotShown bool   `yaml:"notShown"`
	// Asserts are regular expressions (case-insensitive) over a scenario's outcome steps: a scenario that cites
	// the section covers it only when one of its outcome steps matches one of them. Tags are claims; the
	// outcome steps are what a scenario verifies.
	Asserts []string `yaml:"asserts"`
	asserts []*regexp.Regexp
}

// AssertedBy reports whether one of the outcome steps matches the section's assertions.
func (s Section) AssertedBy(outcomes []string) bool {
	for _, re := range s.asserts {
		for _, o := range outcomes {
			if re.MatchString(o) {
				return true
			}
		}
	}
	return false
}

// LoadSections reads the index of the spec from fsys.
func LoadSections(fsys fs.FS, name string) ([]Section, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Sections []Section `yaml:"sections"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for i := range doc.Sections {
		s := &doc.Sections[i]
		for _, a := range s.Asserts {
			re, err := regexp.Compile("(?i)" + a)
			if err != nil {
				return nil, fmt.Errorf("%s: section %s: asserts %q: %w", name, s.ID, a, err)
			}
			s.asserts = append(s.asserts, re)
		}
	}
	return doc.Sections, nil
}

// Coverage maps each section id to the scenarios that cite it and assert it.
type Coverage struct {
	Sections []Section
	By       map[string][]catalog.Scenario
	// Unearned lists the citations no outcome step backs: a scenario's own @spec tag it does not assert, or a
	// feature's @spec tag that none of its scenarios asserts.
	Unearned []string
}

// Compute relates sections and scenarios. A tag that names no section is an error, so a typo cannot make a
// scenario count for nothing.
func Compute(sections []Section, cat *catalog.Catalog) (*Coverage, error) {
	c := &Coverage{Sections: sections, By: map[string][]catalog.Scenario{}}
	known := map[string]Section{}
	for _, s := range sections {
		known[s.ID] = s
	}
	featureEarned := map[string]bool{} // feature URI + tag -> some scenario asserts it
	var unknown []string
	for _, sc := range cat.Scenarios {
		ids := sc.TagsWithPrefix(SpecTag)
		if len(ids) == 0 {
			unknown = append(unknown, fmt.Sprintf("%s %q: no @spec-<id> tag", sc.Location(), sc.Name))
		}
		for _, id := range ids {
			sec, ok := known[id]
			if !ok {
				unknown = append(unknown, fmt.Sprintf("%s %q: @spec-%s names no section of features/sections.yaml", sc.Location(), sc.Name, id))
				continue
			}
			fromFeature := slices.Contains(sc.FeatureTags, SpecTag+id)
			if _, seen := featureEarned[sc.URI+" "+id]; fromFeature && !seen {
				featureEarned[sc.URI+" "+id] = false
			}
			switch {
			case sec.AssertedBy(sc.Outcomes):
				c.By[id] = append(c.By[id], sc)
				if fromFeature {
					featureEarned[sc.URI+" "+id] = true
				}
			case !fromFeature:
				c.Unearned = append(c.Unearned, fmt.Sprintf("%s %q: @spec-%s: no outcome step asserts it", sc.Location(), sc.Name, id))
			}
		}
	}
	for key, earned := range featureEarned {
		if !earned {
			uri, id, _ := strings.Cut(key, " ")
			c.Unearned = append(c.Unearned, fmt.Sprintf("%s: the feature's @spec-%s: no scenario of it asserts it", uri, id))
		}
	}
	sort.Strings(c.Unearned)
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("scenarios with bad spec tags:\n  %s", strings.Join(unknown, "\n  "))
	}
	return c, nil
}

// Uncovered returns the sections no scenario both cites and asserts.
func (c *Coverage) Uncovered() []Section {
	var out []Section
	for _, s := range c.Sections {
		if len(c.By[s.ID]) == 0 {
			out = append(out, s)
		}
	}
	return out
}

// Print writes, for each section, the scenarios that cover it, then the list of uncovered sections. With
// verbose false, only counts are printed per section.
func (c *Coverage) Print(w io.Writer, verbose bool) {
	for _, s := range c.Sections {
		scs := c.By[s.ID]
		mark := "  "
		if len(scs) == 0 {
			mark = "--"
		}
		fmt.Fprintf(w, "%s %-34s %-8s %2d  %s%s\n", mark, s.ID, s.Area, len(scs), s.Summary, notShown(s))
		if verbose {
			for _, sc := range scs {
				fmt.Fprintf(w, "       %s (%s)\n", sc.ID(), sc.Location())
			}
		}
	}
	if len(c.Unearned) > 0 {
		fmt.Fprintf(w, "\n%d citations claim what no outcome step asserts (features/sections.yaml, asserts):\n", len(c.Unearned))
		for _, u := range c.Unearned {
			fmt.Fprintf(w, "  %s\n", u)
		}
	}
	un := c.Uncovered()
	fmt.Fprintf(w, "\n%d of %d sections and rows covered; %d uncovered:\n", len(c.Sections)-len(un), len(c.Sections), len(un))
	for _, s := range un {
		fmt.Fprintf(w, "  %s (%s)\n", s.ID, s.Area)
	}
}

func notShown(s Section) string {
	if s.NotShown {
		return " [spec: not shown; anchor applies]"
	}
	return ""
}

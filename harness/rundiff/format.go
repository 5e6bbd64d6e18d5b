package rundiff

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Formats are the outputs of tck diff, the default first.
var Formats = []string{"text", "markdown", "json"}

// Render writes the diff in a format of Formats.
func Render(d *Diff, format string) (string, error) {
	switch format {
	case "text", "":
		return d.Text(), nil
	case "markdown":
		return d.Markdown(), nil
	case "json":
		data, err := json.MarshalIndent(d, "", "  ")
		return string(data) + "\n", err
	}
	return "", fmt.Errorf("unknown format %q: use %s", format, strings.Join(Formats, ", "))
}

// grouped are the changes by category, in output order.
func (d *Diff) grouped() ([]Category, map[Category][]Change) {
	by := map[Category][]Change{}
	var order []Category
	for _, c := range d.Changes {
		if len(by[c.Category]) == 0 {
			order = append(order, c.Category)
		}
		by[c.Category] = append(by[c.Category], c)
	}
	return order, by
}

func (s Side) describe() string {
	return fmt.Sprintf("%s (%s, suite %s, %s)", s.Path, strings.TrimSpace(s.Implementation), s.SuiteVersion, s.Date)
}

// verdict is the last line: how many regressions.
func (d *Diff) verdict() string {
	switch d.Regressions {
	case 0:
		return "No regression."
	case 1:
		return "1 regression."
	}
	return fmt.Sprintf("%d regressions.", d.Regressions)
}

func (d *Diff) suiteNote() string {
	if d.Old.SuiteVersion == d.New.SuiteVersion {
		return ""
	}
	return fmt.Sprintf("The suite versions differ (%s, then %s): scenarios only in one run may be the suite's own changes.",
		d.Old.SuiteVersion, d.New.SuiteVersion)
}

func transition(c Change) string {
	switch {
	case c.Old == "":
		return c.New
	case c.New == "":
		return "was " + c.Old
	}
	return c.Old + " -> " + c.New
}

// Text is the diff for a terminal: each change under its category, regressions marked with !.
func (d *Diff) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "old: %s\nnew: %s\n", d.Old.describe(), d.New.describe())
	if n := d.suiteNote(); n != "" {
		b.WriteString(n + "\n")
	}
	order, by := d.grouped()
	for _, cat := range order {
		fmt.Fprintf(&b, "\n%s (%d):\n", cat, len(by[cat]))
		for _, c := range by[cat] {
			mark := " "
			if c.Regression {
				mark = "!"
			}
			fmt.Fprintf(&b, "%s %s (%s)\n", mark, c.ID, transition(c))
		}
	}
	if len(d.Changes) == 0 {
		b.WriteString("\nNo change.\n")
	}
	b.WriteString("\n" + d.verdict() + "\n")
	return b.String()
}

// Markdown is the diff for a pull-request comment: a table per category, regressions first.
func (d *Diff) Markdown() string {
	var b strings.Builder
	title := "No regression"
	if d.Regressions > 0 {
		title = d.verdict()
		title = strings.TrimSuffix(title, ".")
	}
	fmt.Fprintf(&b, "### fortune-tck: %s\n\n", title)
	fmt.Fprintf(&b, "Old: `%s` · New: `%s`\n", oneLine(d.Old.describe()), oneLine(d.New.describe()))
	if n := d.suiteNote(); n != "" {
		b.WriteString("\n" + n + "\n")
	}
	order, by := d.grouped()
	for _, cat := range order {
		fmt.Fprintf(&b, "\n**%s** (%d)\n\n| | stable ID | old | new |\n|---|---|---|---|\n", cat, len(by[cat]))
		for _, c := range by[cat] {
			mark := ""
			if c.Regression {
				mark = "❌"
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", mark, c.ID, dash(c.Old), dash(c.New))
		}
	}
	if len(d.Changes) == 0 {
		b.WriteString("\nNo change.\n")
	}
	return b.String()
}

func dash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// oneLine keeps a code span on one line, free of backticks.
func oneLine(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "`", "'")
}

package ciformat

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/report"
)

// Markdown is the run's summary for a CI job's page (GitHub's $GITHUB_STEP_SUMMARY, a pull-request comment):
// the result in one line, each profile's result, the scenarios that fail the run with their stable IDs and
// reasons, the entries of the expectations file that did not happen, and the expected failures folded away.
// Text from the target (failure messages) is put in code spans, so that it cannot become Markdown.
//
// badgeSVG, when given, is drawn first as a data: image (with the heading's words as its text).
func Markdown(rep report.ConformanceReport, r Run, badgeSVG []byte) string {
	var b strings.Builder
	if len(badgeSVG) > 0 {
		fmt.Fprintf(&b, "![fortune-tck badge](data:image/svg+xml;base64,%s)\n\n", base64.StdEncoding.EncodeToString(badgeSVG))
	}
	counts := r.outcomeCounts()
	ran := counts[features.Passed] + counts[features.Failed] + counts[features.Blocked]
	fmt.Fprintf(&b, "## fortune-tck %s: %d/%d passed", rep.SuiteVersion, counts[features.Passed], ran)
	if impl := strings.TrimSpace(rep.Implementation.Project + " " + rep.Implementation.Version); impl != "" {
		fmt.Fprintf(&b, " against %s", inline(impl))
	}
	b.WriteString("\n\n")
	b.WriteString(resultLine(rep, counts))
	b.WriteString("\n\n| profile | core | extended | scenarios |\n|---|---|---|---|\n")
	for _, p := range rep.Profiles {
		ext := "–"
		if p.Extended != nil {
			ext = string(p.Extended.Result.Result)
		}
		summary := p.Summary
		if p.Reason != "" {
			summary += "; " + p.Reason
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", p.Name, p.Core.Result, ext, cell(summary))
	}
	failing := r.failing(rep)
	if len(failing) > 0 {
		title := "Failed or blocked"
		if rep.Expectations != nil {
			title = "Unexpected: failed or blocked, and no entry of the expectations file expects them"
		}
		fmt.Fprintf(&b, "\n### %s (%d)\n\n", title, len(failing))
		for _, s := range failing {
			fmt.Fprintf(&b, "- **%s** `%s`: %s\n", s.Outcome, s.ID, inline(firstLine(s.Reason)))
		}
	}
	if e := rep.Expectations; e != nil {
		writeExpectations(&b, e)
	}
	fmt.Fprintf(&b, "\n%d passed, %d failed, %d blocked, %d skipped, %d not supported, %d not under test.\n",
		counts[features.Passed], counts[features.Failed], counts[features.Blocked], counts[features.Skipped],
		counts[features.Unsupported], counts[features.NotUnderTest])
	return b.String()
}

func resultLine(rep report.ConformanceReport, counts map[features.Outcome]int) string {
	switch e := rep.Expectations; {
	case e != nil && e.Met():
		return fmt.Sprintf("**Passed**: every failed or blocked scenario is expected by `%s` (%d), and every entry of it happened.", e.File, len(e.Expected))
	case e != nil:
		return fmt.Sprintf("**Failed**: %d failed or blocked scenarios no entry of `%s` expects, %d entries that did not happen.", len(e.Unexpected), e.File, len(e.DidNotHappen))
	case counts[features.Failed]+counts[features.Blocked] == 0:
		return "**Passed**: no scenario failed or was blocked."
	}
	return fmt.Sprintf("**Failed**: %d failed, %d blocked.", counts[features.Failed], counts[features.Blocked])
}

func writeExpectations(b *strings.Builder, e *report.Expectations) {
	if len(e.DidNotHappen) > 0 {
		fmt.Fprintf(b, "\n### Expected but did not happen: remove these entries from `%s` (%d)\n\n", e.File, len(e.DidNotHappen))
		for _, s := range e.DidNotHappen {
			fmt.Fprintf(b, "- `%s` (line %d): expected %s, was %s\n", s.ID, s.Line, s.Expected, s.Actual)
		}
	}
	if len(e.Expected) > 0 {
		fmt.Fprintf(b, "\n<details><summary>Expected, still failing (%d)</summary>\n\n", len(e.Expected))
		for _, x := range e.Expected {
			fmt.Fprintf(b, "- %s `%s`, expected by `%s` (line %d)\n", x.Outcome, x.Name, x.By, x.Line)
		}
		b.WriteString("\n</details>\n")
	}
}

// outcomeCounts counts every scenario of the run by outcome, as the summary line does.
func (r Run) outcomeCounts() map[features.Outcome]int {
	out := map[features.Outcome]int{}
	for _, f := range r.Features {
		for _, s := range f.Scenarios {
			out[s.Outcome]++
		}
	}
	return out
}

// failing are the failed or blocked scenarios that fail the run: without expectations all of them, except those
// of a profile blocked as a whole (its one reason is in the profiles' table); with, those not expected.
func (r Run) failing(rep report.ConformanceReport) []Scenario {
	whole := map[string]bool{}
	for _, p := range rep.Profiles {
		if p.Reason != "" {
			whole[p.Reason] = true
		}
	}
	var out []Scenario
	for _, f := range r.Features {
		for _, s := range f.Scenarios {
			if (s.Outcome != features.Failed && s.Outcome != features.Blocked) || s.Expected != "" {
				continue
			}
			if rep.Expectations == nil && s.Outcome == features.Blocked && whole[s.Reason] {
				continue
			}
			out = append(out, s)
		}
	}
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return cut(line, MaxAttribute)
}

// inline puts text in a code span that no backtick in it can close.
func inline(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if s == "" {
		return "``"
	}
	if fence == "`" {
		return fence + s + fence
	}
	return fence + " " + s + " " + fence
}

// cell makes text safe in a table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", "\\|"), "<", "&lt;")
}

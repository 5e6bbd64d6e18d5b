package ciformat

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
	"time"

	"github.com/fortune-tck/fortune-tck/features"
)

// Limits of what one testcase or element carries: a target's answers can be huge.
const (
	// MaxMessage bounds a failure's full text; MaxAttribute its first line, in the message attribute.
	MaxMessage   = 64 << 10
	MaxAttribute = 500
)

// Counts are a run's scenarios by what JUnit calls them.
type Counts struct {
	Tests, Failures, Errors, Skipped int
}

// JUnitCounts counts as junit.xml does: a failed scenario is a failure, a blocked one an error, and one not
// supported, not under test, left out by --tags or failing as expected is skipped.
func (r Run) JUnitCounts() Counts {
	var c Counts
	for _, f := range r.Features {
		fc := f.counts()
		c.Tests += fc.Tests
		c.Failures += fc.Failures
		c.Errors += fc.Errors
		c.Skipped += fc.Skipped
	}
	return c
}

func (f Feature) counts() Counts {
	var c Counts
	for _, s := range f.Scenarios {
		c.Tests++
		switch kind, _, _ := s.junitResult(); kind {
		case "failure":
			c.Failures++
		case "error":
			c.Errors++
		case "skipped":
			c.Skipped++
		}
	}
	return c
}

// junitResult is the child element a testcase gets, its message attribute and its text.
func (s Scenario) junitResult() (kind, message, text string) {
	reason := cut(s.Reason, MaxMessage)
	switch {
	case s.Expected != "" && (s.Outcome == features.Failed || s.Outcome == features.Blocked):
		return "skipped", attribute(fmt.Sprintf("%s as expected (%s): %s", s.Outcome, s.Expected, reason)), ""
	case s.Outcome == features.Failed:
		return "failure", attribute(reason), reason
	case s.Outcome == features.Blocked:
		return "error", attribute("blocked: " + reason), reason
	case s.Outcome == features.Passed:
		return "", "", ""
	}
	return "skipped", attribute(outcomeLabel(s.Outcome) + ": " + reason), ""
}

func outcomeLabel(o features.Outcome) string {
	if o == features.Unsupported {
		return "not supported"
	}
	return string(o)
}

// attribute is the first line of a message, cut to MaxAttribute.
func attribute(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return cut(line, MaxAttribute)
}

// cut shortens s to at most n bytes on a rune boundary, saying so.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && (s[i]&0xC0) == 0x80 {
		i--
	}
	return s[:i] + fmt.Sprintf("… (%d bytes in all)", len(s))
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	File       string          `xml:"file,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Status    string        `xml:"status,attr"`
	Time      string        `xml:"time,attr"`
	File      string        `xml:"file,attr"`
	Line      int           `xml:"line,attr"`
	Failure   *junitMessage `xml:"failure"`
	Error     *junitMessage `xml:"error"`
	Skipped   *junitMessage `xml:"skipped"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// JUnit renders the run as JUnit XML: a testsuite per feature file, a testcase per scenario named by its
// stable ID, with the feature file (without .feature) as its classname.
func JUnit(r Run) ([]byte, error) {
	c := r.JUnitCounts()
	doc := junitSuites{Name: r.Name, Tests: c.Tests, Failures: c.Failures, Errors: c.Errors, Skipped: c.Skipped, Time: seconds(r.Elapsed)}
	for _, f := range r.Features {
		fc := f.counts()
		suite := junitSuite{Name: f.Name, Tests: fc.Tests, Failures: fc.Failures, Errors: fc.Errors, Skipped: fc.Skipped,
			File: "features/" + f.URI, Properties: []junitProperty{{Name: "feature", Value: f.URI}}}
		if !r.Started.IsZero() {
			suite.Timestamp = r.Started.UTC().Format("2006-01-02T15:04:05")
		}
		var total time.Duration
		for _, s := range f.Scenarios {
			total += s.Duration()
			suite.Cases = append(suite.Cases, junitCaseOf(f, s))
		}
		suite.Time = seconds(total)
		doc.Suites = append(doc.Suites, suite)
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

func junitCaseOf(f Feature, s Scenario) junitCase {
	c := junitCase{Name: s.ID, Classname: strings.TrimSuffix(f.URI, ".feature"), Status: outcomeLabel(s.Outcome), Time: seconds(s.Duration()),
		File: "features/" + f.URI, Line: s.Line}
	kind, message, text := s.junitResult()
	m := &junitMessage{Message: message, Type: string(s.Outcome), Text: text}
	switch kind {
	case "failure":
		c.Failure = m
	case "error":
		c.Error = m
	case "skipped":
		m.Type = ""
		if s.Expected != "" {
			m.Type = "expected " + string(s.Outcome)
		}
		c.Skipped = m
	}
	return c
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

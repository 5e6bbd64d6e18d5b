// Package badge draws a run's badge.svg, for an implementation's README: the suite and its version on the left,
// how many scenarios passed of those that ran on the right, coloured by the run's result (green when it passes,
// or meets its expectations; red on a failure nobody expected; yellow when scenarios were only blocked or
// skipped), and each profile's result in its title (shown on hover). It holds only the suite's own words and
// numbers, nothing the target sent.
package badge

import (
	"bytes"
	"fmt"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/fortune-tck/fortune-tck/harness/report"
)

// Badge is what the picture says.
type Badge struct {
	Label, Message string
	// Color is a CSS colour of the message's half.
	Color string
	// Title is the text shown on hover: every profile's result.
	Title string
}

// The colours, as shields.io's.
const (
	Green  = "#4c1"
	Yellow = "#dfb317"
	Red    = "#e05d44"
	Grey   = "#9f9f9f"
)

// Of is the badge of a run: passed of total scenarios (those that passed, failed or were blocked).
func Of(rep report.ConformanceReport, passed, total int) Badge {
	b := Badge{Label: strings.TrimSpace("fortune-tck " + rep.SuiteVersion), Message: fmt.Sprintf("%d/%d passed", passed, total)}
	var profiles []string
	worst := report.Success
	for _, p := range rep.Profiles {
		result := p.Core.Result
		if p.Extended != nil && rank(p.Extended.Result.Result) > rank(result) {
			result = p.Extended.Result.Result
		}
		if rank(result) > rank(worst) {
			worst = result
		}
		profiles = append(profiles, fmt.Sprintf("%s: %s", p.Name, result))
	}
	b.Title = b.Label + ": " + b.Message + " (" + strings.Join(profiles, ", ") + ")"
	switch e := rep.Expectations; {
	case total == 0:
		b.Color = Grey
	case e != nil && e.Met():
		b.Color = Green
		if len(e.Expected) > 0 {
			b.Message += fmt.Sprintf(", %d as expected", len(e.Expected))
		}
	case e != nil:
		b.Color = Red
		b.Message += fmt.Sprintf(", %d unexpected", len(e.Unexpected)+len(e.DidNotHappen))
	case worst == report.Failure:
		b.Color = Red
	case worst == report.BlockedVerdict || worst == report.Partial:
		b.Color = Yellow
	default:
		b.Color = Green
	}
	return b
}

// rank orders the verdicts from best to worst.
func rank(v report.Verdict) int {
	switch v {
	case report.Failure:
		return 4
	case report.BlockedVerdict:
		return 3
	case report.Partial:
		return 2
	case report.NotSupported:
		return 1
	}
	return 0
}

var svg = template.Must(template.New("badge").Funcs(template.FuncMap{"esc": escape}).Parse(
	`<svg xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="20" role="img" aria-label="{{esc .Label}}: {{esc .Message}}">
<title>{{esc .Title}}</title>
<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
<clipPath id="r"><rect width="{{.Width}}" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)"><rect width="{{.Left}}" height="20" fill="#555"/><rect x="{{.Left}}" width="{{.Right}}" height="20" fill="{{.Color}}"/><rect width="{{.Width}}" height="20" fill="url(#s)"/></g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
<text x="{{.LabelX}}" y="15" fill="#010101" fill-opacity=".3">{{esc .Label}}</text><text x="{{.LabelX}}" y="14">{{esc .Label}}</text>
<text x="{{.MessageX}}" y="15" fill="#010101" fill-opacity=".3">{{esc .Message}}</text><text x="{{.MessageX}}" y="14">{{esc .Message}}</text>
</g>
</svg>
`))

// SVG draws the badge. Widths are estimated from the number of characters (Verdana 11px is about 7px a
// character), as a README needs no more.
func SVG(b Badge) ([]byte, error) {
	left := utf8.RuneCountInString(b.Label)*7 + 10
	right := utf8.RuneCountInString(b.Message)*7 + 10
	data := struct {
		Badge
		Width, Left, Right int
		LabelX, MessageX   float64
	}{b, left + right, left, right, float64(left) / 2, float64(left) + float64(right)/2}
	var out bytes.Buffer
	if err := svg.Execute(&out, data); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// escape makes text safe in XML text and attributes.
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&apos;")
		default:
			if r < 0x20 || r == utf8.RuneError {
				b.WriteRune(' ')
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

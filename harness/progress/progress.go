// Package progress is what a run shows in the terminal while it runs: one line per scenario as it ends, with
// the outcome the harness gives it (the default), or every step as godog's pretty formatter prints it. Either
// way godog's closing count ("116 scenarios (116 passed)", the steps, a duration) is left out: the harness's
// summary, which tells blocked and not supported apart from failed, is the only count of a run.
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/features"
)

// The terminal formats of tck run.
const (
	// Scenarios prints one line per scenario as it ends (Lines); the default.
	Scenarios = "progress"
	// Steps prints every step, as godog's pretty formatter does.
	Steps = "pretty"
)

// Formats are the terminal formats, the default first.
var Formats = []string{Scenarios, Steps}

// The godog formatters this package registers.
const (
	godogSilent = "tck-silent"
	godogPretty = "tck-pretty"
)

func init() {
	godog.Format(godogSilent, "Prints nothing: the harness prints a line per scenario and the summary.", newSilent)
	godog.Format(godogPretty, "Prints every step, as pretty does, without godog's closing count.", newPretty)
}

// Godog names the godog formatter of a terminal format; an unknown format is an error that lists the formats.
func Godog(format string) (string, error) {
	switch format {
	case Scenarios:
		return godogSilent, nil
	case Steps:
		return godogPretty, nil
	}
	return "", fmt.Errorf("unknown format %q: use %s", format, strings.Join(Formats, " or "))
}

// silent prints nothing at all: in the default format the harness prints the lines itself, because only it
// knows whether a failed scenario failed or was blocked.
type silent struct{ *godog.BaseFmt }

func newSilent(suite string, out io.Writer) godog.Formatter {
	return silent{godog.NewBaseFmt(suite, out)}
}

// Summary prints nothing.
func (silent) Summary() {}

// pretty is godog's pretty formatter without its closing count and the list of failed steps before it (each
// failed step is printed with its error where it fails, and the harness lists the failed scenarios).
type pretty struct{ *godog.PrettyFmt }

func newPretty(suite string, out io.Writer) godog.Formatter {
	return pretty{godog.NewPrettyFmt(suite, out)}
}

// Summary prints nothing.
func (pretty) Summary() {}

// Lines prints the progress of a run, one line a scenario.
type Lines struct {
	mu    sync.Mutex
	w     io.Writer
	color bool
}

// NewLines prints to w, with the outcomes in colour when color is set (a terminal).
func NewLines(w io.Writer, color bool) *Lines { return &Lines{w: w, color: color} }

// Start says how many scenarios will run, and how many of the others are left out and why ("107 left out by
// --tags"); leftOut holds those reasons with their counts, in the order to print them.
func Start(w io.Writer, run int, leftOut []string) {
	noun := "scenarios"
	if run == 1 {
		noun = "scenario"
	}
	line := fmt.Sprintf("Running %d %s", run, noun)
	if len(leftOut) > 0 {
		line += " (" + strings.Join(leftOut, ", ") + ")"
	}
	fmt.Fprintln(w, line)
}

// Ended prints the line of a scenario that ended: its outcome, how long it took, its name.
//
//	passed   0.4s  auth/authorization-code/sign-in-consent-code-and-token
func (l *Lines) Ended(o features.Outcome, took time.Duration, name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "  %s %5s  %s\n", l.paint(o, fmt.Sprintf("%-7s", o)), Seconds(took), name)
}

// Seconds is a duration as the lines show it: 0.4s, 12.3s.
func Seconds(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// paint colours an outcome's text: green passed, red failed, yellow blocked.
func (l *Lines) paint(o features.Outcome, text string) string {
	if !l.color {
		return text
	}
	code := map[features.Outcome]string{features.Passed: "32", features.Failed: "31", features.Blocked: "33"}[o]
	if code == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

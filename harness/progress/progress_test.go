package progress

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/features"
)

func TestEachFormatHasItsGodogFormatterAndOthersAreRefused(t *testing.T) {
	for _, f := range Formats {
		name, err := Godog(f)
		if err != nil || godog.FindFmt(name) == nil {
			t.Errorf("%s: godog formatter %q (%v) is not registered", f, name, err)
		}
	}
	if Formats[0] != Scenarios {
		t.Errorf("the default format is %s, want %s", Formats[0], Scenarios)
	}
	if _, err := Godog("dots"); err == nil || !strings.Contains(err.Error(), "use progress or pretty") {
		t.Errorf("an unknown format: %v", err)
	}
}

func TestALineAScenario(t *testing.T) {
	var b bytes.Buffer
	Start(&b, 10, []string{"2 not supported by the target", "107 left out by --tags"})
	Start(&b, 1, nil)
	l := NewLines(&b, false)
	l.Ended(features.Passed, 400*time.Millisecond, "auth/authorization-code/sign-in")
	l.Ended(features.Blocked, 12340*time.Millisecond, "auth/refresh/x")
	want := "Running 10 scenarios (2 not supported by the target, 107 left out by --tags)\n" +
		"Running 1 scenario\n" +
		"  passed   0.4s  auth/authorization-code/sign-in\n" +
		"  blocked 12.3s  auth/refresh/x\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	NewLines(&b, true).Ended(features.Failed, time.Second, "x")
	if b.String() != "  \x1b[31mfailed \x1b[0m  1.0s  x\n" {
		t.Errorf("in a terminal: %q", b.String())
	}
}

// The formatters print nothing at the end: godog's count would be a second verdict.
func TestTheFormattersPrintNoSummary(t *testing.T) {
	for _, f := range Formats {
		var b bytes.Buffer
		name, _ := Godog(f)
		status := godog.TestSuite{
			ScenarioInitializer: func(sc *godog.ScenarioContext) {
				sc.Step(`^it fails$`, func() error { return io.ErrUnexpectedEOF })
			},
			Options: &godog.Options{Format: name, Output: &b, NoColors: true, Strict: true, FeatureContents: []godog.Feature{{
				Name: "a.feature", Contents: []byte("Feature: a\n  Scenario: s\n    Given it fails\n"),
			}}},
		}.Run()
		if status == 0 {
			t.Fatalf("%s: the scenario passed", f)
		}
		out := b.String()
		if strings.Contains(out, "1 scenarios") || strings.Contains(out, "1 steps") || strings.Contains(out, "Failed steps") {
			t.Errorf("%s prints godog's summary:\n%s", f, out)
		}
		if pretty := f == Steps; pretty != strings.Contains(out, "Given it fails") {
			t.Errorf("%s: want the steps printed only by pretty:\n%s", f, out)
		}
	}
}

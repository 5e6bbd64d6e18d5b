package report

// Expectations is a run judged against an expectations file (tck run --expect FILE, harness/expect): which
// failed or blocked scenarios the file expected, which it did not, and which of its entries did not happen.
// Result is met when the last two are empty.
type Expectations struct {
	File   string            `yaml:"file"`
	Result ExpectationResult `yaml:"result"`
	// Expected are the failed or blocked scenarios an entry expected: still failing, as the file says.
	Expected []ExpectedTest `yaml:"expected,omitempty"`
	// Unexpected are the failed or blocked scenarios no entry expected (or one expected another outcome of).
	Unexpected []UnexpectedTest `yaml:"unexpected,omitempty"`
	// DidNotHappen are the entries the run contradicts: a scenario that passed, a capability that is now
	// supported. The file is stale until they are removed.
	DidNotHappen []StaleExpectation `yaml:"didNotHappen,omitempty"`
	// NotJudged are the entries about scenarios this run did not run (--tags, a service not under test).
	NotJudged []string `yaml:"notJudged,omitempty"`
}

// ExpectationResult is met or notMet.
type ExpectationResult string

// The results of a run judged against its expectations.
const (
	ExpectationsMet    ExpectationResult = "met"
	ExpectationsNotMet ExpectationResult = "notMet"
)

// ExpectedTest is a scenario that failed or was blocked as an entry (By, a stable ID) expected.
type ExpectedTest struct {
	Name    string  `yaml:"name"`
	Outcome Outcome `yaml:"outcome"`
	By      string  `yaml:"by"`
	Line    int     `yaml:"line"`
}

// UnexpectedTest is a scenario that failed or was blocked with no entry that expected it; Expected is the
// outcome an entry named for it instead, if any.
type UnexpectedTest struct {
	Name     string  `yaml:"name"`
	Outcome  Outcome `yaml:"outcome"`
	Reason   string  `yaml:"reason,omitempty"`
	Expected Outcome `yaml:"expected,omitempty"`
}

// StaleExpectation is an entry of the file that the run contradicts: what it expected, and what happened.
type StaleExpectation struct {
	ID       string  `yaml:"id"`
	Expected Outcome `yaml:"expected"`
	Actual   string  `yaml:"actual"`
	Line     int     `yaml:"line"`
	Why      string  `yaml:"why"`
}

// Met tells whether the run holds no surprise: nothing unexpected failed and every entry happened.
func (e *Expectations) Met() bool {
	return e == nil || (len(e.Unexpected) == 0 && len(e.DidNotHappen) == 0)
}

// Outcomes reads every scenario's outcome back from the report, by stable ID: those of the profiles under test
// (passed, failed, blocked, skipped, not supported). A scenario of an area the target does not declare is not
// in it.
func (rep ConformanceReport) Outcomes() map[string]Outcome {
	out := map[string]Outcome{}
	for _, p := range rep.Profiles {
		results := []Result{p.Core}
		if p.Extended != nil {
			results = append(results, p.Extended.Result)
		}
		for _, r := range results {
			for _, id := range r.PassedTests {
				out[id] = Passed
			}
			for _, id := range r.FailedTests {
				out[id] = Failed
			}
			for _, b := range r.BlockedTests {
				out[b.Name] = Blocked
			}
			for _, id := range r.SkippedTests {
				out[id] = Skipped
			}
			for _, id := range r.UnsupportedTests {
				out[id] = Unsupported
			}
		}
	}
	return out
}

// UnsupportedFeatures are the capabilities (and fixtures, "fixture fixtures.users.outsider") the target does not
// declare that some scenario under test needed, over every profile, sorted.
func (rep ConformanceReport) UnsupportedFeatures() []string {
	set := map[string]bool{}
	for _, p := range rep.Profiles {
		if p.Extended != nil {
			for _, f := range p.Extended.UnsupportedFeatures {
				set[f] = true
			}
		}
	}
	return sortedKeys(set)
}

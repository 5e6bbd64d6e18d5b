package harness

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// steps/ and harness/ talk to the target over the wire, as they would to anyone's implementation: no package of
// theirs may depend on the reference, directly or through another package.
func TestTheSuiteDoesNotImportTheReference(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-test", "github.com/fortune-tck/fortune-tck/steps/...",
		"github.com/fortune-tck/fortune-tck/harness/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/fortune-tck/fortune-tck/reference") {
			t.Errorf("the suite depends on %s", pkg)
		}
	}
}

// The steps' areas are kept apart by the compiler: the core (steps/core) imports no other package of steps/, an
// area imports no other area, except what the issue allows: the fortune area reads the scenario's user (its
// tokens, who it is, its browser) through the types the auth area exports. Only the package steps binds them all.
func TestTheStepAreasImportNoOtherArea(t *testing.T) {
	const steps = "github.com/fortune-tck/fortune-tck/steps"
	allowed := map[string][]string{
		steps + "/core":    nil,
		steps + "/auth":    {steps + "/core"},
		steps + "/gateway": {steps + "/core"},
		steps + "/config":  {steps + "/core"},
		steps + "/fortune": {steps + "/core", steps + "/auth"},
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}}`,
		steps+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := fields[0]
		seen[pkg] = true
		if pkg == steps {
			continue
		}
		may, known := allowed[pkg]
		if !known {
			t.Errorf("%s is a package of steps/ this test does not know: say which areas it may import", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			if (imp == steps || strings.HasPrefix(imp, steps+"/")) && !slices.Contains(may, imp) {
				t.Errorf("%s imports %s: an area reaches another only through what the issue allows", pkg, imp)
			}
		}
	}
	for pkg := range allowed {
		if !seen[pkg] {
			t.Errorf("%s is gone: update the areas this test knows", pkg)
		}
	}
}

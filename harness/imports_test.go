package harness

import (
	"os/exec"
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

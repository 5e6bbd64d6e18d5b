package target

import (
	"os/exec"
	"strings"
	"testing"
)

// The target model is the one both the harness and the steps use, so it must depend on neither: of this module
// it may use the registry (features) alone.
func TestTheTargetModelIsALeaf(t *testing.T) {
	const module = "github.com/fortune-tck/fortune-tck/"
	out, err := exec.Command("go", "list", "-deps", module+"target").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if rest, ok := strings.CutPrefix(pkg, module); ok && rest != "target" && rest != "features" {
			t.Errorf("the target model depends on %s", pkg)
		}
	}
}

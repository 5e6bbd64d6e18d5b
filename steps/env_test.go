package steps

import (
	"testing"

	"github.com/fortune-tck/fortune-tck/target"
)

// envOf is an Env of a target that declares these services and nothing else.
func envOf(svcs target.Services) Env { return Env{Target: &target.Target{Services: svcs}} }

// An Env without a target is a target that declares nothing.
func TestAnEnvWithoutATargetDeclaresNothing(t *testing.T) {
	if s := New(Env{}); s.services().AuthServer != nil || s.env.Target == nil {
		t.Error("an Env without a target must be a target that declares nothing")
	}
}

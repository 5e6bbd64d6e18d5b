package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/internal/launch"
	"github.com/fortune-tck/fortune-tck/internal/needs"
)

// The gateway feature against the reference gateway as Envoy Gateway deploys Global limits: two instances that
// ask envoyproxy/ratelimit (as make deps builds it) instead of counting themselves, started by the example's
// own start.sh, described by its own target file, as docs/operations.md runs them. Every gateway scenario must pass,
// none left unsupported. It holds the example's ports (10080...), which no other test binds (make demo's test and
// the compose stack's, cmd/tck/containertest, move theirs to free ones).
func TestTheGatewayFeatureThroughEnvoysRateLimitService(t *testing.T) {
	needs.Program(t, "redis-server", "envoyproxy/ratelimit (make deps builds it)")
	dir := t.TempDir()
	t.Setenv("FORTUNE_TCK_RLS_DIR", dir)
	p, err := launch.Start("envoy-ratelimit", filepath.Join(dir, "start.log"), []string{"FORTUNE_TCK_RLS_DIR=" + dir},
		filepath.Join("..", "..", "examples", "envoy-ratelimit", "start.sh"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(10 * time.Second)
	if err := p.WaitOutput(context.Background(), "envoy-ratelimit example ready", 3*time.Minute); err != nil {
		t.Fatalf("%v\n%s", err, p.Output())
	}
	reports := t.TempDir()
	code, out, errOut := runTCK("run", "--target", filepath.Join("..", "..", "examples", "envoy-ratelimit", "target.yaml"),
		"--reports", reports)
	if code != exitOK || !strings.Contains(out, " 0 failed, 0 blocked, 0 skipped, 0 not supported") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out, " 0 passed") {
		t.Fatalf("no scenario ran:\n%s", out)
	}
}

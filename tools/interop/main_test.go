package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/harness/matrix"
	"github.com/fortune-tck/fortune-tck/internal/interop"
	"github.com/fortune-tck/fortune-tck/internal/needs"
	"github.com/fortune-tck/fortune-tck/internal/testbin"
)

// TestMain removes the binaries testbin built.
func TestMain(m *testing.M) { testbin.Main(m) }

// The committed interop reports are what the suite finds today: each implementation that make test can start
// (interop.yaml's inTest) is run again, judged against its expectations file (tck run --expect exits 0), and its
// verdicts and differences must be the committed report's; every difference must have its entry;
// reports/interop/README.md must be the table the committed reports make. Those make
// deps cannot install here fail with what to run, never skip.
func TestCommittedInteropReportsAreReproduced(t *testing.T) {
	root := filepath.Join("..", "..")
	examples, err := interop.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(examples) == 0 {
		t.Fatal("no examples/*/interop.yaml")
	}
	tck := testbin.Path(t, "tck")
	var rows []matrix.Row
	for _, e := range examples {
		committed, err := matrix.Load(filepath.Join(root, "reports", "interop", e.Name))
		if err != nil {
			t.Fatalf("%s: the committed report: %v (run make interop)", e.Name, err)
		}
		if err := committed.Check(); err != nil {
			t.Errorf("%s: %v", e.Name, err)
		}
		rows = append(rows, committed)
		if !e.InTest {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			needs.Program(t, e.Name+" ("+filepath.Join("examples", e.Name, e.Start)+"; make deps installs what it runs)")
			dir := t.TempDir()
			res, err := e.Run(context.Background(), tck, dir)
			if err != nil {
				t.Fatalf("%v (make deps installs the example)", err)
			}
			if res.Exit != 0 {
				t.Fatalf("tck exited %d, want 0: every difference is in %s, and every entry happens:\n%s", res.Exit, e.Expectations(), res.Output)
			}
			got, err := matrix.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := matrix.Differences(got.Report), matrix.Differences(committed.Report); !slices.Equal(g, w) {
				t.Errorf("differences now %v\ncommitted %v\n(run make interop, and say why in expectations.yaml)\n%s", g, w, res.Output)
			}
			for i, p := range got.Report.Profiles {
				c := committed.Report.Profiles[i]
				if p.Name != c.Name || p.Core.Result != c.Core.Result || p.Core.Statistics != c.Core.Statistics {
					t.Errorf("profile %s: core %s %+v, committed %s %s %+v", p.Name, p.Core.Result, p.Core.Statistics, c.Name, c.Core.Result, c.Core.Statistics)
				}
			}
		})
	}
	committed, err := os.ReadFile(filepath.Join(root, "reports", "interop", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := page(matrix.Markdown(rows)); string(committed) != want {
		t.Errorf("reports/interop/README.md is not what the committed reports make (run make interop):\n%s", want)
	}
}

// The oidc-provider example in CI: with its expectations file the run exits 0; without one of its entries it
// exits 1 naming the scenarios that entry expected; with an entry whose scenario passes it exits 1 naming that
// entry, so the file cannot go stale.
func TestTheExpectationsFileCatchesANewFailureAndAStaleEntry(t *testing.T) {
	root := filepath.Join("..", "..")
	examples, err := interop.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(examples, func(e interop.Example) bool { return e.Name == "oidc-provider" })
	if i < 0 {
		t.Fatal("no examples/oidc-provider/interop.yaml")
	}
	e := examples[i]
	full, err := os.ReadFile(e.Expectations())
	if err != nil {
		t.Fatal(err)
	}
	tck := testbin.Path(t, "tck")
	ctx := context.Background()
	p, err := e.Launch(ctx, t.TempDir())
	if err != nil {
		t.Fatalf("%v (make deps installs the example)", err)
	}
	defer p.Stop(10 * time.Second)

	run := func(name, expectations string) *interop.Result {
		t.Helper()
		file := filepath.Join(t.TempDir(), name+".yaml")
		if err := os.WriteFile(file, []byte(expectations), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := e.Tck(ctx, tck, t.TempDir(), file)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := run("full", string(full)); res.Exit != 0 || !strings.Contains(res.Output, "expectations met") {
		t.Errorf("with its expectations file: exit %d, want 0\n%s", res.Exit, res.Output)
	}

	entry := "  - id: profile:check-token\n"
	i = strings.Index(string(full), entry)
	j := strings.Index(string(full)[i+len(entry):], "  - ") + i + len(entry)
	if i < 0 || j < i {
		t.Fatalf("no entry profile:check-token in %s", e.Expectations())
	}
	without := string(full[:i]) + string(full[j:])
	res := run("without", without)
	if res.Exit != 1 || !strings.Contains(res.Output, "unexpected (no entry expects them; listed above):\n      blocked auth/check-token/") {
		t.Errorf("without the check-token entry: exit %d, want 1 naming its scenarios\n%s", res.Exit, res.Output)
	}

	passing := "auth/authorization-code/a-code-can-be-exchanged-only-once"
	stale := string(full) + "  - id: " + passing + "\n    outcome: failed\n    why: it failed once\n"
	res = run("stale", stale)
	if res.Exit != 1 || !strings.Contains(res.Output, "expected but passed: "+passing) {
		t.Errorf("with an entry whose scenario passes: exit %d, want 1 naming it\n%s", res.Exit, res.Output)
	}
}

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fortune-tck/fortune-tck/harness/matrix"
	"github.com/fortune-tck/fortune-tck/internal/interop"
	"github.com/fortune-tck/fortune-tck/internal/needs"
)

// The committed interop reports are what the suite finds today: each implementation that make test can start
// (interop.yaml's inTest) is run again, and its verdicts and differences must be the committed report's; every
// difference must have its note; reports/interop/README.md must be the table the committed reports make. Those make
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
	tck := filepath.Join(t.TempDir(), "tck")
	build := exec.Command("go", "build", "-o", tck, "./cmd/tck")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building tck: %v\n%s", err, out)
	}
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
			if res.Exit > 1 {
				t.Fatalf("tck exited %d:\n%s", res.Exit, res.Output)
			}
			got, err := matrix.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := matrix.Differences(got.Report), matrix.Differences(committed.Report); !slices.Equal(g, w) {
				t.Errorf("differences now %v\ncommitted %v\n(run make interop, and say why in differences.yaml)\n%s", g, w, res.Output)
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

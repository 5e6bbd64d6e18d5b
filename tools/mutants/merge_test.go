package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Runs made apart, each with its own --out, fold into one result: later folders win, the wall times add up,
// and a folder without results is a usage error that writes nothing.
func TestMergeRunsFoldsOtherRunsResults(t *testing.T) {
	cat := []Mutant{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	out, first, second := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(dir string, wall time.Duration, e ...resultEntry) {
		t.Helper()
		if err := writeResults(dir, ".", e, len(cat), wall, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	write(out, time.Minute, resultEntry{ID: "a", Outcome: Caught})
	write(first, time.Minute, resultEntry{ID: "b", Outcome: Survived})
	write(second, time.Minute, resultEntry{ID: "b", Outcome: Caught}, resultEntry{ID: "c", Outcome: Caught})
	var stdout, stderr bytes.Buffer
	if code := mergeRuns(cat, out, []string{first, second}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	merged := readResultFile(out)
	got := merged.Mutants
	if len(got) != 3 || got[1].ID != "b" || got[1].Outcome != Caught {
		t.Errorf("merged = %+v, want a, b (caught: the later run), c", got)
	}
	if w := merged.wall(); w != 3*time.Minute {
		t.Errorf("wall time %v, want the three runs' 3m0s", w)
	}
	want := "3 of 3 mutants have a result: 3 caught, 0 survived; written to " +
		filepath.Join(out, "result.yaml") + ", " + filepath.Join(out, "README.md") + "\n"
	if stdout.String() != want {
		t.Errorf("stdout: %s", stdout.String())
	}
	before, _ := os.ReadFile(filepath.Join(out, "result.yaml"))
	if code := mergeRuns(cat, out, []string{t.TempDir()}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "no result.yaml") {
		t.Errorf("an empty folder: exit %d, %s", code, stderr.String())
	}
	if after, _ := os.ReadFile(filepath.Join(out, "result.yaml")); !bytes.Equal(before, after) {
		t.Error("a failed merge changed the result")
	}
}

// A folder without a result.yaml, or with one that does not parse, reads as no results and no wall time.
func TestReadResultFileOfNothingIsZero(t *testing.T) {
	empty, broken := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "result.yaml"), []byte("mutants: [unclosed"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{empty, broken} {
		if f := readResultFile(dir); len(f.Mutants) != 0 || f.wall() != 0 {
			t.Errorf("%s: %+v, want the zero result", dir, f)
		}
	}
}

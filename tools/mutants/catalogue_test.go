package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The catalogue is checked against the current tree in every go test, so that it cannot rot silently:
// a refactoring that moves the code a mutant targets fails here, and the mutant must follow the code.
func TestCatalogueParses(t *testing.T) {
	ms, err := parseCatalogue(catalogueYAML)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < 45 {
		t.Errorf("the catalogue has %d mutants; it needs at least 45, spread over every service", len(ms))
	}
	per := map[string]int{}
	for _, m := range ms {
		per[m.Service]++
	}
	for _, s := range services {
		if per[s] == 0 {
			t.Errorf("no mutant for the service %s: add one (a new capability comes with its mutants)", s)
		}
	}
}

func TestEveryFindOccursOnceInTheTree(t *testing.T) {
	ms, err := parseCatalogue(catalogueYAML)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("..", "..")
	for _, m := range ms {
		for _, p := range m.Patches() {
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p.File)))
			if err != nil {
				t.Errorf("%s: %v", m.ID, err)
				continue
			}
			if n := strings.Count(string(data), p.Find); n != 1 {
				t.Errorf("%s: find occurs %d times in %s, want exactly once; make the mutant follow the code:\n%s", m.ID, n, p.File, p.Find)
			}
		}
	}
}

func TestParseRejectsBadEntries(t *testing.T) {
	base := "mutants:\n  - {id: ID, service: SERVICE, spec: '4.1', mistake: m, file: f.go, find: a, replace: b}\n"
	cases := map[string]string{
		"not kebab":       strings.NewReplacer("ID", "Bad_Id", "SERVICE", "fortune").Replace(base),
		"unknown service": strings.NewReplacer("ID", "ok-id", "SERVICE", "nosuch").Replace(base),
		"duplicate id":    strings.Repeat(strings.NewReplacer("ID", "dup", "SERVICE", "fortune").Replace(base), 1) + "  - {id: dup, service: fortune, spec: '1', mistake: m, file: f.go, find: a, replace: b}\n",
		"no-op patch":     "mutants:\n  - {id: same, service: fortune, spec: '1', mistake: m, file: f.go, find: a, replace: a}\n",
	}
	for name, doc := range cases {
		if _, err := parseCatalogue([]byte(doc)); err == nil {
			t.Errorf("%s: parsed without error", name)
		}
	}
}

func TestTabsConvention(t *testing.T) {
	got := tabs("    if x {\n        y  := 1\n    }\nz")
	want := "\tif x {\n\t\ty  := 1\n\t}\nz"
	if got != want {
		t.Errorf("tabs = %q, want %q", got, want)
	}
}

func TestApplyNeedsExactlyOneOccurrence(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.go"), []byte("a\nb\na\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	twice := Mutant{ID: "x", Patch: Patch{File: "f.go", Find: "a", Replace: "c"}}
	if err := twice.apply(dir); err == nil || !strings.Contains(err.Error(), "2 times") {
		t.Errorf("a find that occurs twice: err = %v", err)
	}
	once := Mutant{ID: "y", Patch: Patch{File: "f.go", Find: "b", Replace: "c"}}
	if err := once.apply(dir); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "f.go")); string(data) != "a\nc\na\n" {
		t.Errorf("patched file = %q", data)
	}
}

func TestMergeKeepsEarlierResultsInCatalogueOrder(t *testing.T) {
	cat := []Mutant{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	earlier := []resultEntry{{ID: "c", Outcome: Caught}, {ID: "a", Outcome: Survived}, {ID: "gone", Outcome: Caught}}
	fresh := []resultEntry{{ID: "a", Outcome: Caught}}
	got := mergeEntries(cat, earlier, fresh)
	if len(got) != 2 || got[0].ID != "a" || got[0].Outcome != Caught || got[1].ID != "c" {
		t.Errorf("merged = %+v, want a (fresh, caught) then c", got)
	}
}

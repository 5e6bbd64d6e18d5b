package manifest

import (
	"slices"
	"strings"
	"testing"
)

// TestDuplicatesAcrossFiles: a resource defined again in a later file (or
// later in a file, or in a List) is an error of the later definition, in
// the place among that file's errors where reading it found it, whether the
// files are parsed together or each on its own and combined; combining
// leaves each file's reading as it was.
func TestDuplicatesAcrossFiles(t *testing.T) {
	named := func(name, spec string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + name + "}\nspec:\n" + spec
	}
	item := func(doc string) string {
		return "  - " + strings.ReplaceAll(strings.TrimSuffix(doc, "\n"), "\n", "\n    ") + "\n"
	}
	files := []File{
		{Name: "a.yaml", Data: []byte(named("r", "  rules: []\n"))},
		{Name: "b.yaml", Data: []byte(named("r", "  rules:\n    - matches: [{path: {type: Prefix}}]\n") +
			"---\napiVersion: v1\nkind: Secret\nmetadata: {name: Bad_Name}\n" +
			"---\napiVersion: v1\nkind: List\nitems:\n" + item(named("r", "  rules: []\n")) + item(named("s", "  rules: []\n")) +
			"---\napiVersion: v1\nkind: Secret\nmetadata: {name: Bad2_}\n")},
		{Name: "c.yaml", Data: []byte(named("s", "  rules: []\n"))},
	}
	want := []string{
		"b.yaml:3: HTTPRoute default/r: metadata.name: HTTPRoute default/r is defined twice (first in a.yaml:1)",
		"b.yaml:6: HTTPRoute default/r: spec.rules[0].matches[0].path.type: unsupported value",
		"b.yaml:10: Secret default/Bad_Name: metadata.name:",
		"b.yaml:17: HTTPRoute default/r: items[0].metadata.name: HTTPRoute default/r is defined twice (first in a.yaml:1)",
		"b.yaml:",
		"c.yaml:3: HTTPRoute default/s: metadata.name: HTTPRoute default/s is defined twice (first in b.yaml:20)",
	}
	check := func(how string, err error) {
		t.Helper()
		errs, ok := err.(Errors)
		if !ok || len(errs) != len(want) {
			t.Fatalf("%s: %v, want %d errors", how, err, len(want))
		}
		for i, e := range errs {
			if !strings.HasPrefix(e.Error(), want[i]) {
				t.Errorf("%s: error %d is\n%s\nwant\n%s...", how, i, e, want[i])
			}
		}
	}
	_, _, err := Parse(files)
	check("Parse", err)
	parsed := make([]*Parsed, len(files))
	for i, f := range files {
		parsed[i] = ParseFile(f)
	}
	own := slices.Clone(parsed[1].Errors())
	_, _, err = Combine(parsed)
	check("Combine", err)
	_, _, err = Combine(parsed)
	check("Combine again", err)
	if !slices.Equal(parsed[1].Errors(), own) {
		t.Fatalf("combining changed a file's own errors: %v", parsed[1].Errors())
	}
	// Alone, b.yaml defines r twice itself.
	_, _, err = Combine(parsed[1:2])
	if errs, _ := err.(Errors); len(errs) != 4 || !strings.HasSuffix(errs[2].Error(), "defined twice (first in b.yaml:1)") {
		t.Fatalf("b.yaml alone: %v", err)
	}
}

package manifest

import (
	"errors"
	"testing"
)

// FuzzParse feeds arbitrary bytes as a manifest file: Parse must never
// panic, a refusal must come without a Set (nothing half-applied) and name
// the file, and an accepted Set must hold only resources with a name.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		validSet,
		"apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Secret, metadata: {name: a}}]\n",
		"a: &a [*a]\n",
		"x: &x {y: *x}\n",
		"--- !!binary AAAA\n",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r}\nspec: {rules: [{matches: [{path: {type: RegularExpression, value: \"(a+)+\"}}]}]}\n",
		"\t- [",
		"{{{{",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		set, _, err := Parse([]File{{Name: "fuzz.yaml", Data: data}})
		if err != nil {
			var errs Errors
			if set != nil || !errors.As(err, &errs) || len(errs) == 0 {
				t.Fatalf("refusal with a set or without Errors: %v, %v", set, err)
			}
			for _, e := range errs {
				if e.File != "fuzz.yaml" {
					t.Fatalf("error without its file: %v", e)
				}
			}
			return
		}
		for _, r := range set.Routes {
			if r.Name == "" || len(r.Rules) == 0 {
				t.Fatalf("accepted route without name or rules: %+v", r)
			}
		}
	})
}

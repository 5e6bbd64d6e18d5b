package harness

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"github.com/fortune-tck/fortune-tck/harness/catalog"
)

// MatchTags evaluates a godog tag expression against a scenario's tags, with godog's grammar: parts joined by
// "&&" must all hold; within a part, terms joined by "," are alternatives; "~" negates a term; the "@" of a tag is optional. The harness needs
// it to know which scenarios a run selected, so that one never run is noticed.
func MatchTags(expr string, tags []string) bool {
	if strings.TrimSpace(expr) == "" {
		return true
	}
	has := map[string]bool{}
	for _, t := range tags {
		has[strings.TrimPrefix(t, "@")] = true
	}
	for _, part := range strings.Split(expr, "&&") {
		if !anyTerm(part, has) {
			return false
		}
	}
	return true
}

func anyTerm(part string, has map[string]bool) bool {
	for _, term := range strings.Split(part, ",") {
		term = strings.ReplaceAll(strings.TrimSpace(term), "@", "")
		if neg, ok := strings.CutPrefix(term, "~"); ok {
			if !has[neg] {
				return true
			}
		} else if has[term] {
			return true
		}
	}
	return false
}

// tagTerm is one term of a tag expression: an optional ~, then a tag (its @ optional).
var tagTerm = regexp.MustCompile(`^~?@?[A-Za-z0-9][A-Za-z0-9._:/-]*$`)

// CheckTags tells, before anything starts, whether a tag expression is written in the grammar the harness
// reads and selects at least one scenario of the features: a typo must not build and boot a whole stack to
// run nothing.
func CheckTags(expr string, features fs.FS) error {
	if strings.TrimSpace(expr) == "" {
		return nil
	}
	for _, part := range strings.Split(expr, "&&") {
		for _, term := range strings.Split(part, ",") {
			if t := strings.TrimSpace(term); !tagTerm.MatchString(t) {
				return fmt.Errorf("%q is not a tag term in %q: write tags as @name, ~@name to exclude, joined by , (or) and && (and)", t, expr)
			}
		}
	}
	cat, err := catalog.Load(features)
	if err != nil {
		return err
	}
	for _, s := range cat.Scenarios {
		if MatchTags(expr, s.Tags) {
			return nil
		}
	}
	return fmt.Errorf("%q selects no scenario (tck coverage lists the spec sections scenarios cite as @spec-<id>; tck capabilities the @capability-<name> tags)", expr)
}

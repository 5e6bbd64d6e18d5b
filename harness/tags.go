package harness

import "strings"

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

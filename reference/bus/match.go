package bus

import (
	"slices"
	"strings"
)

// maxElements bounds the ":"-separated elements matched, so a hostile
// destination cannot make matching expensive.
const maxElements = 64

// MatchService is Spring Cloud Bus's DefaultBusPathMatcher: Match, and when
// that fails for a service id whose second element lists several profiles
// ("app:dev,cloud:8080:x"), Match again with each profile in its place.
func MatchService(pattern, serviceID string) bool {
	if Match(pattern, serviceID) {
		return true
	}
	ids := elements(serviceID)
	if len(ids) <= 1 || len(ids) > maxElements {
		return false
	}
	profiles := strings.FieldsFunc(ids[1], func(r rune) bool { return r == ',' })
	if len(profiles) <= 1 {
		return false
	}
	for _, p := range profiles {
		one := slices.Clone(ids)
		one[1] = strings.TrimSpace(p)
		if Match(pattern, strings.Join(one, ":")) {
			return true
		}
	}
	return false
}

// Match reports whether the service id matches the destination pattern, with
// Spring's AntPathMatcher rules and ":" as separator: "**" matches zero or
// more elements, "*" any run of characters within an element and "?" one
// character. Empty elements are ignored, as AntPathMatcher does, but a
// pattern and an id must both start with ":" or both not.
func Match(pattern, serviceID string) bool {
	if strings.HasPrefix(pattern, ":") != strings.HasPrefix(serviceID, ":") {
		return false
	}
	if pattern == AllServices {
		return true
	}
	p, s := elements(pattern), elements(serviceID)
	if len(p) > maxElements || len(s) > maxElements {
		return false
	}
	return matchElements(p, s)
}

func elements(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ':' })
}

// matchElements is a dynamic programme over (pattern, id) suffixes:
// ok[i][j] says whether p[i:] matches s[j:]. It is O(len(p)*len(s)).
func matchElements(p, s []string) bool {
	ok := make([][]bool, len(p)+1)
	for i := range ok {
		ok[i] = make([]bool, len(s)+1)
	}
	ok[len(p)][len(s)] = true
	for i := len(p) - 1; i >= 0; i-- {
		for j := len(s); j >= 0; j-- {
			switch {
			case p[i] == "**":
				ok[i][j] = ok[i+1][j] || (j < len(s) && ok[i][j+1])
			case j < len(s):
				ok[i][j] = ok[i+1][j+1] && matchElement(p[i], s[j])
			}
		}
	}
	return ok[0][0]
}

// matchElement matches one element against a pattern with "*" and "?", by
// the usual greedy scan that backtracks to the last star: O(len(p)*len(s)).
func matchElement(p, s string) bool {
	pi, si, star, mark := 0, 0, -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == s[si]):
			pi++
			si++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

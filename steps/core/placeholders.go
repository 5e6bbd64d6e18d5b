package core

import (
	"fmt"
	"regexp"
	"strings"
)

var placeholder = regexp.MustCompile(`\{([a-z][a-z0-9:._-]*)\}`)

// Expand replaces {name} placeholders; an unknown one is an error, so a typo in a feature cannot pass.
func (s *Scenario) Expand(text string) (string, error) {
	for _, m := range placeholder.FindAllStringSubmatch(text, -1) {
		if err := s.resolveLazy(m[1]); err != nil {
			return "", err
		}
	}
	var missing []string
	out := placeholder.ReplaceAllStringFunc(text, func(m string) string {
		v, ok := s.Vars[m[1:len(m)-1]]
		if !ok {
			missing = append(missing, m)
			return m
		}
		return v
	})
	if len(missing) > 0 {
		for _, m := range missing {
			if why, ok := artefacts[m[1:len(m)-1]]; ok {
				return "", Blockedf("%s is not there: %s", m, why)
			}
		}
		return "", fmt.Errorf("unknown placeholder %s in %q", strings.Join(missing, ", "), text)
	}
	return out, nil
}

// artefacts are placeholders that earlier steps of the scenario fill in. A step that names one that was never
// produced is blocked, not failed, and never sends the placeholder's absence as if it were a value.
var artefacts = map[string]string{
	"access_token":  "no token response of this scenario carried an access token",
	"refresh_token": "no token response of this scenario carried a refresh token",
	"id_token_sub":  "no token response of this scenario carried an ID token with a subject",
	"user_id":       "the user's id is not known: neither the administration API, the fixture nor an ID token gave it",
	"nonce":         "no authorization request was made in this scenario",
}

// resolveLazy computes a lazy placeholder the first time a text names it.
func (s *Scenario) resolveLazy(name string) error {
	f, ok := s.Lazy[name]
	if !ok || s.Vars[name] != "" {
		return nil
	}
	v, err := f()
	if err != nil {
		return err
	}
	s.Vars[name] = v
	return nil
}

func (s *Scenario) Expand2(a, b string) (string, string, error) {
	a, err := s.Expand(a)
	if err != nil {
		return "", "", err
	}
	b, err = s.Expand(b)
	return a, b, err
}

// ExpandAll expands the placeholders of every text, in order.
func (s *Scenario) ExpandAll(texts ...string) ([]string, error) {
	out := make([]string, len(texts))
	for i, t := range texts {
		var err error
		if out[i], err = s.Expand(t); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// HeaderLines parses "name: value" lines and fills in placeholders.
func (s *Scenario) HeaderLines(text string) (map[string]string, error) {
	h := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		name, value, ok := strings.Cut(line, ": ")
		if !ok {
			return nil, fmt.Errorf("%q is not a header: write name: value", line)
		}
		value, err := s.Expand(value)
		if err != nil {
			return nil, err
		}
		h[name] = value
	}
	return h, nil
}

package steps

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cucumber/godog"
)

// The answer steps judge the last exchange, whichever area made it: status, headers, JSON fields, OAuth errors.

func (s *scenario) registerAnswerSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the answer is (\d{3})$`, s.answerIs)
	sc.Step(`^the answer is (\d{3}) with a JSON body$`, s.answerIsJSON)
	sc.Step(`^the answer has the header "([^"]+)" starting with "([^"]*)"$`, s.headerStartsWith)
	sc.Step(`^the answer redirects nowhere$`, s.redirectsNowhere)
	sc.Step(`^the answer is (\d{3}) with the error "([^"]+)"$`, s.answerIsError)
	sc.Step(`^the answer is (\d{3}) with the error "([^"]+)" and the description "([^"]+)"$`, s.answerIsErrorDescribed)
	sc.Step(`^the field "([^"]+)" is ([\["{\d-].*|true|false|null)$`, s.fieldIs)
	sc.Step(`^the field "([^"]+)" is null or empty$`, s.fieldIsEmpty)
	sc.Step(`^the list field "([^"]+)" holds "([^"]*)"$`, s.listFieldHolds)
	sc.Step(`^the answer has no field "([^"]+)"$`, s.answerHasNoField)
}

func (s *scenario) answerIs(status int) error {
	a, err := s.answer()
	if err != nil {
		return err
	}
	if a.status != status {
		return s.failf("status %d, want %d", a.status, status)
	}
	return nil
}

func (s *scenario) answerIsJSON(status int) error {
	if err := s.answerIs(status); err != nil {
		return err
	}
	if ct := s.last.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return s.failf("Content-Type %q, want application/json", ct)
	}
	_, err := s.last.json()
	return err
}

func (s *scenario) headerStartsWith(name, prefix string) error {
	a, err := s.answer()
	if err != nil {
		return err
	}
	if v := a.header.Get(name); !strings.HasPrefix(v, prefix) {
		return s.failf("header %s is %q, want it to start with %q", name, v, prefix)
	}
	return nil
}

func (s *scenario) redirectsNowhere() error {
	a, err := s.answer()
	if err != nil {
		return err
	}
	if loc := a.header.Get("Location"); loc != "" || (a.status >= 300 && a.status < 400) {
		return s.failf("the answer redirects (%d to %q)", a.status, loc)
	}
	return nil
}

// answerIsError checks an OAuth 2.0 error answer: the status and the JSON member error.
func (s *scenario) answerIsError(status int, code string) error {
	if err := s.answerIs(status); err != nil {
		return err
	}
	obj, err := s.jsonObject()
	if err != nil {
		return err
	}
	if obj["error"] != code {
		return s.failf("error is %v, want %q", obj["error"], code)
	}
	return nil
}

func (s *scenario) answerIsErrorDescribed(status int, code, description string) error {
	if err := s.answerIsError(status, code); err != nil {
		return err
	}
	obj, _ := s.jsonObject()
	if obj["error_description"] != description {
		return s.failf("error_description is %v, want %q", obj["error_description"], description)
	}
	return nil
}

// field returns a top-level field of the JSON answer.
func (s *scenario) field(name string) (any, error) {
	obj, err := s.jsonObject()
	if err != nil {
		return nil, err
	}
	f, ok := obj[name]
	if !ok {
		return nil, s.failf("the answer has no field %q", name)
	}
	return f, nil
}

func (s *scenario) fieldIs(name, want string) error {
	got, err := s.field(name)
	if err != nil {
		return err
	}
	want, err = s.expand(want)
	if err != nil {
		return err
	}
	wantValue, err := decodeJSON(want)
	if err != nil {
		return fmt.Errorf("the expected value %s is not JSON: %w", want, err)
	}
	if !jsonEqual(got, wantValue) {
		return s.failf("field %q is %s, want %s", name, mustJSON(got), want)
	}
	return nil
}

func (s *scenario) fieldIsEmpty(name string) error {
	got, err := s.field(name)
	if err != nil {
		return err
	}
	if got != nil && got != "" {
		return s.failf("field %q is %s, want null or \"\"", name, mustJSON(got))
	}
	return nil
}

func (s *scenario) listFieldHolds(name, want string) error {
	want, err := s.expand(want)
	if err != nil {
		return err
	}
	got, err := s.field(name)
	if err != nil {
		return err
	}
	list, ok := got.([]any)
	if !ok || !sameSet(list, words(want)) {
		return s.failf("field %q is %s, want the list %q in any order", name, mustJSON(got), want)
	}
	return nil
}

func (s *scenario) answerHasNoField(name string) error {
	obj, err := s.jsonObject()
	if err != nil {
		return err
	}
	if v, ok := obj[name]; ok {
		return s.failf("the answer has the field %q (%s)", name, mustJSON(v))
	}
	return nil
}

// pageAttribute reads one attribute of a page the application offers as JSON (the greeting client and the
// configuration application do): absent when missing or null, an error when not a string.
func (s *scenario) pageAttribute(name string) (string, bool, error) {
	obj, err := s.jsonObject()
	if err != nil {
		return "", false, err
	}
	attr, ok := obj[name]
	if !ok || attr == nil {
		return "", false, nil
	}
	v, ok := attr.(string)
	if !ok {
		return "", true, s.failf("attribute %q is %s, want a string", name, mustJSON(attr))
	}
	return v, true, nil
}

func (s *scenario) pageHas(name string) error {
	v, ok, err := s.pageAttribute(name)
	if err != nil {
		return err
	}
	if !ok || strings.TrimSpace(v) == "" {
		return s.failf("the page has no (or an empty) attribute %q", name)
	}
	return nil
}

// words splits a space-separated list (scopes, grants).
func words(s string) []string { return strings.Fields(s) }

// sameSet compares two lists as sets.
func sameSet(got []any, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	seen := map[string]bool{}
	for _, g := range got {
		v, ok := g.(string)
		if !ok {
			return false
		}
		seen[v] = true
	}
	for _, x := range want {
		if !seen[x] {
			return false
		}
	}
	return true
}

// jsonEqual compares decoded JSON values, numbers by their text.
func jsonEqual(a, b any) bool { return mustJSON(a) == mustJSON(b) }

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

package core

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cucumber/godog"
)

// The answer steps judge the last exchange, whichever area made it: status, headers, JSON fields, OAuth errors.

func (s *Scenario) RegisterAnswerSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the answer is (\d{3})$`, s.AnswerIs)
	sc.Step(`^the answer is (\d{3}) with a JSON body$`, s.AnswerIsJSON)
	sc.Step(`^the answer has the header "([^"]+)" starting with "([^"]*)"$`, s.headerStartsWith)
	sc.Step(`^the answer redirects nowhere$`, s.redirectsNowhere)
	sc.Step(`^the answer is (\d{3}) with the error "([^"]+)"$`, s.AnswerIsError)
	sc.Step(`^the answer is (\d{3}) with the error "([^"]+)" and the description "([^"]+)"$`, s.answerIsErrorDescribed)
	sc.Step(`^the field "([^"]+)" is ([\["{\d-].*|true|false|null)$`, s.FieldIs)
	sc.Step(`^the field "([^"]+)" is null or empty$`, s.fieldIsEmpty)
	sc.Step(`^the list field "([^"]+)" holds "([^"]*)"$`, s.listFieldHolds)
	sc.Step(`^the answer has no field "([^"]+)"$`, s.answerHasNoField)
}

func (s *Scenario) AnswerIs(status int) error {
	a, err := s.Answer()
	if err != nil {
		return err
	}
	if a.Status != status {
		return s.Failf("status %d, want %d", a.Status, status)
	}
	return nil
}

func (s *Scenario) AnswerIsJSON(status int) error {
	if err := s.AnswerIs(status); err != nil {
		return err
	}
	if ct := s.Last.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return s.Failf("Content-Type %q, want application/json", ct)
	}
	_, err := s.Last.JSON()
	return err
}

func (s *Scenario) headerStartsWith(name, prefix string) error {
	a, err := s.Answer()
	if err != nil {
		return err
	}
	if v := a.Header.Get(name); !strings.HasPrefix(v, prefix) {
		// The status first: a 404's Content-Type is no statement about the document that was asked for.
		return s.Failf("status %d, and the header %s is %q; want it to start with %q", a.Status, name, v, prefix)
	}
	return nil
}

func (s *Scenario) redirectsNowhere() error {
	a, err := s.Answer()
	if err != nil {
		return err
	}
	if loc := a.Header.Get("Location"); loc != "" || (a.Status >= 300 && a.Status < 400) {
		return s.Failf("the answer redirects (%d to %q)", a.Status, loc)
	}
	return nil
}

// AnswerIsError checks an OAuth 2.0 error answer: the status and the JSON member error.
func (s *Scenario) AnswerIsError(status int, code string) error {
	if err := s.AnswerIs(status); err != nil {
		return err
	}
	obj, err := s.JSONObject()
	if err != nil {
		return err
	}
	if obj["error"] != code {
		return s.Failf("error is %v, want %q", obj["error"], code)
	}
	return nil
}

func (s *Scenario) answerIsErrorDescribed(status int, code, description string) error {
	if err := s.AnswerIsError(status, code); err != nil {
		return err
	}
	obj, _ := s.JSONObject()
	if obj["error_description"] != description {
		return s.Failf("error_description is %v, want %q", obj["error_description"], description)
	}
	return nil
}

// Field returns a top-level field of the JSON answer.
func (s *Scenario) Field(name string) (any, error) {
	obj, err := s.JSONObject()
	if err != nil {
		return nil, err
	}
	f, ok := obj[name]
	if !ok {
		return nil, s.Failf("the answer has no field %q", name)
	}
	return f, nil
}

func (s *Scenario) FieldIs(name, want string) error {
	got, err := s.Field(name)
	if err != nil {
		return err
	}
	want, err = s.Expand(want)
	if err != nil {
		return err
	}
	wantValue, err := DecodeJSON(want)
	if err != nil {
		return fmt.Errorf("the expected value %s is not JSON: %w", want, err)
	}
	if !JSONEqual(got, wantValue) {
		return s.Failf("field %q is %s, want %s", name, MustJSON(got), want)
	}
	return nil
}

func (s *Scenario) fieldIsEmpty(name string) error {
	got, err := s.Field(name)
	if err != nil {
		return err
	}
	if got != nil && got != "" {
		return s.Failf("field %q is %s, want null or \"\"", name, MustJSON(got))
	}
	return nil
}

func (s *Scenario) listFieldHolds(name, want string) error {
	want, err := s.Expand(want)
	if err != nil {
		return err
	}
	got, err := s.Field(name)
	if err != nil {
		return err
	}
	list, ok := got.([]any)
	if !ok || !SameSet(list, Words(want)) {
		return s.Failf("field %q is %s, want the list %q in any order", name, MustJSON(got), want)
	}
	return nil
}

func (s *Scenario) answerHasNoField(name string) error {
	obj, err := s.JSONObject()
	if err != nil {
		return err
	}
	if v, ok := obj[name]; ok {
		return s.Failf("the answer has the field %q (%s)", name, MustJSON(v))
	}
	return nil
}

// PageAttribute reads one attribute of a page the application offers as JSON (the greeting client and the
// configuration application do): absent when missing or null, an error when not a string.
func (s *Scenario) PageAttribute(name string) (string, bool, error) {
	obj, err := s.JSONObject()
	if err != nil {
		return "", false, err
	}
	attr, ok := obj[name]
	if !ok || attr == nil {
		return "", false, nil
	}
	v, ok := attr.(string)
	if !ok {
		return "", true, s.Failf("attribute %q is %s, want a string", name, MustJSON(attr))
	}
	return v, true, nil
}

func (s *Scenario) PageHas(name string) error {
	v, ok, err := s.PageAttribute(name)
	if err != nil {
		return err
	}
	if !ok || strings.TrimSpace(v) == "" {
		return s.Failf("the page has no (or an empty) attribute %q", name)
	}
	return nil
}

// Words splits a space-separated list (scopes, grants).
func Words(s string) []string { return strings.Fields(s) }

// SameSet compares two lists as sets.
func SameSet(got []any, want []string) bool {
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

// JSONEqual compares decoded JSON values, numbers by their text.
func JSONEqual(a, b any) bool { return MustJSON(a) == MustJSON(b) }

func MustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

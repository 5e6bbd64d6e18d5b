package configapp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Bound keys (spec 2.6) and their defaults.
const (
	keyDisplayFortune = "greeting.displayFortune"
	keyMessage        = "greeting.message"
	keyQuoteURL       = "quoteServiceURL"
	keyBasicEnabled   = "security.basic.enabled"
	keyMgmtEnabled    = "management.security.enabled"
	keyUserName       = "security.user.name"
	keyUserPassword   = "security.user.password"
	keyLevelPrefix    = "logging.level."

	defaultMessage = "Greetings!!!"
	defaultUser    = "user"
)

// settings are the configuration keys bound to typed values.
type settings struct {
	displayFortune    bool
	message           string
	quoteURL          string
	levels            *levelTable
	basicEnabled      bool // application endpoints need HTTP Basic
	managementEnabled bool // operational endpoints need HTTP Basic
	user              string
	password          string // empty: the password generated at start
}

// bindError is a value that cannot be bound; the whole configuration is
// then refused, so nothing is applied half.
type bindError struct{ key, value, want string }

func (e *bindError) Error() string {
	return fmt.Sprintf("invalid configuration: %s is %q, want %s", e.key, e.value, e.want)
}

// bind reads the settings from the merged properties. Invalid log levels do
// not fail the binding (Spring Boot logs and skips them): they come back as
// messages to log.
func bind(m map[string]json.RawMessage, root level) (settings, []string, error) {
	s := settings{
		message:  lookup(m, defaultMessage, keyMessage),
		quoteURL: lookup(m, "", keyQuoteURL),
		user:     cmp.Or(lookup(m, "", keyUserName), defaultUser),
		password: lookup(m, "", keyUserPassword),
	}
	var err error
	bools := []struct {
		dst  *bool
		def  bool
		keys []string
	}{
		{&s.displayFortune, false, []string{keyDisplayFortune, "greeting.display-fortune", "greeting.display_fortune"}},
		{&s.basicEnabled, true, []string{keyBasicEnabled}},
		{&s.managementEnabled, true, []string{keyMgmtEnabled}},
	}
	for _, b := range bools {
		if *b.dst, err = lookupBool(m, b.def, b.keys...); err != nil {
			return s, nil, err
		}
	}
	var problems []string
	s.levels, problems = bindLevels(m, root)
	return s, problems, nil
}

// lookup returns the first key present (Spring's relaxed names are listed
// after the canonical one), or def.
func lookup(m map[string]json.RawMessage, def string, keys ...string) string {
	if _, v, ok := find(m, keys); ok {
		return v
	}
	return def
}

func find(m map[string]json.RawMessage, keys []string) (key, value string, ok bool) {
	for _, k := range keys {
		if raw, ok := m[k]; ok {
			return k, valueText(raw), true
		}
	}
	return "", "", false
}

// lookupBool accepts Spring's boolean spellings; an empty value is the
// default.
func lookupBool(m map[string]json.RawMessage, def bool, keys ...string) (bool, error) {
	key, v, ok := find(m, keys)
	if !ok {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "":
		return def, nil
	case "true", "on", "yes", "1":
		return true, nil
	case "false", "off", "no", "0":
		return false, nil
	}
	return def, &bindError{key: key, value: v, want: "true or false"}
}

// bindLevels reads logging.level.<logger> keys; logging.level.root sets the
// root logger.
func bindLevels(m map[string]json.RawMessage, root level) (*levelTable, []string) {
	t := newLevelTable(root)
	var problems []string
	for key, raw := range m {
		name, ok := strings.CutPrefix(key, keyLevelPrefix)
		if !ok || name == "" {
			continue
		}
		text := valueText(raw)
		l, ok := parseLevel(text)
		if !ok {
			problems = append(problems, fmt.Sprintf("Cannot set level: %s for '%s'", text, name))
			continue
		}
		t.configured[canonicalLogger(name)] = l
	}
	slices.Sort(problems) // map order is random; the log should not be
	return t, problems
}

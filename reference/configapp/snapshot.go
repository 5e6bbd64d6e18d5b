package configapp

import (
	"bytes"
	"encoding/json"
	"slices"
)

// snapshot is one fetched configuration and its bound settings. It is never
// modified: a refresh builds a new one and swaps it in atomically, so a
// request sees either the old configuration or the new one, never a mix.
type snapshot struct {
	env      *environment
	merged   map[string]json.RawMessage
	settings settings
}

// newSnapshot binds env; problems are messages to log (invalid levels).
func newSnapshot(env *environment, root level) (*snapshot, []string, error) {
	merged := merge(env.PropertySources)
	s, problems, err := bind(merged, root)
	if err != nil {
		return nil, nil, err
	}
	return &snapshot{env: env, merged: merged, settings: s}, problems, nil
}

// merge flattens the sources; the first source has the highest precedence.
func merge(sources []propertySource) map[string]json.RawMessage {
	merged := make(map[string]json.RawMessage)
	for _, src := range slices.Backward(sources) {
		for k, v := range src.Source.values {
			merged[k] = v
		}
	}
	return merged
}

// changedKeys lists, sorted, the keys added, removed or changed between two
// configurations: what Spring's /refresh answers.
func changedKeys(old, next map[string]json.RawMessage) []string {
	keys := []string{}
	for k, v := range next {
		if w, ok := old[k]; !ok || !bytes.Equal(v, w) {
			keys = append(keys, k)
		}
	}
	for k := range old {
		if _, ok := next[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

package bus

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, id string
		want        bool
	}{
		{"**", "anything:at:all", true},
		{"**", "", true},
		{"app:**", "app:8080:abc", true},
		{"app:**", "app", true},
		{"app:**", "other:8080:abc", false},
		{"app:**", "application:8080:abc", false},
		{"app:8080:**", "app:8080:abc", true},
		{"app:8080:**", "app:9090:abc", false},
		{"app:*:abc", "app:8080:abc", true},
		{"app:*:abc", "app:8080:abd", false},
		{"app*:**", "app-x:1:2", true},
		{"*-config:**", "greeting-config:1:2", true},
		{"a?p:**", "app:1:2", true},
		{"a?p:**", "ap:1:2", false},
		{"app:8080:abc", "app:8080:abc", true},
		{"app:8080:abc", "app:8080:abcd", false},
		{"**:abc", "app:1:abc", true},
		{"**:abc", "app:1:abd", false},
		{"app:**:abc", "app:abc", true},
		{"*", "app:1:2", false},
		{"app::**", "app:1:2", true},
		{"app:*", "app:1", true},
		{"app:*", "app", false},
		{"a**b:**", "axxb:1", true}, // "**" inside an element is two stars
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.id); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.id, got, tt.want)
		}
	}
}

func TestMatchBoundsHostileInput(t *testing.T) {
	long := strings.Repeat("*:", maxElements+1) + "x"
	if Match(long, "a:b:x") {
		t.Fatal("a pattern over the element limit matched")
	}
	stars := strings.Repeat("*", 500) + "b"
	if matchElement(stars, strings.Repeat("a", 1000)) {
		t.Fatal("matched")
	}
}

func FuzzMatch(f *testing.F) {
	f.Add("app:**", "app:8080:abc")
	f.Add("**:*:?", "a:b:c")
	f.Add("::", ":")
	f.Fuzz(func(t *testing.T, pattern, id string) {
		if Match(pattern, id) != Match(pattern, id) {
			t.Fatal("not deterministic")
		}
		if pattern == id && !strings.ContainsAny(pattern, "*?") && !Match(pattern, id) && len(elements(id)) <= maxElements {
			t.Fatalf("%q does not match itself", id)
		}
	})
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"type":"RefreshRemoteApplicationEvent","timestamp":1,"originService":"a:1:x","destinationService":"**","id":"i"}`))
	f.Add([]byte(`{"type":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := Decode(data)
		if err != nil {
			return
		}
		again, err := e.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(again); err != nil {
			t.Fatalf("re-decoding %s: %v", again, err)
		}
	})
}

// DefaultBusPathMatcher tries each profile of an id that lists several; an id with one profile, or none, is
// matched as it is. A pattern and an id must agree on a leading ":" (AntPathMatcher.doMatch).
func TestMatchService(t *testing.T) {
	tests := []struct {
		pattern, id string
		want        bool
	}{
		{"app:dev:**", "app:dev,cloud:8080:x", true},
		{"app:cloud:**", "app:dev,cloud:8080:x", true},
		{"app:dev,cloud:**", "app:dev,cloud:8080:x", true},
		{"app:prod:**", "app:dev,cloud:8080:x", false},
		{"app:dev:8080:x", "app:dev, cloud:8080:x", true},
		{"app:8080:**", "app:dev:8080:x", false},
		{"app:**", "app:dev,cloud:8080:x", true},
		{"app:dev:**", "app", false},
		{":app:**", "app:1:x", false},
		{"app:**", ":app:1:x", false},
		{":app:**", ":app:1:x", true},
	}
	for _, tt := range tests {
		if got := MatchService(tt.pattern, tt.id); got != tt.want {
			t.Errorf("MatchService(%q, %q) = %v, want %v", tt.pattern, tt.id, got, tt.want)
		}
	}
}

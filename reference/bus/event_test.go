package bus

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
)

var uuidForm = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestNewRefreshHasSpringShape(t *testing.T) {
	before := time.Now().UnixMilli()
	e := NewRefresh(ServiceID("greeting-config", nil, 8080, "abc"), "")
	data, err := e.Encode()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if len(m) != 5 || m["type"] != RefreshType || m["originService"] != "greeting-config:8080:abc" || m["destinationService"] != "**" {
		t.Fatalf("event %s", data)
	}
	if ts := int64(m["timestamp"].(float64)); ts < before || ts > time.Now().UnixMilli() {
		t.Fatalf("timestamp %d", ts)
	}
	if !uuidForm.MatchString(e.ID) || e.ID == NewRefresh("x", "").ID {
		t.Fatalf("id %q is not a fresh random UUID", e.ID)
	}
}

func TestServiceIDIsSpringsBusID(t *testing.T) {
	for _, tt := range []struct {
		profiles []string
		want     string
	}{
		{nil, "app:8080:r"},
		{[]string{"dev"}, "app:dev:8080:r"},
		{[]string{"dev", "cloud"}, "app:dev,cloud:8080:r"},
	} {
		if got := ServiceID("app", tt.profiles, 8080, "r"); got != tt.want {
			t.Errorf("ServiceID(%v) = %q, want %q", tt.profiles, got, tt.want)
		}
	}
}

func TestNormalizeDestination(t *testing.T) {
	for in, want := range map[string]string{
		"":                   "**",
		"**":                 "**",
		"app":                "app:**",
		"app:**":             "app:**",
		"app:8080":           "app:8080:**",
		"app:8080:**":        "app:8080:**",
		"app:8080:abc":       "app:8080:abc",
		"app:*":              "app:*:**",
		"greeting-config:**": "greeting-config:**",
		"APP:**":             "APP:**", // endsWithIgnoreCase
	} {
		if got := NormalizeDestination(in); got != want {
			t.Errorf("NormalizeDestination(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecode(t *testing.T) {
	good := `{"type":"RefreshRemoteApplicationEvent","timestamp":1,"originService":"a:1:x","destinationService":"app","id":"i","extra":{"ignored":true}}`
	e, err := Decode([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	// Spring matches the destination as written: it normalises when it makes an event, not when it reads one.
	if e.DestinationService != "app" || e.OriginService != "a:1:x" || e.ID != "i" || e.Timestamp != 1 {
		t.Fatalf("decoded %+v", e)
	}
	if e.IsFor("app:8080:x") || !e.IsFor("app") {
		t.Fatal("a received destination was normalised")
	}
	missing, err := Decode([]byte(`{"type":"RefreshRemoteApplicationEvent","originService":"a:1:x","id":"i"}`))
	if err != nil || missing.IsFor("app:8080:x") {
		t.Fatalf("an event without a destination addresses someone: %+v %v", missing, err)
	}
	empty, err := Decode([]byte(`{"type":"RefreshRemoteApplicationEvent","originService":"a:1:x","destinationService":" ","id":"i"}`))
	if err != nil || !empty.IsFor("app:8080:x") {
		t.Fatalf("an empty destination must address everyone (PathServiceMatcher.isForSelf): %+v %v", empty, err)
	}
	bad := map[string]string{
		"not JSON":       `hello`,
		"array":          `[1,2]`,
		"no type":        `{"id":"i","originService":"a"}`,
		"numeric type":   `{"type":1}`,
		"no origin":      `{"type":"RefreshRemoteApplicationEvent","id":"i"}`,
		"float stamp":    `{"type":"RefreshRemoteApplicationEvent","id":"i","originService":"a","timestamp":1.5}`,
		"huge field":     `{"type":"RefreshRemoteApplicationEvent","id":"i","originService":"` + strings.Repeat("a", 2000) + `"}`,
		"huge ack field": `{"type":"AckRemoteApplicationEvent","ackId":"` + strings.Repeat("a", 2000) + `"}`,
		"huge message":   `{"type":"RefreshRemoteApplicationEvent","id":"i","originService":"a","x":"` + strings.Repeat("a", MaxMessageSize) + `"}`,
		"empty":          ``,
		"null":           `null`,
		"truncated JSON": good[:40],
	}
	for name, msg := range bad {
		if _, err := Decode([]byte(msg)); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
}

func TestIsForAndIsFrom(t *testing.T) {
	self := ServiceID("greeting-config", nil, 8080, "abc")
	for dest, want := range map[string]bool{
		"": true, "**": true, "greeting-config": true, "greeting-config:8080": true,
		"greeting-config:9090": false, "other": false, "greeting-config:8080:abc": true, "greeting-config:8080:abd": false,
	} {
		if got := NewRefresh("x:1:y", dest).IsFor(self); got != want {
			t.Errorf("destination %q: IsFor = %v, want %v", dest, got, want)
		}
	}
	e := NewRefresh(self, "")
	if !e.IsFrom(self) || e.IsFrom("greeting-config:8080:abd") {
		t.Fatal("IsFrom")
	}
}

func TestNewAckAcknowledgesItsEvent(t *testing.T) {
	of := NewRefresh("a:1:x", "app")
	ack := NewAck("app:2:y", of)
	if ack.Type != AckType || ack.AckID != of.ID || ack.AckDestinationService != "app:**" || ack.Event != RefreshClass ||
		ack.DestinationService != AllServices || ack.OriginService != "app:2:y" || !uuidForm.MatchString(ack.ID) || ack.ID == of.ID {
		t.Fatalf("ack %+v of %+v", ack, of)
	}
	round, err := Decode(mustEncode(t, ack))
	if err != nil || round != ack {
		t.Fatalf("round trip: %+v %v", round, err)
	}
}

func mustEncode(t *testing.T, e Event) []byte {
	t.Helper()
	data, err := e.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

package bus

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestNewRefreshHasSpringShape(t *testing.T) {
	before := time.Now().UnixMilli()
	e := NewRefresh(ServiceID("greeting-config", 8080, "abc"), "")
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
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if !uuid.MatchString(e.ID) || e.ID == NewRefresh("x", "").ID {
		t.Fatalf("id %q is not a fresh random UUID", e.ID)
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
	if e.DestinationService != "app:**" || e.OriginService != "a:1:x" || e.ID != "i" || e.Timestamp != 1 {
		t.Fatalf("decoded %+v", e)
	}
	ack := `{"type":"AckRemoteApplicationEvent","ackId":"i","originService":"b:1:y","id":"j"}`
	if e, err := Decode([]byte(ack)); err != nil || e.Type != "AckRemoteApplicationEvent" || e.DestinationService != "**" {
		t.Fatalf("ack: %+v %v", e, err)
	}
	bad := map[string]string{
		"not JSON":       `hello`,
		"array":          `[1,2]`,
		"no type":        `{"id":"i","originService":"a"}`,
		"numeric type":   `{"type":1}`,
		"no id":          `{"type":"RefreshRemoteApplicationEvent","originService":"a"}`,
		"no origin":      `{"type":"RefreshRemoteApplicationEvent","id":"i"}`,
		"float stamp":    `{"type":"RefreshRemoteApplicationEvent","id":"i","originService":"a","timestamp":1.5}`,
		"huge field":     `{"type":"RefreshRemoteApplicationEvent","id":"i","originService":"` + strings.Repeat("a", 2000) + `"}`,
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

func TestIsFor(t *testing.T) {
	self := ServiceID("greeting-config", 8080, "abc")
	for dest, want := range map[string]bool{
		"": true, "**": true, "greeting-config": true, "greeting-config:8080": true,
		"greeting-config:9090": false, "other": false, "greeting-config:8080:abc": true, "greeting-config:8080:abd": false,
	} {
		if got := NewRefresh("x:1:y", dest).IsFor(self); got != want {
			t.Errorf("destination %q: IsFor = %v, want %v", dest, got, want)
		}
	}
}

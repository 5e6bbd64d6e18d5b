package bus

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Golden messages: JSON that Spring Cloud Bus published or reads, copied from where it was recorded.
const (
	// A RefreshRemoteApplicationEvent a Spring Cloud Config server published on a push, as a consumer of the
	// broker received it: spring-cloud/spring-cloud-config issue 790 ("Invalid JSON RefreshRemoteApplicationEvent
	// onto kafka from ConfigServer", 2017; the JSON body without the binder's header bytes).
	springRefresh = `{"type":"RefreshRemoteApplicationEvent","timestamp":1505213392057,"originService":"ConfigServer:production,staging","destinationService":"**","id":"fac1ffeb-0075-4623-ace4-60f4580c0836"}`
	// An AckRemoteApplicationEvent a Spring Cloud Bus application published, as its receiver logged it:
	// ityouknow/blog-comments issue 91 (2019). That application's ObjectMapper wrote properties in snake_case;
	// Spring's default is Jackson's, the camelCase property names of the class (AckRemoteApplicationEvent).
	springAckSnakeCase = `{"type":"AckRemoteApplicationEvent","timestamp":1563303289729,"origin_service":"support-uaa:local:9999","destination_service":"**","id":"8bc427a0-c499-456a-855d-02872d3efcbe","ack_id":"b70947c1-048e-4e37-8c20-b1640de9bc75","ack_destination_service":"**","event":"org.springframework.cloud.bus.event.RefreshRemoteApplicationEvent"}`
	// Spring Cloud Bus's own tests: spring-cloud-bus/src/test/java/org/springframework/cloud/bus/jackson/
	// SubtypeModuleTests.java (testDeserializeAckRemoteApplicationEventWithKnownType,
	// testDeserializeUnknownTypeWithMessageConverter).
	springAckOfTest = `{"type":"AckRemoteApplicationEvent", "event":"org.springframework.cloud.bus.event.test.TestRemoteApplicationEvent"}`
	springUnknown   = `{"type":"NotDefinedTestRemoteApplicationEvent"}`
	// SerializationTests.java (deserializeOldValueWithNoId): an event without an id is read, with a fresh id.
	springNoID = `{"type":"RefreshRemoteApplicationEvent","timestamp":1505213392057,"originService":"foo","destinationService":"bar:**"}`
)

// keys are the members of a JSON object in their order.
func keys(t *testing.T, data string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", data)
	}
	var out []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// camel is Jackson's default name of a property written in snake_case.
func camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
	}
	return strings.Join(parts, "")
}

// What we publish is what Spring publishes: the same members in the same order, a timestamp in epoch
// milliseconds (13 digits, as Spring's), a UUID id, a normalised destination.
func TestWePublishSpringsRefreshAndAck(t *testing.T) {
	ours := mustEncode(t, NewRefresh(ServiceID("app", []string{"dev"}, 8080, "r"), "other"))
	if got, want := keys(t, string(ours)), keys(t, springRefresh); !reflect.DeepEqual(got, want) {
		t.Fatalf("refresh members %v, Spring's %v", got, want)
	}
	var spring, e map[string]any
	_ = json.Unmarshal([]byte(springRefresh), &spring)
	_ = json.Unmarshal(ours, &e)
	for k, v := range spring {
		if reflect.TypeOf(e[k]) != reflect.TypeOf(v) {
			t.Errorf("member %s is %T, Spring's %T", k, e[k], v)
		}
	}
	if ms := int64(e["timestamp"].(float64)); len(strconv.FormatInt(ms, 10)) != 13 || time.Since(time.UnixMilli(ms)) > time.Minute {
		t.Errorf("timestamp %d is not now in epoch milliseconds", ms)
	}
	if e["destinationService"] != "other:**" || e["originService"] != "app:dev:8080:r" || !uuidForm.MatchString(e["id"].(string)) {
		t.Errorf("refresh %s", ours)
	}

	ack := mustEncode(t, NewAck("app:8082:s", NewRefresh("app:8080:r", "")))
	var want []string
	for _, k := range keys(t, springAckSnakeCase) {
		want = append(want, camel(k))
	}
	if got := keys(t, string(ack)); !reflect.DeepEqual(got, want) {
		t.Fatalf("ack members %v, Spring's %v", got, want)
	}
	var springAck map[string]any
	_ = json.Unmarshal([]byte(springAckSnakeCase), &springAck)
	if !bytes.Contains(ack, mustJSON(springAck["event"])) {
		t.Errorf("ack %s does not name the event class as Spring does (%s)", ack, springAck["event"])
	}
}

func mustJSON(v any) []byte {
	data, _ := json.Marshal(v)
	return data
}

// What Spring publishes we read: its refresh, its acknowledgements (a known event class or not), an event type
// we do not know (Spring reads it as an UnknownRemoteApplicationEvent, addressed to nobody), and a refresh
// without an id.
func TestWeReadWhatSpringPublishes(t *testing.T) {
	e, err := Decode([]byte(springRefresh))
	if err != nil {
		t.Fatal(err)
	}
	want := Event{Type: RefreshType, Timestamp: 1505213392057, OriginService: "ConfigServer:production,staging",
		DestinationService: "**", ID: "fac1ffeb-0075-4623-ace4-60f4580c0836"}
	if e != want || !e.IsFor("app:8080:x") {
		t.Fatalf("read %+v", e)
	}
	if !e.IsFrom("ConfigServer:production,staging") || e.IsFrom("ConfigServer:production:8888:x") {
		t.Fatal("IsFrom")
	}

	snake := strings.NewReplacer("origin_service", "originService", "destination_service", "destinationService",
		"ack_id", "ackId", "ack_destination_service", "ackDestinationService").Replace(springAckSnakeCase)
	ack, err := Decode([]byte(snake))
	if err != nil || ack.Type != AckType || ack.AckID != "b70947c1-048e-4e37-8c20-b1640de9bc75" ||
		ack.AckDestinationService != "**" || ack.Event != RefreshClass || ack.OriginService != "support-uaa:local:9999" {
		t.Fatalf("ack %+v %v", ack, err)
	}
	if ack, err := Decode([]byte(springAckOfTest)); err != nil || ack.Type != AckType ||
		ack.Event != "org.springframework.cloud.bus.event.test.TestRemoteApplicationEvent" {
		t.Fatalf("ack of a test event: %+v %v", ack, err)
	}
	unknown, err := Decode([]byte(springUnknown))
	if err != nil || unknown.Type != "NotDefinedTestRemoteApplicationEvent" || unknown.IsFor("app:8080:x") {
		t.Fatalf("unknown type: %+v %v", unknown, err)
	}
	noID, err := Decode([]byte(springNoID))
	if err != nil || !uuidForm.MatchString(noID.ID) || !noID.IsFor("bar:1:x") {
		t.Fatalf("no id: %+v %v", noID, err)
	}
}

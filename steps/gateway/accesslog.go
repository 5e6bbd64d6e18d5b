package gateway

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// accessLogWait is how long the access log line of a request may take to appear. Envoy buffers its access-log
// files and writes them every 10 seconds by default (--file-flush-interval-msec, which Envoy Gateway leaves
// alone); the reference every second.
const accessLogWait = 15 * time.Second

// accessLogHas finds the access log line of a request by its x-request-id and checks its fields; the log is
// written asynchronously, so it is read until accessLogWait has passed.
func (gw *gatewaySteps) accessLogHas(i int, table *godog.Table) error {
	a, err := gw.answerNo(i)
	if err != nil {
		return err
	}
	accessLog := gw.area.hooks.AccessLog
	if accessLog == nil {
		return core.Blockedf("the target declares no access log for the gateway (services.gateway.accessLogs)")
	}
	id := a.RequestID
	gw.Vars["request_id"] = id
	var line map[string]any
	what := "the access log line of " + id + " (a gateway that buffers its log must write it within that time: Envoy's --file-flush-interval-msec)"
	err = gw.Until(accessLogWait, what, func() (bool, error) {
		log, err := accessLog()
		if err != nil {
			return false, core.Blockedf("%v", err) // the harness cannot read the files: the gateway is not at fault
		}
		line = findLogLine(log, id)
		return line != nil, nil
	})
	if err != nil {
		return err
	}
	for _, row := range table.Rows[1:] {
		field, want := row.Cells[0].Value, row.Cells[1].Value
		if want, err = gw.Expand(want); err != nil {
			return err
		}
		got, ok := line[field]
		if !ok {
			return fmt.Errorf("the access log line has no field %s\n  line: %s", field, core.MustJSON(line))
		}
		if want != "any" && !logValueIs(got, want) {
			return fmt.Errorf("access log field %s is %s, want %s\n  line: %s", field, core.MustJSON(got), want, core.MustJSON(line))
		}
	}
	return nil
}

// logValueIs compares a field of an access log line with the text a scenario expects: a JSON string with that
// text, or, for a number (the spec does not say whether 429 is written as a number or a string; Envoy writes
// numbers, a text log strings), a JSON number of that value. No other JSON type passes.
func logValueIs(got any, want string) bool {
	switch v := got.(type) {
	case string:
		return v == want
	case float64:
		n, err := strconv.ParseFloat(want, 64)
		return err == nil && n == v
	}
	return false
}

func findLogLine(log, requestID string) map[string]any {
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if !strings.Contains(sc.Text(), requestID) {
			continue
		}
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) == nil && line["x-request-id"] == requestID {
			return line
		}
	}
	return nil
}

package steps

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
)

// Gateway is the gateway under test: its instances, how manifests reach it, and its access log.
type Gateway struct {
	Instances []GatewayInstance
	// Name is the Gateway resource that scenario routes attach to.
	Name string
	// Apply hands a manifest (one or more YAML documents) to the gateway, under a name of the scenario's.
	Apply func(ctx context.Context, name string, manifest []byte) error
	// AccessLog returns the access log of every instance so far, one JSON object a line.
	AccessLog func() (string, error)
	// HarnessHost is the address at which the gateway reaches the upstream the steps run.
	HarnessHost string
	// Manifests holds the templates of features/testdata/gateway.
	Manifests fs.FS
}

// GatewayInstance is one proxy of the gateway: its HTTP and HTTPS listeners.
type GatewayInstance struct {
	HTTP, HTTPS string
}

// gatewayState is a scenario's route and the answers its requests got.
type gatewayState struct {
	answers []*exchange
}

func (w *world) registerGatewaySteps(sc *godog.ScenarioContext) {
	sc.Step(`^an upstream that counts the requests it receives$`, w.upstreamRuns)
	sc.Step(`^the route "([^"]+)" for the host "([^"]+)" leads to the upstream$`, w.routeToUpstream)
	sc.Step(`^the policy "([^"]+)" applies to the route$`, w.applyPolicy)
	sc.Step(`^the current Minute window has at least (\d+) seconds left$`, func(s int) error { return waitForWindowRoom(60, s) })
	sc.Step(`^(\d+) requests? with "([^:"]+): ([^"]+)" (?:are|is) sent to the route$`, func(n int, h, v string) error {
		return w.sendToRoute(n, h, v, "GET", false, false)
	})
	sc.Step(`^(\d+) (GET|HEAD) requests with "([^:"]+): ([^"]+)" are sent to the route over HTTPS$`, func(n int, method, h, v string) error {
		return w.sendToRoute(n, h, v, method, true, false)
	})
	sc.Step(`^(\d+) requests with "([^:"]+): ([^"]+)" are sent to the route, alternately through instances 1 and 2$`, func(n int, h, v string) error {
		return w.sendToRoute(n, h, v, "GET", false, true)
	})
	sc.Step(`^(\d+) requests with "([^:"]+): ([^"]+)" are sent to the route within one Second window$`, func(n int, h, v string) error {
		if err := waitForWindowRoom(1, 0); err != nil {
			return err
		}
		return w.sendToRoute(n, h, v, "GET", false, false)
	})
	sc.Step(`^(\d+) requests without "([^"]+)" are sent to the route$`, func(n int, _ string) error {
		return w.sendToRoute(n, "", "", "GET", false, false)
	})
	sc.Step(`^requests with "([^:"]+): ([^"]+)" are sent to the route until one is answered 429, (\d+) at most$`, w.sendUntilLimited)
	sc.Step(`^the last request is answered 429 with the header "([^"]+)" "([^"]+)"$`, w.lastLimitedWith)
	sc.Step(`^request (\d+) passes with x-ratelimit-remaining "(\d+)"$`, w.requestPasses)
	sc.Step(`^request (\d+) is answered 429$`, func(i int) error { return w.requestLimited(i, nil) })
	sc.Step(`^request (\d+) is answered 429 with the headers:$`, w.requestLimited)
	sc.Step(`^every answer has the header "([^"]+)" "([^"]+)"$`, w.everyAnswerHas)
	sc.Step(`^every request passes without rate-limit headers$`, w.everyPassesUnlimited)
	sc.Step(`^the upstream received (\d+) requests for the route$`, w.upstreamReceived)
	sc.Step(`^the x-ratelimit-reset of request (\d+) is the number of seconds left in its (\d+)-second window$`, w.resetCountsDown)
	sc.Step(`^the x-ratelimit-reset of request (\d+) has elapsed$`, w.waitForReset)
	sc.Step(`^the access log line of request (\d+) has:$`, w.accessLogHas)
}

func (w *world) gateway() (*Gateway, error) {
	g := w.suite.env.Gateway
	if g == nil || len(g.Instances) == 0 {
		return nil, fmt.Errorf("the target declares no gateway")
	}
	return g, nil
}

func (w *world) upstreamRuns() error {
	_, err := w.suite.upstreamServer()
	return err
}

// apply fills a template of features/testdata/gateway with the scenario's names and hands it to the gateway.
func (w *world) apply(ctx context.Context, template, name string) error {
	g, err := w.gateway()
	if err != nil {
		return err
	}
	data, err := fs.ReadFile(g.Manifests, "testdata/gateway/"+template)
	if err != nil {
		return fmt.Errorf("no manifest template %s: %w", template, err)
	}
	manifest, err := w.expand(string(data))
	if err != nil {
		return err
	}
	return g.Apply(ctx, name, []byte(manifest))
}

// routeToUpstream applies the scenario's route and waits until the gateway routes it (a manifest takes
// effect asynchronously): the one wait of the gateway features, bounded to 15 seconds.
func (w *world) routeToUpstream(ctx context.Context, route, host string) error {
	up, err := w.suite.upstreamServer()
	if err != nil {
		return err
	}
	g, err := w.gateway()
	if err != nil {
		return err
	}
	w.vars["gateway"], w.vars["upstream_host"], w.vars["upstream_port"] = g.Name, up.host, strconv.Itoa(up.port)
	if err := w.apply(ctx, "route.yaml", w.vars["route"]+"-route"); err != nil {
		return err
	}
	return w.onEveryInstance(g, "the gateway to route "+w.vars["host"], func(inst GatewayInstance) (bool, error) {
		ex, err := w.routeRequest(inst.HTTP, "GET", "x-tck-probe", randomID())
		return err == nil && ex.status != http.StatusNotFound, nil
	})
}

// onEveryInstance waits, 15 seconds at most, until done holds on every gateway instance: each instance loads a
// manifest on its own, and a scenario may send its requests to any of them.
func (w *world) onEveryInstance(g *Gateway, what string, done func(GatewayInstance) (bool, error)) error {
	for i, inst := range g.Instances {
		err := w.until(15*time.Second, fmt.Sprintf("%s on instance %d (%s)", what, i+1, inst.HTTP), func() (bool, error) {
			return done(inst)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// applyPolicy applies a policy and waits until the route's answers carry rate-limit headers (probing with a
// header value of its own, so no scenario counter moves).
func (w *world) applyPolicy(ctx context.Context, template string) error {
	if err := w.apply(ctx, template, w.vars["route"]+"-policy"); err != nil {
		return err
	}
	g, _ := w.gateway()
	return w.onEveryInstance(g, "the policy to take effect", func(inst GatewayInstance) (bool, error) {
		ex, err := w.routeRequest(inst.HTTP, "GET", "x-user-id", "tck-probe-"+randomID())
		return err == nil && ex.header.Get("x-ratelimit-limit") != "", nil
	})
}

func (w *world) until(limit time.Duration, what string, done func() (bool, error)) error {
	for deadline := time.Now().Add(limit); ; time.Sleep(50 * time.Millisecond) {
		ok, err := done()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return w.failf("waited %s for %s", limit, what)
		}
	}
}

// waitForWindowRoom waits for the next window when fewer than need seconds are left in the current one, so
// that a scenario's requests fall into one window. Windows are aligned to the epoch.
func waitForWindowRoom(window, need int) error {
	now := time.Now()
	left := time.Duration(window)*time.Second - time.Duration(now.UnixNano()%int64(time.Duration(window)*time.Second))
	if need == 0 {
		// A Second window: start just after a boundary, so that a few requests fit in it.
		time.Sleep(left + 20*time.Millisecond)
		return nil
	}
	if left < time.Duration(need)*time.Second {
		time.Sleep(left + 100*time.Millisecond)
	}
	return nil
}

// routeRequest sends one request for the scenario's host to a listener, with a header and a request id.
func (w *world) routeRequest(base, method, header, value string) (*exchange, error) {
	req, err := http.NewRequest(method, base+"/"+w.vars["route"], nil)
	if err != nil {
		return nil, err
	}
	req.Host = w.vars["host"]
	if header != "" {
		req.Header.Set(header, value)
	}
	id := "tck-" + randomID()
	req.Header.Set("x-request-id", id)
	resp, err := gatewayClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s (Host %s): %w", method, req.URL, req.Host, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return &exchange{method: method, url: req.URL.String() + " x-request-id=" + id, status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// gatewayClient trusts the gateway's self-signed certificate: the suite tests rate limits, not PKI.
var gatewayClient = &http.Client{
	Timeout:       10 * time.Second,
	Transport:     &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

func (w *world) sendToRoute(n int, header, value, method string, https, alternate bool) error {
	g, err := w.gateway()
	if err != nil {
		return err
	}
	if value, err = w.expand(value); err != nil {
		return err
	}
	if alternate && len(g.Instances) < 2 {
		return fmt.Errorf("the target declares %d gateway instance(s); this scenario needs 2", len(g.Instances))
	}
	for i := 0; i < n; i++ {
		inst := g.Instances[0]
		if alternate {
			inst = g.Instances[i%2]
		}
		base := inst.HTTP
		if https {
			if base = inst.HTTPS; base == "" {
				return fmt.Errorf("the target declares no HTTPS listener for the gateway")
			}
		}
		ex, err := w.routeRequest(base, method, header, value)
		if err != nil {
			return err
		}
		w.gw.answers = append(w.gw.answers, ex)
		w.last = ex
	}
	return nil
}

func (w *world) sendUntilLimited(header, value string, most int) error {
	for i := 0; i < most; i++ {
		if err := w.sendToRoute(1, header, value, "GET", false, false); err != nil {
			return err
		}
		if w.last.status == http.StatusTooManyRequests {
			return nil
		}
	}
	return w.failf("%d requests passed; the route's limit never answered 429", most)
}

func (w *world) lastLimitedWith(name, want string) error {
	if err := w.requestLimited(len(w.gw.answers), nil); err != nil {
		return err
	}
	if got := w.last.header.Get(name); got != want {
		return w.failf("header %s is %q, want %q", name, got, want)
	}
	return nil
}

func (w *world) answerNo(i int) (*exchange, error) {
	if i < 1 || i > len(w.gw.answers) {
		return nil, fmt.Errorf("request %d was not sent (%d were)", i, len(w.gw.answers))
	}
	w.last = w.gw.answers[i-1]
	return w.last, nil
}

func (w *world) requestPasses(i int, remaining string) error {
	a, err := w.answerNo(i)
	if err != nil {
		return err
	}
	if a.status != http.StatusOK {
		return w.failf("request %d: status %d, want 200 from the upstream", i, a.status)
	}
	if got := a.header.Get("x-ratelimit-remaining"); got != remaining {
		return w.failf("request %d: x-ratelimit-remaining %q, want %q", i, got, remaining)
	}
	return nil
}

func (w *world) requestLimited(i int, table *godog.Table) error {
	a, err := w.answerNo(i)
	if err != nil {
		return err
	}
	if a.status != http.StatusTooManyRequests {
		return w.failf("request %d: status %d, want 429", i, a.status)
	}
	if table == nil {
		return nil
	}
	for _, row := range table.Rows[1:] {
		name, want := row.Cells[0].Value, row.Cells[1].Value
		got := a.header.Get(name)
		if got == "" || (want != "any" && got != want) {
			return w.failf("request %d: header %s is %q, want %q", i, name, got, want)
		}
	}
	return nil
}

func (w *world) everyAnswerHas(name, want string) error {
	for i, a := range w.gw.answers {
		if got := a.header.Get(name); got != want {
			w.last = a
			return w.failf("request %d: header %s is %q, want %q", i+1, name, got, want)
		}
	}
	return nil
}

func (w *world) everyPassesUnlimited() error {
	for i, a := range w.gw.answers {
		w.last = a
		if a.status != http.StatusOK {
			return w.failf("request %d: status %d, want 200", i+1, a.status)
		}
		for _, h := range []string{"x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"} {
			if a.header.Get(h) != "" {
				return w.failf("request %d carries %s: the rule does not apply to it", i+1, h)
			}
		}
	}
	return nil
}

func (w *world) upstreamReceived(n int) error {
	up, err := w.suite.upstreamServer()
	if err != nil {
		return err
	}
	// Probes count too; they carry x-tck-probe or a tck-probe- user, and the upstream leaves them out.
	if got := up.count(w.vars["host"]); got != n {
		return w.failf("the upstream received %d requests for %s, want %d", got, w.vars["host"], n)
	}
	return nil
}

func (w *world) resetCountsDown(i, window int) error {
	a, err := w.answerNo(i)
	if err != nil {
		return err
	}
	reset, err := strconv.Atoi(a.header.Get("x-ratelimit-reset"))
	if err != nil {
		return w.failf("x-ratelimit-reset %q is not an integer", a.header.Get("x-ratelimit-reset"))
	}
	left := window - int(time.Now().Unix()%int64(window))
	if reset < 1 || reset > window || reset < left-1 || reset > left+1 {
		return w.failf("x-ratelimit-reset is %d, want the %d seconds left in the window (±1)", reset, left)
	}
	return nil
}

func (w *world) waitForReset(i int) error {
	a, err := w.answerNo(i)
	if err != nil {
		return err
	}
	reset, err := strconv.Atoi(a.header.Get("x-ratelimit-reset"))
	if err != nil || reset < 0 || reset > 5 {
		return w.failf("x-ratelimit-reset %q: want a few seconds at most", a.header.Get("x-ratelimit-reset"))
	}
	time.Sleep(time.Duration(reset)*time.Second + 50*time.Millisecond)
	return nil
}

// accessLogHas finds the access log line of a request by its x-request-id and checks its fields; the log
// is written asynchronously, so it is read for up to 5 seconds.
func (w *world) accessLogHas(i int, table *godog.Table) error {
	a, err := w.answerNo(i)
	if err != nil {
		return err
	}
	g, _ := w.gateway()
	if g.AccessLog == nil {
		return fmt.Errorf("the target declares no access log for the gateway")
	}
	id := a.url[strings.LastIndex(a.url, "x-request-id=")+len("x-request-id="):]
	w.vars["request_id"] = id
	var line map[string]any
	err = w.until(5*time.Second, "the access log line of "+id, func() (bool, error) {
		log, err := g.AccessLog()
		if err != nil {
			return false, err
		}
		line = findLogLine(log, id)
		return line != nil, nil
	})
	if err != nil {
		return err
	}
	for _, row := range table.Rows[1:] {
		field, want := row.Cells[0].Value, row.Cells[1].Value
		if want, err = w.expand(want); err != nil {
			return err
		}
		got, ok := line[field]
		if !ok || (want != "any" && fmt.Sprint(got) != want) {
			return fmt.Errorf("access log field %s is %v, want %q\n  line: %s", field, got, want, mustJSON(line))
		}
	}
	return nil
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

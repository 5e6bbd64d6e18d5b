package gateway

import (
	"cmp"
	"crypto/tls"
	"fmt"
	"maps"
	"net/http"
	"time"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// listener is the gateway listener requests go to.
type listener int

const (
	plainHTTP listener = iota
	overHTTPS
)

// spread is how requests are spread over the gateway's instances.
type spread int

const (
	firstInstance spread = iota
	alternately          // through instances 1 and 2 in turn
)

// sendOptions say how a scenario's requests reach the gateway.
type sendOptions struct {
	method string
	// route is the route the requests are for; empty: the scenario's own, {route}.
	route    string
	listener listener
	spread   spread
	// headers are sent with every request; turns, when set, are sent one per request in turn instead.
	headers map[string]string
	turns   []map[string]string
}

// routeRequest sends one request for a route's host to a listener, with headers and a request id, and returns
// its answer (also the scenario's last).
func (gw *gatewaySteps) routeRequest(base, method, route string, headers map[string]string) (*core.Exchange, error) {
	host, ok := gw.routes[route]
	if !ok {
		return nil, fmt.Errorf("the scenario applied no route %s", route)
	}
	h := maps.Clone(headers)
	if h == nil {
		h = map[string]string{}
	}
	h["Host"], h["x-request-id"] = host, "tck-"+core.RandomID()
	ex, err := gw.SendWith(gw.client, core.Request{Method: method, URL: base + "/" + route, Header: h})
	if err != nil {
		return nil, fmt.Errorf("%w (Host %s)", err, host)
	}
	return ex, nil
}

// gatewayClient trusts the gateway's self-signed certificate: the suite tests rate limits, not PKI. As every
// client of the harness, it contacts only the run's origins and bounds the answers' headers (core.NewTransport).
func gatewayClient(run *core.Run) *http.Client {
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: core.NewTransport(run.Origins, func(t *http.Transport) {
			t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
		}),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func (gw *gatewaySteps) sendHeaders(n int, text string, o sendOptions) error {
	h, err := gw.HeaderLines(text)
	if err != nil {
		return err
	}
	o.headers = h
	return gw.sendToRoute(n, o)
}

func (gw *gatewaySteps) sendToRoute(n int, o sendOptions) error {
	g, err := gw.gateway()
	if err != nil {
		return err
	}
	if o.route, err = gw.Expand(cmp.Or(o.route, gw.Names.Route)); err != nil {
		return err
	}
	// What the target file does not declare is no fault of the gateway's: the scenario is blocked.
	if o.spread == alternately && len(g.Instances) < 2 {
		return core.Blockedf("the target declares %d gateway instance(s); this scenario needs 2 (services.gateway.instances)", len(g.Instances))
	}
	if o.listener == overHTTPS {
		for i, inst := range g.Instances {
			if inst.HTTPS == "" && (i == 0 || o.spread == alternately) {
				return core.Blockedf("the target declares no HTTPS listener for the gateway (services.gateway.instances[%d].https)", i)
			}
		}
	}
	for i := 0; i < n; i++ {
		inst := g.Instances[0]
		if o.spread == alternately {
			inst = g.Instances[i%2]
		}
		base := inst.HTTP
		if o.listener == overHTTPS {
			base = inst.HTTPS
		}
		headers := o.headers
		if len(o.turns) > 0 {
			headers = o.turns[len(gw.answers)%len(o.turns)]
		}
		ex, err := gw.routeRequest(base, o.method, o.route, headers)
		if err != nil {
			return err
		}
		gw.answers = append(gw.answers, ex)
	}
	return nil
}

// sendUntilLimited sends requests with two header values in turn until one is answered 429.
func (gw *gatewaySteps) sendUntilLimited(first, second string, most int) error {
	var turns []map[string]string
	for _, text := range []string{first, second} {
		h, err := gw.HeaderLines(text)
		if err != nil {
			return err
		}
		turns = append(turns, h)
	}
	for i := 0; i < most; i++ {
		if err := gw.sendToRoute(1, sendOptions{method: "GET", turns: turns}); err != nil {
			return err
		}
		if gw.Last.Status == http.StatusTooManyRequests {
			return nil
		}
	}
	return gw.Failf("%d requests passed; the route's limit never answered 429", most)
}

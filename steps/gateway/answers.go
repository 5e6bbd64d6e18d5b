package gateway

import (
	"cmp"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

func (gw *gatewaySteps) lastLimitedWith(name, want string) error {
	if err := gw.requestLimited(len(gw.answers), nil); err != nil {
		return err
	}
	if got := gw.Last.Header.Get(name); got != want {
		return gw.Failf("header %s is %q, want %q", name, got, want)
	}
	return nil
}

// answerNo is the answer to request i (from 1), made the scenario's last so that a failure shows it.
func (gw *gatewaySteps) answerNo(i int) (*core.Exchange, error) {
	if i < 1 || i > len(gw.answers) {
		return nil, fmt.Errorf("request %d was not sent (%d were)", i, len(gw.answers))
	}
	a := gw.answers[i-1]
	gw.Last = a
	return a, nil
}

// remaining reads x-ratelimit-remaining of answer i as the integer it must be.
func (gw *gatewaySteps) remaining(i int) (int, error) {
	a, err := gw.answerNo(i)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(a.Header.Get("x-ratelimit-remaining"))
	if err != nil || n < 0 {
		return 0, gw.Failf("request %d: x-ratelimit-remaining %q is not a non-negative integer", i, a.Header.Get("x-ratelimit-remaining"))
	}
	return n, nil
}

func (gw *gatewaySteps) passes(i int) error {
	a, err := gw.answerNo(i)
	if err != nil {
		return err
	}
	if a.Status != http.StatusOK {
		return gw.Failf("request %d: status %d, want 200 from the upstream", i, a.Status)
	}
	return nil
}

func (gw *gatewaySteps) requestPasses(i, remaining int) error {
	if err := gw.passes(i); err != nil {
		return err
	}
	got, err := gw.remaining(i)
	if err != nil {
		return err
	}
	if got != remaining {
		return gw.Failf("request %d: x-ratelimit-remaining %d, want %d", i, got, remaining)
	}
	return nil
}

func (gw *gatewaySteps) requestsPass(i, j int) error {
	if err := gw.passes(i); err != nil {
		return err
	}
	return gw.passes(j)
}

// remainingCountsDown checks that every answer before the last passed, each with one request fewer left than
// the answer before it: the requests spent one counter, whatever their headers.
func (gw *gatewaySteps) remainingCountsDown() error {
	prev := -1
	for i := 1; i < len(gw.answers); i++ {
		if err := gw.passes(i); err != nil {
			return err
		}
		n, err := gw.remaining(i)
		if err != nil {
			return err
		}
		if prev >= 0 && n != prev-1 {
			return gw.Failf("request %d: x-ratelimit-remaining %d, want %d: one less than request %d's", i, n, prev-1, i-1)
		}
		prev = n
	}
	return nil
}

func (gw *gatewaySteps) requestLimited(i int, table *godog.Table) error {
	a, err := gw.answerNo(i)
	if err != nil {
		return err
	}
	if a.Status != http.StatusTooManyRequests {
		return gw.Failf("request %d: status %d, want 429", i, a.Status)
	}
	if table == nil {
		return nil
	}
	for _, row := range table.Rows[1:] {
		name, want := row.Cells[0].Value, row.Cells[1].Value
		got := a.Header.Get(name)
		if got == "" || (want != "any" && got != want) {
			return gw.Failf("request %d: header %s is %q, want %q", i, name, got, want)
		}
	}
	return nil
}

// everyAnswerHas checks the header of every answer from request from on.
func (gw *gatewaySteps) everyAnswerHas(from int, name, want string) error {
	if len(gw.answers) < from {
		return fmt.Errorf("request %d was not sent before this step (%d were): there is no answer to check", from, len(gw.answers))
	}
	for i := from; i <= len(gw.answers); i++ {
		a := gw.answers[i-1]
		if got := a.Header.Get(name); got != want {
			gw.Last = a
			return gw.Failf("request %d: header %s is %q, want %q", i, name, got, want)
		}
	}
	return nil
}

// passUnlimited checks that requests from..to passed and carry no rate-limit header: no rule counted them.
func (gw *gatewaySteps) passUnlimited(from, to int) error {
	return gw.answeredWithoutLimit(from, to, http.StatusOK)
}

// answeredWithoutLimit checks that requests from..to were answered status and carry no rate-limit header.
func (gw *gatewaySteps) answeredWithoutLimit(from, to, status int) error {
	if to < from {
		return fmt.Errorf("no request was sent before this step (requests %d to %d): there is no answer to check", from, to)
	}
	for i := from; i <= to; i++ {
		a, err := gw.answerNo(i)
		if err != nil {
			return err
		}
		if a.Status != status {
			return gw.Failf("request %d: status %d, want %d", i, a.Status, status)
		}
		for _, h := range []string{"x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"} {
			if v := a.Header.Get(h); v != "" {
				return gw.Failf("request %d carries %s: %s; no rule applies to it", i, h, v)
			}
		}
	}
	return nil
}

// answeredInTurn checks requests 1 to n against two lists of n, the statuses (200 from the upstream, or 429)
// and the x-ratelimit-remaining of each: a row of a boundary table, request by request.
func (gw *gatewaySteps) answeredInTurn(n int, statuses, remainings string) error {
	st, rem := splitInts(statuses), splitInts(remainings)
	if len(st) != n || len(rem) != n {
		return fmt.Errorf("the step lists %d statuses and %d remainings for %d requests", len(st), len(rem), n)
	}
	if len(gw.answers) != n {
		return fmt.Errorf("%d requests were sent, the step judges %d", len(gw.answers), n)
	}
	for i := 1; i <= n; i++ {
		a, err := gw.answerNo(i)
		if err != nil {
			return err
		}
		if a.Status != st[i-1] {
			return gw.Failf("request %d: status %d, want %d", i, a.Status, st[i-1])
		}
		got, err := gw.remaining(i)
		if err != nil {
			return err
		}
		if got != rem[i-1] {
			return gw.Failf("request %d: x-ratelimit-remaining %d, want %d", i, got, rem[i-1])
		}
	}
	return nil
}

// splitInts reads "200, 200, 429"; a part that is no number is -1, which no status or remaining equals.
func splitInts(list string) []int {
	var out []int
	for part := range strings.SplitSeq(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			n = -1
		}
		out = append(out, n)
	}
	return out
}

func (gw *gatewaySteps) requestHas(i int, name, want string) error {
	a, err := gw.answerNo(i)
	if err != nil {
		return err
	}
	if got := a.Header.Get(name); got != want {
		return gw.Failf("request %d: header %s is %q, want %q", i, name, got, want)
	}
	return nil
}

func (gw *gatewaySteps) upstreamReceived(n int, route string) error {
	route, err := gw.Expand(cmp.Or(route, gw.Names.Route))
	if err != nil {
		return err
	}
	up, err := gw.area.upstreamServer()
	if err != nil {
		return err
	}
	// Probes carry x-tck-probe, and the upstream leaves them out.
	host := gw.routes[route]
	if got := up.count(host); got != n {
		return gw.Failf("the upstream received %d requests for %s, want %d", got, host, n)
	}
	return nil
}

func (gw *gatewaySteps) upstreamReceivedPassed() error {
	passed := 0
	for _, a := range gw.answers {
		if a.Status == http.StatusOK {
			passed++
		}
	}
	return gw.upstreamReceived(passed, "")
}

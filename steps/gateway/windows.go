package gateway

import (
	"strconv"
	"time"
)

// windowPosition is how far into its epoch-aligned window of length win the moment t is, and how much is left.
func windowPosition(t time.Time, win time.Duration) (elapsed, left time.Duration) {
	elapsed = time.Duration(t.UnixNano() % int64(win))
	return elapsed, win - elapsed
}

// waitForRoom waits until the current window has run at least ran and has at least left to go.
func (gw *gatewaySteps) waitForRoom(win, ran, left time.Duration) error {
	elapsed, remaining := windowPosition(time.Now(), win)
	switch {
	case remaining < left:
		return gw.Sleep(remaining + ran)
	case elapsed < ran:
		return gw.Sleep(ran - elapsed)
	}
	return nil
}

// waitForWindowStart waits until just after the next boundary of a short window, so that a few requests fit.
func (gw *gatewaySteps) waitForWindowStart(win time.Duration) error {
	_, left := windowPosition(time.Now(), win)
	return gw.Sleep(left + 20*time.Millisecond)
}

// resetCountsDown checks x-ratelimit-reset against the seconds left in the request's window, at the moment the
// request was sent and at the moment it was answered (the gateway's moment lies between), one second either
// way for clocks and rounding.
func (gw *gatewaySteps) resetCountsDown(i, window int) error {
	a, err := gw.answerNo(i)
	if err != nil {
		return err
	}
	reset, err := strconv.Atoi(a.Header.Get("x-ratelimit-reset"))
	if err != nil {
		return gw.Failf("x-ratelimit-reset %q is not an integer", a.Header.Get("x-ratelimit-reset"))
	}
	win := int64(window)
	most := win - a.Sent.Unix()%win + 1
	least := win - a.Received.Unix()%win - 1
	if least > most { // the window ended while the request was under way
		least = 0
	}
	if int64(reset) < max(least, 1) || int64(reset) > min(most, win) {
		return gw.Failf("x-ratelimit-reset is %d, want the seconds left in the %d-second window: %d to %d", reset, window,
			max(least, 1), min(most, win))
	}
	return nil
}

func (gw *gatewaySteps) waitForReset(i int) error {
	a, err := gw.answerNo(i)
	if err != nil {
		return err
	}
	reset, err := strconv.Atoi(a.Header.Get("x-ratelimit-reset"))
	if err != nil || reset < 0 || reset > 5 {
		return gw.Failf("x-ratelimit-reset %q: want a few seconds at most", a.Header.Get("x-ratelimit-reset"))
	}
	return gw.Sleep(time.Duration(reset)*time.Second + 50*time.Millisecond)
}

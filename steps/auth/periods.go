package auth

import (
	"cmp"
	"fmt"
	"time"

	"github.com/cucumber/godog"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// The period steps walk the lives that end with time: a lockout after its period, a failure after the counting
// window, a code after its lifetime (UAA's lockoutPeriodSeconds and countFailuresWithinSeconds, and its
// codes' 300 s). They wait only as long as the period the target declares (at most target.MaxWalkedSeconds;
// the capabilities auth.lockout-period, auth.lockout-window and auth.code-lifetime need the declaration), and
// measure from the client's side: a request's answer is read after the server handled it, and it was sent
// before, so waiting from the answer waits at least the period at the server, and a check made from the
// sending time holds at the server too. A step whose timing cannot tell what the scenario is about (the
// sign-ins took longer than the period they must fit in) blocks the scenario instead of passing it.

// afterMargin is how much longer than a period the steps wait before they expect it to be over: the server's
// clock may count in whole milliseconds or seconds, and compare with < where the steps compare with <=.
const afterMargin = 300 * time.Millisecond

// UAA's lockoutPeriodSeconds and countFailuresWithinSeconds, for a server that declares none.
const (
	defaultLockoutPeriodSeconds       = 300
	defaultCountFailuresWithinSeconds = 3600
)

func (ac *accountSteps) registerPeriods(sc *godog.ScenarioContext) {
	sc.Step(`^"([^"]+)" fails to sign in once with a wrong password$`, func(user string) error {
		return ac.failTimes(user, "1")
	})
	sc.Step(`^the lockout period has passed since the last failed sign-in$`, func() error {
		return ac.sinceLastFailure(ac.lockoutPeriod)
	})
	sc.Step(`^the counting window has passed since the last failed sign-in$`, func() error {
		return ac.sinceLastFailure(ac.countingWindow)
	})
	sc.Step(`^the last sign-in came within the lockout period$`, ac.withinLockoutPeriod)
	sc.Step(`^the failed sign-ins that locked "([^"]+)" were all within the counting window then$`, ac.withinCountingWindow)
	sc.Step(`^the code's lifetime has passed$`, ac.flow.untilCodeExpired)
	sc.Step(`^the error description is UAA's for an expired code$`, ac.flow.expiredCodeDescription)
}

// declared is a period the target declares, in seconds, which the scenario needs short enough to wait out.
func (ac *accountSteps) declared(field string, seconds int) (time.Duration, error) {
	if !target.Walkable(seconds) {
		return 0, fmt.Errorf("services.authServer.%s is %d: the scenario waits out a period of 1 to %d seconds the "+
			"target declares (its capability should have kept it from running)", field, seconds, target.MaxWalkedSeconds)
	}
	return time.Duration(seconds) * time.Second, nil
}

func (ac *accountSteps) lockoutPeriod() (time.Duration, error) {
	return ac.declared("lockoutPeriodSeconds", ac.flow.srv.services().AuthServer.LockoutPeriodSeconds)
}

func (ac *accountSteps) countingWindow() (time.Duration, error) {
	return ac.declared("countFailuresWithinSeconds", ac.flow.srv.services().AuthServer.CountFailuresWithinSeconds)
}

// lastFailure is the scenario's latest sign-in with a wrong password.
func (ac *accountSteps) lastFailure() (signInAnswer, error) {
	if len(ac.failed) == 0 {
		return signInAnswer{}, core.Blockedf("no sign-in of this scenario failed: there is no failure to count from")
	}
	return ac.failed[len(ac.failed)-1], nil
}

// sinceLastFailure waits until the period (and afterMargin) has passed since the answer to the latest failed
// sign-in.
func (ac *accountSteps) sinceLastFailure(period func() (time.Duration, error)) error {
	p, err := period()
	if err != nil {
		return err
	}
	last, err := ac.lastFailure()
	if err != nil {
		return err
	}
	return ac.Sleep(time.Until(last.answered.Add(p + afterMargin)))
}

// lastSignIn is the scenario's latest sign-in, whatever its password.
func (ac *accountSteps) lastSignIn() (signInAnswer, error) {
	if len(ac.flow.signIns) == 0 {
		return signInAnswer{}, core.Blockedf("no sign-in was made")
	}
	return ac.flow.signIns[len(ac.flow.signIns)-1], nil
}

// withinLockoutPeriod holds when the latest sign-in reached the server before the lockout period (the declared
// one, else UAA's 300 s) had passed since the latest failure: its answer was read before the failure was sent
// plus the period. Otherwise what it was answered says nothing about a lockout, and the scenario is blocked.
func (ac *accountSteps) withinLockoutPeriod() error {
	p := time.Duration(cmp.Or(ac.flow.srv.services().AuthServer.LockoutPeriodSeconds, defaultLockoutPeriodSeconds)) * time.Second
	last, err := ac.lastFailure()
	if err != nil {
		return err
	}
	attempt, err := ac.lastSignIn()
	if err != nil {
		return err
	}
	if took := attempt.answered.Sub(last.sent); took >= p {
		return core.Blockedf("the sign-in meant to come within the lockout period of %s was answered %s after the "+
			"latest failed one was sent: the server may have seen it after the period (a slow server or machine; "+
			"a longer lockoutPeriodSeconds leaves more time)", p, took.Round(time.Millisecond))
	}
	return nil
}

// withinCountingWindow holds when the failures that locked the user (the latest lockoutAfterFailures of them)
// were still within the counting window (the declared one, else UAA's 3600 s) when the latest sign-in reached
// the server: only then does a refusal show a lockout, and a success after the lockout period the end of the
// period rather than of the window.
func (ac *accountSteps) withinCountingWindow(user string) error {
	user, err := ac.Expand(user)
	if err != nil {
		return err
	}
	as := ac.flow.srv.services().AuthServer
	n := cmp.Or(as.LockoutAfterFailures, target.DefaultLockoutAfterFailures)
	window := time.Duration(cmp.Or(as.CountFailuresWithinSeconds, defaultCountFailuresWithinSeconds)) * time.Second
	if len(ac.failed) < n {
		return core.Blockedf("%s failed %d times, fewer than the %d that lock an account", user, len(ac.failed), n)
	}
	attempt, err := ac.lastSignIn()
	if err != nil {
		return err
	}
	if took := attempt.answered.Sub(ac.failed[len(ac.failed)-n].sent); took >= window {
		return core.Blockedf("the last sign-in was answered %s after the first of the failures that locked %s was "+
			"sent, not within the counting window of %s: those failures may no longer have counted (declare a "+
			"countFailuresWithinSeconds longer than the lockout period and the sign-ins)", took.Round(time.Millisecond),
			user, window)
	}
	return nil
}

// untilCodeExpired waits until the declared lifetime of a code has passed since the redirect that brought it.
func (fl *flowSteps) untilCodeExpired() error {
	if fl.code == "" {
		return core.Blockedf("no code to wait for: no redirect of this scenario brought the client a code")
	}
	seconds := fl.srv.services().AuthServer.CodeLifetimeSeconds
	if !target.Walkable(seconds) {
		return fmt.Errorf("services.authServer.codeLifetimeSeconds is %d: the scenario waits out a lifetime of 1 to "+
			"%d seconds the target declares", seconds, target.MaxWalkedSeconds)
	}
	return fl.Sleep(time.Until(fl.codeAt.Add(time.Duration(seconds)*time.Second + afterMargin)))
}

// expiredCodeDescription checks UAA's description of an expired code (UaaTokenStore.consumeAuthorizationCode):
// "Authorization code expired: <code>", or "Invalid authorization code: <code>" when its periodic clean-up
// deleted the code first.
func (fl *flowSteps) expiredCodeDescription() error {
	obj, err := fl.JSONObject()
	if err != nil {
		return err
	}
	got, _ := obj["error_description"].(string)
	if got == "Authorization code expired: "+fl.code || got == "Invalid authorization code: "+fl.code {
		return nil
	}
	return fl.Failf("error_description is %q, want UAA's %q (or %q once UAA's clean-up removed the code)", got,
		"Authorization code expired: <code>", "Invalid authorization code: <code>")
}

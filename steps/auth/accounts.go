package auth

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
	"golang.org/x/net/html"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// The account steps check how a server protects its users' accounts: a lockout after failed sign-ins in a row
// (UAA's lockoutPolicy) that does not tell a right password from a wrong one, nor a user from an unknown name,
// and a password policy at the provisioning API (UAA's passwordPolicy, refused with invalid_password).

// accountSteps compare what the sign-ins of a scenario were answered (flowSteps.signIns).
type accountSteps struct {
	*core.Scenario
	flow *flowSteps
	ids  *identitySteps
	// failed are the sign-ins with a wrong password of the scenario, in order.
	failed []signInAnswer
}

// signInAnswer is what a sign-in was answered, as a person sees it: the status, whether the sign-in form came
// back, and the page's visible text with the typed user name taken out (a page may say "hello, <name>").
type signInAnswer struct {
	user   string
	status int
	form   bool
	text   string
	// sent and answered are when the sign-in left and when its answer was read: the server counted it in
	// between (periods.go).
	sent, answered time.Time
}

// same tells whether two sign-ins, of one user or of two, were answered alike.
func (a signInAnswer) same(b signInAnswer) bool {
	return a.status == b.status && a.form == b.form && a.text == b.text
}

func (ac *accountSteps) register(sc *godog.ScenarioContext) {
	sc.Step(`^"([^"]+)" fails to sign in (\S+) times with a wrong password$`, ac.failTimes)
	sc.Step(`^"([^"]+)" and "([^"]+)" each fail to sign in (\S+) times and once more with a wrong password$`, ac.bothFail)
	sc.Step(`^the last two sign-in pages say the same$`, ac.lastTwoAlike)
	sc.Step(`^on that page "([^"]+)" still signs in with the password "([^"]+)"$`, ac.stillSignsIn)
	sc.Step(`^every attempt of "([^"]+)" was answered as the same attempt of "([^"]+)"$`, ac.answeredAlike)
	sc.Step(`^the administrator creates the user "([^"]+)" with (an empty password|a password of (\d+) characters)$`, ac.createWithPassword)
	sc.Step(`^the provisioning API has no user named "([^"]+)"$`, ac.noUserNamed)
	sc.Step(`^the right password signs "([^"]+)" in$`, ac.flow.signedIn)
	sc.Step(`^"([^"]+)" has failed to sign in (\S+) times and then signed in to "([^"]+)"$`, ac.signedInBefore)
	ac.registerPeriods(sc)
}

// maxAttempts bounds the sign-ins one step makes (target.AuthServer.LockoutAfterFailures is at most 100).
const maxAttempts = 101

// count reads a number of attempts, a placeholder such as {lockout_failures} included, and one more or one
// fewer ({lockout_failures}-1, {lockout_failures}+1) for the rows of a boundary table. One fewer than one
// failure is none.
func (ac *accountSteps) count(raw string) (int, error) {
	s, err := ac.Expand(raw)
	if err != nil {
		return 0, err
	}
	low, delta := 0, 0
	if base, ok := strings.CutSuffix(s, "-1"); ok {
		s, low, delta = base, 0, -1
	} else if base, ok := strings.CutSuffix(s, "+1"); ok {
		s, delta = base, 1
	}
	n, err := strconv.Atoi(s)
	if n += delta; err != nil || n < low || n > maxAttempts {
		return 0, fmt.Errorf("%q is not a number of sign-ins from %d to %d", raw, low, maxAttempts)
	}
	return n, nil
}

// signIn signs in on the page the browser shows; flowSteps.signIn keeps what it was answered.
func (ac *accountSteps) signIn(user, password string) error { return ac.flow.signIn(user, password) }

// attemptsOf are the answers to the sign-ins of one user name, in order.
func (ac *accountSteps) attemptsOf(user string) []signInAnswer {
	var out []signInAnswer
	for _, a := range ac.flow.signIns {
		if a.user == user {
			out = append(out, a)
		}
	}
	return out
}

// wrongPassword is a password no user of the scenario has.
func wrongPassword() string { return "wrong-" + core.RandomID() }

// failTimes signs in n times with a wrong password, each on the sign-in page the last one brought back:
// spec 3.1 shows the sign-in page again after a failed sign-in.
func (ac *accountSteps) failTimes(user, times string) error {
	n, err := ac.count(times)
	if err != nil {
		return err
	}
	user, err = ac.Expand(user)
	if err != nil {
		return err
	}
	for i := 1; i <= n; i++ {
		if err := ac.signIn(user, wrongPassword()); err != nil {
			return err
		}
		a := ac.flow.signIns[len(ac.flow.signIns)-1]
		if !a.form {
			return ac.Failf("failed sign-in %d of %d for %s: the answer (%d) has no sign-in form; spec 3.1 shows the "+
				"sign-in page again after a wrong password", i, n, user, a.status)
		}
		ac.failed = append(ac.failed, a)
	}
	return nil
}

// signedInBefore is the precondition of a count's life: in a browser session of its own, the user asked for a
// code for the client, failed n times and then signed in with the right password. The scenario's own browser
// session starts afresh after it.
func (ac *accountSteps) signedInBefore(user, times, client string) error {
	ac.flow.browser = nil
	defer func() { ac.flow.browser = nil }()
	if err := ac.flow.askForCode(client, "openid", ""); err != nil {
		return err
	}
	if err := ac.failTimes(user, times); err != nil {
		return err
	}
	name, err := ac.Expand(user)
	if err != nil {
		return err
	}
	if err := ac.signIn(name, ac.flow.passwordOf(name)); err != nil {
		return err
	}
	if err := ac.flow.signedIn(name); err != nil {
		return core.Blockedf("the earlier sign-in of %s after %s failed ones was refused: %v", name, times, err)
	}
	return nil
}

// bothFail makes n+1 failed sign-ins for each of two user names, in turn, each name in a browser of its own
// that asked for a code as the scenario's did: the two names see the same attempts at the same pace.
func (ac *accountSteps) bothFail(a, b, times string) error {
	n, err := ac.count(times)
	if err != nil {
		return err
	}
	a, b, err = ac.Expand2(a, b)
	if err != nil {
		return err
	}
	if ac.flow.client == "" {
		return core.Blockedf("no authorization request was made before the sign-ins")
	}
	browsers := map[string]*browser{}
	for _, name := range []string{a, b} {
		ac.flow.browser = nil
		if err := ac.flow.askForCode(ac.flow.client, ac.flow.asked, ac.flow.redirect); err != nil {
			return err
		}
		browsers[name] = ac.flow.browser
	}
	for i := 0; i <= n; i++ {
		for _, name := range []string{a, b} {
			ac.flow.browser = browsers[name]
			if err := ac.signIn(name, wrongPassword()); err != nil {
				return err
			}
		}
	}
	return nil
}

// stillSignsIn signs another user in on the page the refused sign-ins brought back, which must let them in: a
// page that takes no right password after failed ones (a form good once, a browser session refused after a
// failure) refuses the locked user's right password for a reason of its own, so that refusal shows no lockout,
// and the scenario is blocked.
func (ac *accountSteps) stillSignsIn(user, password string) error {
	user, password, err := ac.Expand2(user, password)
	if err != nil {
		return err
	}
	if len(ac.flow.signIns) == 0 {
		return core.Blockedf("no sign-in was made before: there is no page that refused one")
	}
	if err := ac.signIn(user, password); err != nil {
		return err
	}
	if a := ac.flow.signIns[len(ac.flow.signIns)-1]; a.form {
		return core.Blockedf("the sign-in page that refused the locked user's right password refused %s's right "+
			"password too (status %d, the sign-in form again): it lets no one in after failed sign-ins, so its "+
			"refusals show no lockout", user, a.status)
	}
	return nil
}

func (ac *accountSteps) lastTwoAlike() error {
	all := ac.flow.signIns
	if len(all) < 2 {
		return core.Blockedf("fewer than two sign-ins were made")
	}
	x, y := all[len(all)-2], all[len(all)-1]
	if !x.same(y) {
		return ac.Failf("the last two sign-ins were answered differently, which tells which password was right:\n"+
			"  first:  %s\n  second: %s", x, y)
	}
	return nil
}

func (ac *accountSteps) answeredAlike(a, b string) error {
	a, b, err := ac.Expand2(a, b)
	if err != nil {
		return err
	}
	as, bs := ac.attemptsOf(a), ac.attemptsOf(b)
	if len(as) == 0 || len(as) != len(bs) {
		return core.Blockedf("%s made %d sign-ins and %s %d; the step compares as many of each", a, len(as), b, len(bs))
	}
	for i := range as {
		if !as[i].same(bs[i]) {
			return ac.Failf("sign-in %d of %d: %s was answered differently from %s, which tells a user from an unknown name:\n"+
				"  %s: %s\n  %s: %s", i+1, len(as), a, b, a, as[i], b, bs[i])
		}
	}
	return nil
}

func (a signInAnswer) String() string {
	return fmt.Sprintf("%d, sign-in form %t, text %q", a.status, a.form, short(a.text, 300))
}

// short is s cut to at most n characters.
func short(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "..."
	}
	return s
}

// visibleText is the text a person reads on the page, spaces collapsed, with every occurrence of the typed
// user name replaced by <user>.
func visibleText(doc *html.Node, user string) string {
	var b strings.Builder
	var visit func(*html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style" || n.Data == "head") {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteString(" ")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(doc)
	text := strings.Join(strings.Fields(b.String()), " ")
	if user != "" {
		text = strings.ReplaceAll(text, user, "<user>")
	}
	return text
}

// createWithPassword asks the provisioning API to create a user whose password breaks UAA's default policy:
// empty (the minimum length is at least 1) or longer than its maximum of 255 characters.
func (ac *accountSteps) createWithPassword(name, _, length string) error {
	name, err := ac.Expand(name)
	if err != nil {
		return err
	}
	password := ""
	if length != "" {
		n, err := strconv.Atoi(length)
		if err != nil || n > 4096 {
			return fmt.Errorf("a password of %s characters: give a length up to 4096", length)
		}
		password = strings.Repeat("Aa1!", n/4+1)[:n]
	}
	return ac.ids.asAdmin(http.MethodPost, "/Users", userRecord(name, password))
}

// noUserNamed looks the user up by name at the provisioning API (SCIM's filter) and expects none.
func (ac *accountSteps) noUserNamed(name string) error {
	name, err := ac.Expand(name)
	if err != nil {
		return err
	}
	q := url.Values{"filter": {fmt.Sprintf("userName eq %q", name)}}
	if err := ac.ids.asAdmin(http.MethodGet, "/Users?"+q.Encode(), nil); err != nil {
		return err
	}
	if err := ac.AnswerIs(http.StatusOK); err != nil {
		return err
	}
	obj, err := ac.JSONObject()
	if err != nil {
		return err
	}
	resources, err := ac.ids.scimResources(obj)
	if err != nil {
		return err
	}
	if len(resources) > 0 {
		return ac.Failf("the provisioning API has a user named %s after refusing to create it: %s", name,
			short(core.MustJSON(resources[0]), 300))
	}
	return nil
}

package auth

import (
	"fmt"
	"net/http"

	"github.com/fortune-tck/fortune-tck/steps/core"
)

// flowError is what went wrong at one step of the authorization code flow: preflight reports it as the one
// error of the run, a scenario as its cause.
type flowError struct {
	step string // the authorization request, the sign-in, the consent page, ...
	err  error
}

func (e *flowError) Error() string { return e.step + ": " + e.err.Error() }
func (e *flowError) Unwrap() error { return e.err }

// clientFault marks a failure of the authorization request that points at the client: the server refused the
// request itself (a 4xx, or the browser sent back with an error). Any other failure there (a 5xx, a page
// without a sign-in form) is the server's, whichever client asked.
type clientFault struct{ error }

func (c clientFault) Unwrap() error { return c.error }

// walkToCode takes the browser through the flow for a user: the authorization request, the sign-in form, the
// consent page when the server shows one, and the redirect back to the client with a code. It returns whether
// a consent page was approved; each error names the step that went wrong.
func (fl *flowSteps) walkToCode(user, password, client, scope string) (consented bool, err error) {
	if err := fl.askForCode(client, scope, ""); err != nil {
		return false, &flowError{"the authorization request", err}
	}
	if err := fl.atSignInPage(); err != nil {
		return false, &flowError{"the authorization request", err}
	}
	if err := fl.signIn(user, password); err != nil {
		return false, &flowError{"the sign-in", err}
	}
	if err := fl.signedIn(user); err != nil {
		return false, &flowError{"the sign-in", err}
	}
	if fl.browser.redirect == nil {
		if err := fl.approve(); err != nil {
			return false, &flowError{"the consent page", err}
		}
		consented = true
	}
	if err := fl.sentBackWithCode(); err != nil {
		return consented, &flowError{"the redirect back to the client", err}
	}
	return consented, nil
}

// exchangeAsRegistered exchanges the flow's code as the client is registered to authenticate and requires the
// tokens: what every precondition that holds a token starts from.
func (fl *flowSteps) exchangeAsRegistered() error {
	if err := fl.exchangeCode(codeExchange{auth: asRegistered}); err != nil {
		return &flowError{"the code exchange", err}
	}
	if fl.Last.Status != http.StatusOK {
		return &flowError{"the code exchange", fl.Failf("the token endpoint answered %d, want 200 (are the "+
			"client's secret and authMethod right?)", fl.Last.Status)}
	}
	return nil
}

// atSignInPage checks that the authorization request led to a sign-in form, and says what came instead.
func (fl *flowSteps) atSignInPage() error {
	b := fl.browser
	if r := b.redirect; r != nil {
		if q := r.Query(); q.Get("error") != "" {
			return clientFault{fmt.Errorf("the server sent the browser back to the client with error=%s (%s) instead of a "+
				"sign-in page: is the client registered with this redirect URI, and allowed the scope %q?",
				core.Printable(q.Get("error")), core.Printable(q.Get("error_description")), fl.asked)}
		}
		return fmt.Errorf("the server sent the browser back to the client without a sign-in page, so it signs "+
			"no user in: %s", r)
	}
	switch st := b.page.Status; {
	case st >= 500:
		return fl.Failf("the authorization endpoint answered %d: the server failed before it showed a sign-in page "+
			"(its log says why)", st)
	case st >= 400:
		return clientFault{fl.Failf("the authorization endpoint answered %d (an unknown client id, or a redirect URI the "+
			"server did not register for it, is answered so)", st)}
	}
	if _, err := fl.signInForm(); err != nil {
		return fmt.Errorf("%w: the server shows no page the suite can sign a user in with (if its sign-in page is "+
			"one the suite does not find by meaning, describe it in services.authServer.pages)", err)
	}
	return nil
}

// signedIn checks that the sign-in was accepted: the browser left the sign-in form, and no server error came.
func (fl *flowSteps) signedIn(user string) error {
	b := fl.browser
	if b.redirect != nil {
		return nil
	}
	if b.page.Status >= http.StatusInternalServerError {
		return fl.Failf("after the sign-in of %s, the server answered %d", user, b.page.Status)
	}
	p, err := fl.page()
	if err != nil {
		return err
	}
	if f, _, _ := p.signInForm(); f != nil {
		return fl.Failf("the server refused the password of %s (the sign-in page came back)", user)
	}
	return nil
}

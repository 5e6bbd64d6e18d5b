package auth

import (
	"fmt"
	"net/url"
	"slices"

	"golang.org/x/net/html"

	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// Session is what the auth area of one scenario shares with the other areas, as typed values: the tokens the
// scenario's user holds, who that user is, and the browser of the flow, which a client application's own flow
// (the greeting client's) drives through the authorization server's pages.
type Session struct {
	flow *flowSteps
}

// Identity is who the scenario's user is, as a token names it.
type Identity struct {
	User, UserID string
	// Client is the scenario's web client; Issuer the authorization server's iss.
	Client, Issuer string
}

// AccessToken is the access token the scenario's user holds; a scenario that holds none is blocked.
func (s *Session) AccessToken() (string, error) { return s.flow.accessToken() }

// Carries tells whether the access token the scenario's user holds was granted the scope: the scope of the
// token response that brought it, or the scope asked for where the response leaves it out (RFC 6749 5.1).
// False when no token is held, or the response's scope is no string.
func (s *Session) Carries(scope string) bool {
	fl := s.flow
	if fl.access == "" {
		return false
	}
	switch v := fl.tokens["scope"].(type) {
	case nil:
		return slices.Contains(core.Words(fl.asked), scope)
	case string:
		return slices.Contains(core.Words(v), scope)
	}
	return false
}

// Identity is the scenario's user, its web client and the server that issues its tokens.
func (s *Session) Identity() Identity {
	fl := s.flow
	return Identity{User: fl.Vars["user"], UserID: fl.Vars["user_id"], Client: fl.Vars["client"], Issuer: fl.srv.endpoints.Issuer}
}

// ObtainToken walks the flow for the user in a new browser and exchanges the code as the client is registered
// to authenticate: the access token it returns is then the one the user holds.
func (s *Session) ObtainToken(user, client, scope string) (string, error) {
	if _, err := s.flow.walk(user, client, scope, false); err != nil {
		return "", err
	}
	if err := s.flow.exchangeAsRegistered(); err != nil {
		return "", err
	}
	return s.flow.accessToken()
}

// SignInAndApproveIfAsked fills the sign-in form of the page the browser shows, and approves the consent page
// when the server shows one.
func (s *Session) SignInAndApproveIfAsked(user, password string) error {
	fl := s.flow
	if err := fl.signIn(user, password); err != nil {
		return err
	}
	if fl.browser.redirect != nil {
		return nil
	}
	if p, err := fl.page(); err == nil {
		if c, _ := p.consentPage(); c == nil {
			return nil // the client's own page: the server asked nothing
		}
	}
	return fl.approve()
}

// NewBrowser gives the flow a new browser, without cookies.
func (s *Session) NewBrowser() error {
	s.flow.browser = nil
	_, err := s.flow.browserOf()
	return err
}

// Browse opens a URL in the flow's browser, following redirects; the page it ends on is the scenario's last
// answer.
func (s *Session) Browse(rawURL, accept string) error {
	if s.flow.browser == nil {
		return fmt.Errorf("no browser was opened in this scenario")
	}
	var err error
	s.flow.Last, err = s.flow.browser.get(rawURL, accept)
	return err
}

// PageURL is the address of the page the browser shows; nil when it shows none.
func (s *Session) PageURL() *url.URL {
	if s.flow.browser == nil {
		return nil
	}
	return s.flow.browser.pageURL
}

// ApproveStoppingAt approves the consent page the browser shows, keeping (not following) the redirect into
// the origin of stop, and returns that redirect; nil when the server sent the browser nowhere there.
func (s *Session) ApproveStoppingAt(stop string) (*url.URL, error) {
	b := s.flow.browser
	if b == nil {
		return nil, fmt.Errorf("no browser was opened in this scenario")
	}
	stops := b.stops
	defer func() { b.stops = stops }()
	b.stopAt(stop)
	if err := s.flow.approve(); err != nil {
		return nil, err
	}
	return b.redirect, nil
}

// Page is a page of the authorization server a real browser shows, read with the same rules by meaning (and
// the target's page rules) as the flow's own pages.
type Page struct{ p *page }

// ParsePage reads the HTML of a page at an address with the target's page rules.
func ParsePage(doc string, at *url.URL, rules []target.PageRule) (*Page, error) {
	b := &browser{page: &core.Exchange{Body: []byte(doc)}, pageURL: at}
	p, err := b.parse(rules)
	if err != nil {
		return nil, err
	}
	return &Page{p}, nil
}

// SignInFields are the sign-in form's user name and password fields; nil, nil when the page has no sign-in
// form.
func (p *Page) SignInFields() (user, password *html.Node, err error) {
	f, pw, err := p.p.signInForm()
	if err != nil || f == nil {
		return nil, nil, err
	}
	return p.p.userField(f), pw, nil
}

// Consent is the approve control of a consent page and the scope boxes it leaves unticked; ok is false when the
// page is no consent page.
func (p *Page) Consent() (approve *html.Node, unticked []*html.Node, ok bool) {
	c, _ := p.p.consentPage()
	if c == nil {
		return nil, nil, false
	}
	for _, cb := range c.checkboxes {
		if !hasAttr(cb, "checked") {
			unticked = append(unticked, cb)
		}
	}
	return c.approve, unticked, true
}

// XPath is an XPath expression for exactly n, by position from the root, so that a real browser can click the
// control the rules found in the same page.
func XPath(n *html.Node) string { return xpath(n) }

package auth

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/net/html"

	"github.com/fortune-tck/fortune-tck/target"
)

// Sign-in and consent pages are found by meaning, not by the markup of one implementation:
//
//   - the sign-in form is the form with a password field; the user name goes into its text or e-mail field;
//   - the consent page is a page of the authorization server, after sign-in and without a password field, with
//     an approve control: a submit button (or input) whose text, value, name or id says allow, approve,
//     authorize, accept, consent, continue, grant, confirm or yes; its deny control says deny, cancel, reject,
//     decline, refuse, abort or no, and may be a button of the same form, of another form, or a link;
//   - the scopes it asks for are its checkboxes (whose value or name holds the scope name) or, where it has
//     none, words of its text.
//
// A page rule of the target (services.authServer.pages) names the controls of pages whose address it matches,
// for markup these rules do not understand.

var (
	approveWords = wordSet("allow approve authorize authorise accept consent continue grant confirm yes")
	denyWords    = wordSet("deny cancel reject decline refuse abort no")
	wordSplit    = regexp.MustCompile(`[^a-z]+`)
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// form is an HTML form as a browser would submit it.
type form struct {
	node           *html.Node
	action, method string
	fields         url.Values // hidden fields and fields with a value, as the page fills them
	inputs         []*html.Node
}

// page is the parsed page the browser shows.
type page struct {
	doc   *html.Node
	url   *url.URL
	rule  *target.PageRule // the target's description of this page, if one matches
	forms []*html.Node
}

func (b *browser) parse(rules []target.PageRule) (*page, error) {
	if b.page == nil {
		return nil, fmt.Errorf("no page is open")
	}
	doc, err := html.Parse(strings.NewReader(string(b.page.Body)))
	if err != nil {
		return nil, fmt.Errorf("the page is not HTML: %w", err)
	}
	p := &page{doc: doc, url: b.pageURL, forms: elements(doc, "form")}
	for i := range rules {
		if re, err := regexp.Compile(rules[i].URL); err == nil && re.MatchString(b.pageURL.String()) {
			p.rule = &rules[i]
			break
		}
	}
	return p, nil
}

// controls are the elements of a form a user fills or clicks.
func controls(f *html.Node) []*html.Node {
	var out []*html.Node
	walk(f, func(n *html.Node) {
		if n.Type == html.ElementNode && (n.Data == "input" || n.Data == "button" || n.Data == "select" || n.Data == "textarea") {
			out = append(out, n)
		}
	})
	return out
}

// find returns the first element under n that matches c, or nil.
func find(n *html.Node, c *target.Control) *html.Node {
	var found *html.Node
	walk(n, func(e *html.Node) {
		if found == nil && e.Type == html.ElementNode && matches(c, e) {
			found = e
		}
	})
	return found
}

// matches tells whether an element has every attribute the control gives.
func matches(c *target.Control, n *html.Node) bool {
	return (c.ID == "" || attr(n, "id") == c.ID) && (c.Name == "" || attr(n, "name") == c.Name) &&
		(c.Value == "" || attr(n, "value") == c.Value) &&
		(c.Text == "" || strings.EqualFold(strings.TrimSpace(label(n)), strings.TrimSpace(c.Text)))
}

// label is what a person reads on a control: a button's or link's text, an input button's value.
func label(n *html.Node) string {
	if n.Data == "input" {
		return attr(n, "value")
	}
	var b strings.Builder
	walk(n, func(t *html.Node) {
		if t.Type == html.TextNode {
			b.WriteString(t.Data)
		}
	})
	return strings.Join(strings.Fields(b.String()), " ")
}

// isButton tells whether a person can click n to submit its form or leave the page.
func isButton(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	switch n.Data {
	case "button", "a":
		return true
	case "input":
		switch strings.ToLower(attr(n, "type")) {
		case "submit", "button", "image":
			return true
		}
	}
	return false
}

// meaning tells whether a button says approve (+1), deny (-1) or neither (0): its text first, then its value,
// name and id. UAA's user_oauth_approval buttons say "Authorize" and "Deny".
func meaning(n *html.Node) int {
	for _, s := range []string{label(n), attr(n, "value"), attr(n, "name"), attr(n, "id")} {
		approve, deny := false, false
		for _, w := range wordSplit.Split(strings.ToLower(s), -1) {
			approve = approve || approveWords[w]
			deny = deny || denyWords[w]
		}
		switch {
		case approve && !deny:
			return 1
		case deny && !approve:
			return -1
		}
	}
	return 0
}

func isPasswordInput(n *html.Node) bool {
	return n.Data == "input" && strings.EqualFold(attr(n, "type"), "password")
}

func isCheckbox(n *html.Node) bool {
	return n.Data == "input" && strings.EqualFold(attr(n, "type"), "checkbox")
}

// formOf returns the form element that holds n, or nil.
func formOf(n *html.Node) *html.Node {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.Data == "form" {
			return p
		}
	}
	return nil
}

// newForm is the form f as the page fills it: hidden fields, fields with a value, ticked boxes.
func (p *page) newForm(f *html.Node) (*form, error) {
	action, err := p.url.Parse(attr(f, "action"))
	if err != nil {
		return nil, fmt.Errorf("form action %q: %w", attr(f, "action"), err)
	}
	fm := &form{node: f, action: action.String(), method: strings.ToUpper(attr(f, "method")), fields: url.Values{}, inputs: controls(f)}
	if fm.method == "" {
		fm.method = http.MethodGet
	}
	for _, c := range fm.inputs {
		name, typ := attr(c, "name"), strings.ToLower(attr(c, "type"))
		if c.Data != "input" || name == "" {
			continue
		}
		switch typ {
		case "hidden", "text", "email", "":
			fm.fields.Set(name, attr(c, "value"))
		case "checkbox", "radio":
			if hasAttr(c, "checked") {
				fm.fields.Add(name, cmp.Or(attr(c, "value"), "on"))
			}
		}
	}
	return fm, nil
}

// signInForm is the form with a password field (or the page rule's password control).
func (p *page) signInForm() (*form, *html.Node, error) {
	for _, f := range p.forms {
		var pw *html.Node
		if p.rule != nil && p.rule.Password != nil {
			pw = find(f, p.rule.Password)
		} else {
			pw = first(controls(f), isPasswordInput)
		}
		if pw != nil {
			fm, err := p.newForm(f)
			return fm, pw, err
		}
	}
	return nil, nil, nil
}

// userField is the sign-in form's field for the user name: the page rule's, else its first text or e-mail input.
func (p *page) userField(fm *form) *html.Node {
	if p.rule != nil && p.rule.Username != nil {
		return find(fm.node, p.rule.Username)
	}
	return first(fm.inputs, func(n *html.Node) bool {
		t := strings.ToLower(attr(n, "type"))
		return n.Data == "input" && attr(n, "name") != "" && (t == "" || t == "text" || t == "email")
	})
}

// consent is a consent page: the approve control and its form, the deny control, the scope checkboxes.
type consent struct {
	page       *page
	approve    *html.Node
	form       *form
	deny       *html.Node // nil when the page has none
	checkboxes []*html.Node
}

// consentPage finds the consent controls of the page, or returns nil when it is no consent page.
func (p *page) consentPage() (*consent, error) {
	if f, _, _ := p.signInForm(); f != nil {
		return nil, nil
	}
	var approve, deny *html.Node
	if p.rule != nil && p.rule.Approve != nil {
		approve = find(p.doc, p.rule.Approve)
	}
	if p.rule != nil && p.rule.Deny != nil {
		deny = find(p.doc, p.rule.Deny)
	}
	var buttons []*html.Node
	walk(p.doc, func(n *html.Node) {
		if n.Type == html.ElementNode && isButton(n) && (n.Data == "a" || formOf(n) != nil) {
			buttons = append(buttons, n)
		}
	})
	if approve == nil {
		approve = first(buttons, func(n *html.Node) bool { return n.Data != "a" && meaning(n) > 0 })
	}
	if approve == nil || formOf(approve) == nil {
		return nil, nil
	}
	if deny == nil {
		// The deny control of the approve form first, then of any form, then a link.
		same := func(n *html.Node) bool { return formOf(n) == formOf(approve) && meaning(n) < 0 }
		deny = cmpNode(first(buttons, same), first(buttons, func(n *html.Node) bool { return n.Data != "a" && meaning(n) < 0 }),
			first(buttons, func(n *html.Node) bool { return meaning(n) < 0 }))
	}
	fm, err := p.newForm(formOf(approve))
	if err != nil {
		return nil, err
	}
	return &consent{page: p, approve: approve, form: fm, deny: deny, checkboxes: filter(fm.inputs, isCheckbox)}, nil
}

// offers tells whether the page asks for the scope: a checkbox for it, or its name in the page's text.
func (c *consent) offers(scope string) bool {
	for _, cb := range c.checkboxes {
		if strings.Contains(attr(cb, "value"), scope) || strings.Contains(attr(cb, "name"), scope) {
			return true
		}
	}
	return strings.Contains(label(c.page.doc), scope)
}

// approval is the form a person sends who ticks every scope box and clicks the approve control.
func (c *consent) approval() *form {
	fm := c.form
	for _, cb := range c.checkboxes {
		name, value := attr(cb, "name"), cmp.Or(attr(cb, "value"), "on")
		if name != "" && !slices.Contains(fm.fields[name], value) {
			fm.fields.Add(name, value)
		}
	}
	press(fm, c.approve)
	return fm
}

// refusal is the request a person's browser sends who clicks the deny control, leaving the boxes as the page
// ticks them: a submit button sends its form with its own name and value; a plain button (type=button, which a
// script handles, as Spring Authorization Server's Cancel does) sends its form with every box unticked; a link
// is followed.
func (c *consent) refusal() (*form, error) {
	d := c.deny
	if d == nil {
		return nil, fmt.Errorf("the consent page has no deny control (a button or link that says deny, cancel, reject, no)")
	}
	if d.Data == "a" {
		href, err := c.page.url.Parse(attr(d, "href"))
		if err != nil {
			return nil, fmt.Errorf("the deny link %q: %w", attr(d, "href"), err)
		}
		return &form{action: href.String(), method: http.MethodGet, fields: url.Values{}}, nil
	}
	fm, err := c.page.newForm(formOf(d))
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(attr(d, "type"), "button") {
		for _, cb := range filter(fm.inputs, isCheckbox) {
			fm.fields.Del(attr(cb, "name"))
		}
		return fm, nil
	}
	press(fm, d)
	return fm, nil
}

// press adds a clicked submit control's name and value, as a browser does.
func press(fm *form, n *html.Node) {
	if name := attr(n, "name"); name != "" {
		fm.fields.Set(name, attr(n, "value"))
	}
	if a := attr(n, "formaction"); a != "" {
		if u, err := url.Parse(fm.action); err == nil {
			if v, err := u.Parse(a); err == nil {
				fm.action = v.String()
			}
		}
	}
}

func walk(n *html.Node, visit func(*html.Node)) {
	visit(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, visit)
	}
}

func elements(n *html.Node, tag string) []*html.Node {
	return filterTree(n, func(e *html.Node) bool { return e.Type == html.ElementNode && e.Data == tag })
}

func filterTree(n *html.Node, keep func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	walk(n, func(e *html.Node) {
		if keep(e) {
			out = append(out, e)
		}
	})
	return out
}

func filter(nodes []*html.Node, keep func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for _, n := range nodes {
		if keep(n) {
			out = append(out, n)
		}
	}
	return out
}

func first(nodes []*html.Node, keep func(*html.Node) bool) *html.Node {
	for _, n := range nodes {
		if keep(n) {
			return n
		}
	}
	return nil
}

func cmpNode(nodes ...*html.Node) *html.Node {
	for _, n := range nodes {
		if n != nil {
			return n
		}
	}
	return nil
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

// xpath is an XPath expression for exactly n, by position from the root, so that a real browser can click the
// control these rules found in the same page.
func xpath(n *html.Node) string {
	var parts []string
	for e := n; e != nil && e.Type == html.ElementNode; e = e.Parent {
		i := 1
		for s := e.PrevSibling; s != nil; s = s.PrevSibling {
			if s.Type == html.ElementNode && s.Data == e.Data {
				i++
			}
		}
		parts = append([]string{fmt.Sprintf("%s[%d]", e.Data, i)}, parts...)
	}
	return "/" + strings.Join(parts, "/")
}

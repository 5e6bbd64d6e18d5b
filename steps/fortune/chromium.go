package fortune

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/cucumber/godog"
	"golang.org/x/net/html"

	"github.com/fortune-tck/fortune-tck/steps/auth"
	"github.com/fortune-tck/fortune-tck/steps/core"
	"github.com/fortune-tck/fortune-tck/target"
)

// The Chromium steps walk the greeting flow in a real headless browser, typing and clicking as a person
// would; forms are found by meaning (the password field, the user_oauth_approval button).

// chromiumSteps drive one headless Chromium, started by the scenario that needs it and closed at its end.
type chromiumSteps struct {
	*core.Scenario
	// artifacts is the folder screenshots are saved in.
	artifacts string
	chrome    *chrome
	// screenshot is the one the scenario saved, attached to the cucumber report when it ends, passed or not.
	screenshot *screenshot
}

// screenshot is a PNG saved as a file of the reports folder.
type screenshot struct {
	name string
	png  []byte
}

func (cr *chromiumSteps) register(sc *godog.ScenarioContext) {
	sc.Step(`^Chromium opens the greeting client$`, cr.chromiumOpensGreeting)
	sc.Step(`^"([^"]+)" signs in with the password "([^"]+)" in Chromium$`, cr.chromiumSignsIn)
	sc.Step(`^approves the scopes in Chromium$`, cr.chromiumApproves)
	sc.Step(`^Chromium shows the greeting page with a fortune$`, cr.chromiumShowsFortune)
	sc.Step(`^a screenshot of the page is saved as "([^"]+)"$`, cr.chromiumScreenshot)
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		if cr.chrome != nil {
			cr.chrome.close()
			cr.chrome = nil
		}
		return cr.attachScreenshot(ctx), nil
	})
}

// chrome is one headless Chromium and its tab. Everything it loads goes through proxy, which lets through
// only the origins the target file declares (core.Proxy: plain HTTP, HTTPS tunnels, WebSockets); it
// downloads nothing; its profile and home are a folder of its own, removed with it.
type chrome struct {
	ctx   context.Context
	proxy *core.Proxy
	close func()
}

// chromiumPaths are where Debian and others install the browser.
var chromiumPaths = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// startChrome starts Chromium for the scenario: it ends with the scenario's context, within a minute, and is
// killed with its folder removed by the run's Release if the run is stopped before the scenario ends.
func (cr *chromiumSteps) startChrome() (*chrome, error) {
	path := ""
	for _, name := range chromiumPaths {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	// Chromium is the harness's browser, not the target's: without it, or when it does not start, the scenario
	// is blocked, not failed.
	if path == "" {
		return nil, core.Blockedf("Chromium is not installed: run `make deps` as root (apt-get install chromium), " +
			"or leave the real-browser scenario out with --tags '~@browser'")
	}
	dir, err := os.MkdirTemp("", "tck-chromium-") // short: Chromium's sockets are made in it
	if err != nil {
		return nil, err
	}
	proxy, err := core.StartProxy(cr.Run.Origins)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.UserDataDir(dir),
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		// Every request through the proxy, loopback ones too (Chromium bypasses a proxy for them unless told).
		chromedp.ProxyServer(proxy.URL), chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		// What Chromium writes beyond its profile (~/.pki, caches, its shared memory) goes into its folder too.
		chromedp.Env("HOME="+dir, "TMPDIR="+dir, "XDG_CONFIG_HOME="+dir, "XDG_CACHE_HOME="+dir, "XDG_DATA_HOME="+dir))
	alloc, cancelAlloc := chromedp.NewExecAllocator(cr.Run.Context(), opts...)
	tab, cancelTab := chromedp.NewContext(alloc)
	release := cr.Run.Hold(func() {
		cancelTab()
		cancelAlloc() // waits for the browser's process to end
		proxy.Close()
		_ = os.RemoveAll(dir)
	})
	// The first Run starts the browser, and lives as long as its context: start it before bounding the
	// scenario's actions to one minute.
	done := cr.Run.Waiting("starting Chromium")
	err = chromedp.Do(tab)
	if err == nil {
		_, err = chromedp.CallBrowser(tab, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
			Behavior: browser.SetDownloadBehaviorBehaviorDeny})
	}
	done()
	if err != nil {
		release()
		return nil, core.Blockedf("starting Chromium (%s): %v", path, err)
	}
	ctx, cancelTimeout := context.WithTimeout(tab, time.Minute)
	stop := context.AfterFunc(cr.Context(), cancelTimeout)
	return &chrome{ctx: ctx, proxy: proxy, close: func() {
		stop()
		cancelTimeout()
		release()
	}}, nil
}

func (cr *chromiumSteps) chromiumOpensGreeting() error {
	base, err := greetingBase(cr.Scenario)
	if err != nil {
		return err
	}
	if cr.chrome, err = cr.startChrome(); err != nil {
		return err
	}
	return cr.inChrome("opening "+base+"/", chromedp.Navigate(base+"/"))
}

// maxChromiumPage bounds what the steps read of a page Chromium shows.
const maxChromiumPage = 1 << 20

// undeclared is the error of a Chromium that shows no page of a declared origin: the proxy refused to take it
// where it was sent. Nil when it shows one.
func (cr *chromiumSteps) undeclared(href string) error {
	u, err := url.Parse(href)
	if err == nil && cr.Run.Origins.Allows(u) {
		return nil
	}
	var blocked []string
	for _, b := range cr.chrome.proxy.Blocked() {
		if !chromiumsOwn(b) {
			blocked = append(blocked, b)
		}
	}
	if len(blocked) == 0 && strings.HasPrefix(href, "about:") {
		return nil // the blank page before the first navigation
	}
	return fmt.Errorf("Chromium shows %s, not a page of an origin the target file declares; the page asked for "+
		"what the harness does not contact: %s (a login application on an origin of its own is named in "+
		"allowedOrigins; see docs/safety.md)", core.Printable(href), strings.Join(blocked, ", "))
}

// chromiumsOwn tells a request Chromium makes on its own (its updates, its clock), which the proxy refuses as
// any other but which says nothing of the page.
func chromiumsOwn(blocked string) bool {
	host := blocked
	if u, err := url.Parse(blocked); err == nil && u.Host != "" {
		host = u.Hostname()
	} else if h, _, err := net.SplitHostPort(blocked); err == nil {
		host = h
	}
	for _, own := range []string{"google.com", "googleapis.com", "gstatic.com", "gvt1.com"} {
		if host == own || strings.HasSuffix(host, "."+own) {
			return true
		}
	}
	return false
}

// href is the address of the page Chromium shows.
func (cr *chromiumSteps) href() (string, error) {
	return chromedp.Run(cr.chrome.ctx, chromedp.Evaluate[string](`location.href`))
}

// chromiumPage parses the page Chromium shows, with the target's page rules, so that the rules by meaning
// that find sign-in and consent controls over HTTP find them here too.
func (cr *chromiumSteps) chromiumPage() (*auth.Page, error) {
	if cr.chrome == nil {
		return nil, errors.New("Chromium was not started in this scenario")
	}
	if err := cr.chromiumWaitFor(`document.readyState === "complete"`); err != nil {
		return nil, err
	}
	href, err := cr.href()
	if err != nil {
		return nil, err
	}
	if err := cr.undeclared(href); err != nil {
		return nil, err
	}
	doc, err := chromedp.Run(cr.chrome.ctx, chromedp.Evaluate[string](fmt.Sprintf(`document.documentElement.outerHTML.slice(0, %d)`, maxChromiumPage)))
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(href)
	if err != nil {
		return nil, err
	}
	var rules []target.PageRule
	if as := cr.Services().AuthServer; as != nil {
		rules = as.Pages
	}
	return auth.ParsePage(doc, u, rules)
}

func (cr *chromiumSteps) chromiumSignsIn(user, password string) error {
	user, password, err := cr.Expand2(user, password)
	if err != nil {
		return err
	}
	if err := cr.chromiumWaitFor(`document.querySelector("input[type=password]") !== null`); err != nil {
		return fmt.Errorf("Chromium shows no sign-in page: %w", err)
	}
	p, err := cr.chromiumPage()
	if err != nil {
		return err
	}
	name, pw, err := p.SignInFields()
	if err != nil || pw == nil {
		return fmt.Errorf("no sign-in form (a form with a password field) in Chromium: %v", err)
	}
	if name == nil {
		return errors.New("the sign-in form has no field for the user name")
	}
	// The page was of a declared origin when it was read; it still must be when the keys go in.
	if href, err := cr.href(); err != nil || cr.undeclared(href) != nil {
		return cmp.Or(err, cr.undeclared(href))
	}
	return cr.inChrome("signing in", chromedp.SendKeys(chromedp.Search(auth.XPath(name)), user),
		chromedp.SendKeys(chromedp.Search(auth.XPath(pw)), password),
		chromedp.Submit(chromedp.Search(auth.XPath(pw))))
}

// chromiumApproves clicks the approve control the rules by meaning find on the consent page.
func (cr *chromiumSteps) chromiumApproves() error {
	var approve *html.Node
	var unticked []*html.Node
	err := cr.Until(chromiumWait, "Chromium to show a consent page (a form with an approve control)", func() (bool, error) {
		if p, err := cr.chromiumPage(); err == nil {
			approve, unticked, _ = p.Consent()
		}
		return approve != nil, nil
	})
	if err != nil {
		return err
	}
	for _, cb := range unticked {
		if err := cr.inChrome("unticking a scope", chromedp.Click(chromedp.Search(auth.XPath(cb)))); err != nil {
			return err
		}
	}
	return cr.inChrome("approving", chromedp.Click(chromedp.Search(auth.XPath(approve))))
}

// chromiumShowsFortune waits for the greeting client's page and checks that it shows a fortune: an element
// the page marks as one (class or id "fortune", or a blockquote) holds text, and the client, asked for the
// page's attributes as JSON with the browser's own session cookies, has a fortune for this session. (The
// fortune differs from request to request, so the two cannot be compared word for word.)
func (cr *chromiumSteps) chromiumShowsFortune() error {
	base, err := greetingBase(cr.Scenario)
	if err != nil {
		return err
	}
	if err := cr.chromiumWaitFor(fmt.Sprintf(`location.href.startsWith(%q) && document.readyState === "complete"`, base+"/")); err != nil {
		return fmt.Errorf("Chromium did not come back to the greeting client: %w", err)
	}
	shown, err := chromedp.Run(cr.chrome.ctx, chromedp.Evaluate[string](
		`(document.querySelector(".fortune, #fortune, blockquote") || {innerText: ""}).innerText.slice(0, 4096)`))
	if err != nil {
		return err
	}
	if strings.TrimSpace(shown) == "" {
		text, _ := chromedp.Run(cr.chrome.ctx, chromedp.Evaluate[string](`document.body.innerText.slice(0, 4096)`))
		return fmt.Errorf("the page shows no fortune (no element with class or id \"fortune\", or blockquote, with text):\n%s", core.Printable(text))
	}
	_, err = cr.fortuneWithChromeSession(base)
	return err
}

// fortuneWithChromeSession asks the greeting client for its page as JSON, presenting Chromium's cookies.
func (cr *chromiumSteps) fortuneWithChromeSession(base string) (string, error) {
	cookies, err := chromedp.Run(cr.chrome.ctx, func(ctx context.Context, t *chromedp.Target) ([]*network.Cookie, error) {
		r, err := cdp.Call(ctx, t, network.GetCookies, network.GetCookiesParams{URLs: []string{base + "/"}})
		return r.Cookies, err
	})
	if err != nil {
		return "", fmt.Errorf("reading Chromium's cookies: %w", err)
	}
	req, err := http.NewRequest(http.MethodGet, base+"/", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "application/json")
	for _, c := range cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	// Built by hand: the cookies are Chromium's session, presented as they are.
	if err := cr.Do(req); err != nil {
		return "", err
	}
	if err := cr.PageHas("fortune"); err != nil {
		return "", err
	}
	fortune, _, err := cr.PageAttribute("fortune")
	return fortune, err
}

// chromiumWait bounds every wait for the page Chromium shows.
const chromiumWait = 20 * time.Second

// chromiumWaitFor evaluates a predicate until it holds, 20s at most. It asks anew each time, because the page
// may navigate (sign-in, consent, the redirects back) while it waits, and an evaluation on a page that goes
// away fails without meaning anything: the last such failure is reported if the wait ends without success.
func (cr *chromiumSteps) chromiumWaitFor(predicate string) error {
	if cr.chrome == nil {
		return errors.New("Chromium was not started in this scenario")
	}
	var last error
	defer cr.Run.Waiting("Chromium's page to hold " + predicate)()
	err := cr.Until(chromiumWait, "Chromium's page to hold "+predicate, func() (bool, error) {
		if len(cr.chrome.proxy.Blocked()) > 0 { // sent where it may not go: no wait ends that
			if href, err := cr.href(); err == nil && cr.undeclared(href) != nil {
				return false, cr.undeclared(href)
			}
		}
		ok, err := chromedp.Run(cr.chrome.ctx, chromedp.Evaluate[bool](predicate))
		last = err
		return err == nil && ok, nil
	})
	if err != nil && last != nil {
		return fmt.Errorf("%w (the last evaluation: %v)", err, last)
	}
	return err
}

func (cr *chromiumSteps) chromiumScreenshot(name string) error {
	if cr.chrome == nil {
		return errors.New("Chromium was not started in this scenario")
	}
	// The whole page, unless it is taller than maxShotHeight: then what the window shows.
	height, err := chromedp.Run(cr.chrome.ctx, chromedp.Evaluate[float64](`document.documentElement.scrollHeight`))
	if err != nil {
		return err
	}
	shot := chromedp.FullScreenshot(100)
	if height > maxShotHeight {
		shot = chromedp.CaptureScreenshot()
	}
	png, err := chromedp.Run(cr.chrome.ctx, shot)
	if err != nil {
		return err
	}
	dir := cr.artifacts
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		return err
	}
	cr.screenshot = &screenshot{name: filepath.Base(name), png: png}
	return nil
}

// attachScreenshot attaches the screenshot the scenario saved, if any, to the cucumber report.
func (cr *chromiumSteps) attachScreenshot(ctx context.Context) context.Context {
	if cr.screenshot == nil {
		return ctx
	}
	ctx = godog.Attach(ctx, godog.Attachment{FileName: cr.screenshot.name, MediaType: "image/png", Body: cr.screenshot.png})
	cr.screenshot = nil
	return ctx
}

// maxShotHeight bounds the height of a screenshot of the whole page, in CSS pixels.
const maxShotHeight = 4096

// inChrome runs actions in the scenario's Chromium, noted as what the run waits for.
func (cr *chromiumSteps) inChrome(what string, actions ...chromedp.Action[chromedp.Void]) error {
	if cr.chrome == nil {
		return errors.New("Chromium was not started in this scenario")
	}
	defer cr.Run.Waiting("Chromium " + what)()
	if err := chromedp.Do(cr.chrome.ctx, actions...); err != nil {
		return fmt.Errorf("Chromium %s: %w", what, err)
	}
	return nil
}

package docs

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// inlineLink is [text](target) and ![alt](target), with an optional "title".
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// refLink is a reference definition: [label]: target
	refLink = regexp.MustCompile(`^\s*\[[^\]]+\]:\s*(\S+)`)
	// htmlLink is href= or src= of inline HTML.
	htmlLink = regexp.MustCompile(`(?:href|src)="([^"]+)"`)
	// bareURL is what GitHub links by itself.
	bareURL = regexp.MustCompile(`(?i)\b(?:https?://|www\.)\S+`)
)

// links are the link targets of a file's prose, with their lines.
func links(d doc) []line {
	var out []line
	for _, l := range d.prose {
		for _, re := range []*regexp.Regexp{inlineLink, refLink, htmlLink} {
			for _, m := range re.FindAllStringSubmatch(l.text, -1) {
				out = append(out, line{l.n, m[1]})
			}
		}
	}
	return out
}

// Every relative link of the documentation resolves: its file exists, and its #anchor is a heading of that file
// as GitHub names it.
func TestEveryRelativeLinkResolves(t *testing.T) {
	for _, rel := range markdownFiles(t) {
		d := readDoc(t, rel)
		for _, l := range links(d) {
			if problem := checkLink(t, rel, l.text); problem != "" {
				t.Errorf("%s:%d: %s: %s", rel, l.n, l.text, problem)
			}
		}
	}
}

func checkLink(t *testing.T, from, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		return "not a URL: " + err.Error()
	}
	if u.Scheme != "" || u.Host != "" {
		return "" // another site's: not checked here (the README has none, below)
	}
	file := from
	if u.Path != "" {
		if strings.HasPrefix(u.Path, "/") {
			return "an absolute path: write it relative to the file"
		}
		file = filepath.Join(filepath.Dir(from), filepath.FromSlash(u.Path))
		if _, err := os.Stat(filepath.Join(root, file)); err != nil {
			return "no such file or folder in the repository"
		}
	}
	if u.Fragment == "" {
		return ""
	}
	if !strings.HasSuffix(file, ".md") {
		return "an anchor into a file that is not Markdown"
	}
	if !anchors(t, file)[u.Fragment] {
		return "no heading of " + file + " has the anchor #" + u.Fragment
	}
	return ""
}

// The README points at nothing outside the repository: no link to another site, and no address in its prose
// that GitHub would make one (addresses in code are text).
func TestTheREADMEPointsAtNothingOutsideTheRepository(t *testing.T) {
	d := readDoc(t, "README.md")
	for _, l := range links(d) {
		if u, err := url.Parse(l.text); err == nil && (u.Scheme != "" || u.Host != "") {
			t.Errorf("README.md:%d: a link to another site: %s", l.n, l.text)
		}
	}
	for _, l := range d.prose {
		for _, m := range bareURL.FindAllString(l.text, -1) {
			t.Errorf("README.md:%d: an address GitHub links: %s (put it in code, or link a file of the repository)", l.n, m)
		}
	}
}

func TestTheREADMEIsAFirstPage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > 250 {
		t.Errorf("README.md has %d lines; a first page has at most 250: move the rest into docs/ or CONTRIBUTING.md", n)
	}
}

// GitHub's anchors, checked on headings of the kinds the documentation has.
func TestSlugIsGitHubs(t *testing.T) {
	for heading, want := range map[string]string{
		"Worked example: oidc-provider":                                              "worked-example-oidc-provider",
		"The authorization server (profiles `oauth`, `check-token`, `provisioning`)": "the-authorization-server-profiles-oauth-check-token-provisioning",
		"The demo's repository, application and quotes":                              "the-demos-repository-application-and-quotes",
		"Under load (`make load`)":                                                   "under-load-make-load",
		"See [the file](target-file.md) now":                                         "see-the-file-now",
		"snake_case and ünïcode":                                                     "snake_case-and-ünïcode",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

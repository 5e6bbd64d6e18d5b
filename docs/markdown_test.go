package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// root is the checkout, from this package's folder.
const root = ".."

// markdownFiles are the files whose links are checked, relative to root.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md (%v)", err)
	}
	files := []string{"README.md", "CONTRIBUTING.md"}
	for _, d := range docs {
		rel, _ := filepath.Rel(root, d)
		files = append(files, rel)
	}
	return files
}

// line is one line of a Markdown file outside fenced code blocks, with its inline code removed.
type line struct {
	n    int
	text string
}

// block is a fenced code block: its info string (sh, yaml) and its lines.
type block struct {
	info  string
	start int
	lines []string
}

// doc is a Markdown file split into its prose (outside code blocks) and its fenced code blocks.
type doc struct {
	path   string
	prose  []line
	blocks []block
}

var (
	fence      = regexp.MustCompile("^\\s*(```+|~~~+)\\s*([A-Za-z0-9_-]*)")
	inlineCode = regexp.MustCompile("`+[^`]*`+")
	comment    = regexp.MustCompile(`<!--.*?-->`)
)

func readDoc(t *testing.T, rel string) doc {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	d := doc{path: rel}
	var open *block
	var marker string
	for i, text := range strings.Split(string(data), "\n") {
		if m := fence.FindStringSubmatch(text); m != nil {
			switch {
			case open == nil:
				d.blocks = append(d.blocks, block{info: m[2], start: i + 1})
				open, marker = &d.blocks[len(d.blocks)-1], m[1][:3]
				continue
			case strings.HasPrefix(m[1], marker) && m[2] == "":
				open = nil
				continue
			}
		}
		if open != nil {
			open.lines = append(open.lines, text)
			continue
		}
		d.prose = append(d.prose, line{i + 1, comment.ReplaceAllString(inlineCode.ReplaceAllString(text, ""), "")})
	}
	if open != nil {
		t.Errorf("%s:%d: a code block that is never closed", rel, open.start)
	}
	return d
}

var heading = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)

// anchors are the ids GitHub gives the file's headings: the heading's text as rendered (without code marks,
// emphasis or link targets), lower-cased, without punctuation but hyphens and underscores, spaces made hyphens;
// a repeated one gets -1, -2, ...
func anchors(t *testing.T, rel string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	inFence := false
	seen := map[string]int{}
	out := map[string]bool{}
	for _, text := range strings.Split(string(data), "\n") {
		if fence.MatchString(text) {
			inFence = !inFence
			continue
		}
		m := heading.FindStringSubmatch(text)
		if inFence || m == nil {
			continue
		}
		id := slug(m[2])
		if n := seen[id]; n > 0 {
			out[fmt.Sprintf("%s-%d", id, n)] = true
		} else {
			out[id] = true
		}
		seen[id]++
	}
	return out
}

var linkTarget = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

func slug(text string) string {
	text = linkTarget.ReplaceAllString(text, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r), unicode.IsNumber(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

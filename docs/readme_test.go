package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fortune-tck/fortune-tck/target"
)

// exercisedBy names, for each command of the README's shell blocks as written (comment left out), what runs
// it: a test (folder:TestName), or .ci/run. A command the README gains needs a test that runs it, named here; a
// command it loses is taken out of here.
var exercisedBy = map[string][]string{
	"make demo": {"docs:TestTheREADMEsMakeCommandsOnACopyOfTheCheckout"},
	"make test": {".ci/run"},
	"make conformance": {"docs:TestTheREADMEsMakeCommandsOnACopyOfTheCheckout",
		"harness:TestConformanceOfTheReference"},
	"make conformance TARGET=mine.yaml": {"cmd/tck/containertest:TestTheWholeSuiteAgainstTheComposeStack"},
	"make conformance TAGS=@spec-4.4":   {"docs:TestTheREADMEsMakeCommandsOnACopyOfTheCheckout"},
	"make interop":                      {"tools/interop:TestCommittedInteropReportsAreReproduced"},
	"go run ./cmd/tck run":              {"cmd/tck:TestInterruptStopsTheReference"},
	"go run ./cmd/tck run --tags '@spec-4.4'": {"docs:TestTheREADMEsMakeCommandsOnACopyOfTheCheckout",
		"harness:TestUndeclaredCapabilitiesAreNotSupported"},
	"go run ./cmd/tck run --target mine.yaml":   {"cmd/tck:TestRunAgainstATargetFile"},
	"go run ./cmd/tck run --format pretty":      {"harness:TestThePrettyFormatPrintsEveryStepAndNoCountOfGodogs"},
	"go run ./cmd/tck validate mine.yaml":       {"docs:TestTheREADMEsTargetFileIsValid"},
	"go run ./cmd/tck capabilities":             {"cmd/tck:TestCoverageAndCapabilities"},
	"go run ./cmd/tck coverage":                 {"cmd/tck:TestCoverageAndCapabilities"},
	"go run ./cmd/tck report --reports reports": {"cmd/tck:TestReportRendersARunsFiles"},
	"make deps":                         {".ci/run"},
	"examples/oidc-provider/start.sh &": {"tools/interop:TestCommittedInteropReportsAreReproduced", "cmd/tck:TestInteropWithOIDCProvider"},
	"make conformance TARGET=examples/oidc-provider/target.yaml": {"tools/interop:TestCommittedInteropReportsAreReproduced"},
}

// command is one command line of a README shell block.
type command struct {
	line int
	text string // as written, without its comment
}

// readmeCommands are the commands of the README's sh blocks: continued lines joined, comments left out.
func readmeCommands(t *testing.T) []command {
	t.Helper()
	var out []command
	for _, b := range readDoc(t, "README.md").blocks {
		if b.info != "sh" {
			continue
		}
		for i := 0; i < len(b.lines); i++ {
			n, text := b.start+1+i, b.lines[i]
			for strings.HasSuffix(text, "\\") && i+1 < len(b.lines) {
				i++
				text = strings.TrimSuffix(text, "\\") + " " + strings.TrimSpace(b.lines[i])
			}
			if text = strings.Join(strings.Fields(withoutComment(text)), " "); text != "" {
				out = append(out, command{n, text})
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("the README has no sh block")
	}
	return out
}

// withoutComment cuts a shell comment: a # that starts a word outside quotes.
func withoutComment(s string) string {
	var quote rune
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return s[:i]
		}
	}
	return s
}

// words splits a command as the shell would, for the quoting the README uses.
func words(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// Every command of the README is named above with what runs it, every name above is a command of the README,
// and each test named exists.
func TestEveryREADMECommandNamesTheTestThatRunsIt(t *testing.T) {
	written := map[string]bool{}
	for _, c := range readmeCommands(t) {
		written[c.text] = true
		if len(exercisedBy[c.text]) == 0 {
			t.Errorf("README.md:%d: %q is run by no test named in docs/readme_test.go's exercisedBy: "+
				"add a test that runs it as written, and name it there", c.line, c.text)
		}
	}
	for cmd, by := range exercisedBy {
		if !written[cmd] {
			t.Errorf("exercisedBy names %q, which the README does not show (any more): take it out", cmd)
		}
		for _, name := range by {
			if err := exists(name, cmd); err != "" {
				t.Errorf("%q: %s", cmd, err)
			}
		}
	}
}

// exists is empty when what exercisedBy names is there.
func exists(name, cmd string) string {
	if name == ".ci/run" {
		data, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
		if err != nil || !strings.Contains(string(data), "make test") {
			return ".ci/run does not run make test"
		}
		return ""
	}
	dir, test, ok := strings.Cut(name, ":")
	if !ok {
		return name + " is neither folder:TestName nor .ci/run"
	}
	files, _ := filepath.Glob(filepath.Join(root, dir, "*_test.go"))
	for _, f := range files {
		if data, err := os.ReadFile(f); err == nil && strings.Contains(string(data), "func "+test+"(t *testing.T)") {
			return ""
		}
	}
	return "no test " + test + " in " + dir + "/"
}

// Every command of the README exists as written: make's targets and variables, tck's commands and flags, the
// scripts it runs.
func TestTheREADMEsCommandsExistAsWritten(t *testing.T) {
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range readmeCommands(t) {
		w := words(strings.TrimSuffix(c.text, " &"))
		var problem string
		switch {
		case w[0] == "make":
			problem = checkMake(string(makefile), w[1:])
		case len(w) > 2 && w[0] == "go" && w[1] == "run" && w[2] == "./cmd/tck":
			problem = checkTCK(t, w[3:])
		case w[0] == "bin/tck":
			problem = checkTCK(t, w[1:])
		case strings.HasSuffix(w[0], ".sh"):
			if fi, err := os.Stat(filepath.Join(root, w[0])); err != nil || fi.Mode()&0o111 == 0 {
				problem = "no executable " + w[0]
			}
		default:
			problem = "a command this test does not know how to check: teach it"
		}
		if problem != "" {
			t.Errorf("README.md:%d: %s: %s", c.line, c.text, problem)
		}
	}
}

var makeTarget = regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*):`)

func checkMake(makefile string, args []string) string {
	var targets []string
	for _, m := range makeTarget.FindAllStringSubmatch(makefile, -1) {
		targets = append(targets, m[1])
	}
	for _, a := range args {
		if name, _, ok := strings.Cut(a, "="); ok {
			if !strings.Contains(makefile, "$("+name+")") {
				return "the Makefile does not use " + name
			}
		} else if !slices.Contains(targets, a) {
			return "the Makefile has no target " + a
		}
	}
	return ""
}

var (
	tckOnce sync.Once
	tckBin  string
	tckErr  string
)

// tck is cmd/tck built from the checkout, once.
func tck(t *testing.T) string {
	t.Helper()
	tckOnce.Do(func() {
		dir, err := os.MkdirTemp("", "docs-tck-")
		if err != nil {
			tckErr = err.Error()
			return
		}
		tckBin = filepath.Join(dir, "tck")
		cmd := exec.Command("go", "build", "-o", tckBin, "./cmd/tck")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			tckErr = "building tck: " + err.Error() + "\n" + string(out)
		}
	})
	if tckErr != "" {
		t.Fatal(tckErr)
	}
	return tckBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if tckBin != "" {
		_ = os.RemoveAll(filepath.Dir(tckBin))
	}
	os.Exit(code)
}

// checkTCK is empty when tck has the command and every flag the arguments give it.
func checkTCK(t *testing.T, args []string) string {
	if len(args) == 0 {
		return "no tck command"
	}
	out, err := exec.Command(tck(t), args[0], "--help").CombinedOutput()
	if err != nil {
		return "tck " + args[0] + " --help: " + err.Error() + "\n" + string(out)
	}
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "--") {
			continue
		}
		flag, _, _ := strings.Cut(a, "=")
		if !regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(flag) + `\b`).Match(out) {
			return "tck " + args[0] + " has no flag " + flag
		}
	}
	return ""
}

// The README's target file is valid as written, checked as the README checks it: tck validate mine.yaml,
// with its ${VAR}s in the environment.
func TestTheREADMEsTargetFileIsValid(t *testing.T) {
	var yamlText string
	for _, b := range readDoc(t, "README.md").blocks {
		if b.info == "yaml" {
			yamlText = strings.Join(b.lines, "\n") + "\n"
		}
	}
	if yamlText == "" {
		t.Fatal("the README has no target file (a yaml block)")
	}
	for _, v := range regexp.MustCompile(`\$\{([A-Z_]+)\}`).FindAllStringSubmatch(yamlText, -1) {
		t.Setenv(v[1], "secret-"+strings.ToLower(v[1]))
	}
	if _, err := target.Parse([]byte(yamlText)); err != nil {
		t.Fatalf("the README's target file:\n%v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mine.yaml"), []byte(yamlText), 0o644); err != nil {
		t.Fatal(err)
	}
	var cmd string
	for _, c := range readmeCommands(t) {
		if strings.Contains(c.text, " validate ") {
			cmd = c.text
		}
	}
	w := words(cmd)
	if len(w) < 5 || w[len(w)-1] != "mine.yaml" {
		t.Fatalf("the README's validate command is %q, not go run ./cmd/tck validate mine.yaml", cmd)
	}
	run := exec.Command(tck(t), w[3:]...)
	run.Dir = dir
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
}

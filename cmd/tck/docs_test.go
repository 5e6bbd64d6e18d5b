package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/boot"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
	"github.com/fortune-tck/fortune-tck/harness/expect"
)

// docs/ci.md's examples are what the suite takes: its expectations file loads, its workflow gives the action
// the inputs action.yml declares (and the entry script reads), with files that exist, and its GitLab job runs
// tck with the example's expectations file and hands GitLab the junit.xml tck writes.
func TestTheCIDocumentationsExamplesAreTheSuites(t *testing.T) {
	root, err := boot.Checkout()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) != 3 {
		t.Fatalf("docs/ci.md has %d yaml blocks, want the expectations file, the workflow and the GitLab job", len(blocks))
	}
	cat, err := catalog.Load(features.FS)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := expect.Parse("docs/ci.md", []byte(blocks[0][1]), cat); err != nil {
		t.Errorf("the expectations file of docs/ci.md: %v", err)
	}

	var action struct {
		Inputs map[string]struct {
			Required bool `yaml:"required"`
		} `yaml:"inputs"`
		Runs struct {
			Steps []actionStep `yaml:"steps"`
		} `yaml:"runs"`
	}
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	script, err := os.ReadFile(filepath.Join(root, "scripts", "action.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for name := range action.Inputs {
		env := "INPUT_" + strings.ToUpper(name)
		passed := slices.ContainsFunc(action.Runs.Steps, func(s actionStep) bool { return s.Env[env] == "${{ inputs."+name+" }}" })
		if !passed || !strings.Contains(string(script), env) {
			t.Errorf("the input %s does not reach scripts/action.sh as %s", name, env)
		}
	}

	var workflow struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(blocks[1][1]), &workflow); err != nil {
		t.Fatalf("the workflow of docs/ci.md: %v", err)
	}
	used := false
	for _, job := range workflow.Jobs {
		for _, step := range job.Steps {
			if step.Uses != "./" {
				continue
			}
			used = true
			for k, v := range step.With {
				if _, ok := action.Inputs[k]; !ok {
					t.Errorf("the workflow gives the action %s, which action.yml does not declare", k)
				}
				if k == "target" || k == "expect" {
					if _, err := os.Stat(filepath.Join(root, v)); err != nil {
						t.Errorf("the workflow's %s: %v", k, err)
					}
				}
			}
			for k, in := range action.Inputs {
				if _, ok := step.With[k]; in.Required && !ok {
					t.Errorf("the workflow does not give the required input %s", k)
				}
			}
		}
	}
	if !used {
		t.Error("the workflow of docs/ci.md does not use the action")
	}

	var gitlab map[string]struct {
		Script    []string `yaml:"script"`
		Artifacts struct {
			Reports struct {
				JUnit string `yaml:"junit"`
			} `yaml:"reports"`
		} `yaml:"artifacts"`
	}
	if err := yaml.Unmarshal([]byte(blocks[2][1]), &gitlab); err != nil {
		t.Fatalf("the GitLab job of docs/ci.md: %v", err)
	}
	job := gitlab["fortune-tck"]
	run := regexp.MustCompile(`^tck run .*--expect (\S+) --reports (\S+)$`)
	found := false
	for _, line := range job.Script {
		if m := run.FindStringSubmatch(line); m != nil {
			found = true
			if _, err := os.Stat(filepath.Join(root, m[1])); err != nil {
				t.Errorf("the GitLab job's expectations file: %v", err)
			}
			if job.Artifacts.Reports.JUnit != m[2]+"/junit.xml" {
				t.Errorf("the GitLab job hands GitLab %q, tck writes %s/junit.xml", job.Artifacts.Reports.JUnit, m[2])
			}
		}
	}
	if !found {
		t.Errorf("the GitLab job runs no tck run with --expect: %v", job.Script)
	}
}

// actionStep is a step of action.yml, as much as the test reads.
type actionStep struct {
	Env map[string]string `yaml:"env"`
}

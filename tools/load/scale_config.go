package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Sizes of the configuration server's scale figures: a repository of 10
// files and one of 10,000, each with a history of 1,000 commits that change
// one file each, as a configuration repository grows.
const (
	configSmallFiles = 10
	configLargeFiles = 10_000
	configCommits    = 1_000
)

// The configuration server's budgets (issue 38), at 10,000 files:
const (
	// an unchanged repository answers at least half as many requests as a
	// server sending the same answer from memory;
	budgetUnchanged = 0.50
	// the first answer after a one-file commit shows it, within 50 ms
	// (the median of the rounds);
	budgetFirstAnswer = 50 * time.Millisecond
	// a start on a new base directory, 1,000 commits, takes 5 s at most.
	budgetStart = 5 * time.Second
)

// scaleConfig measures the configuration server at both sizes: its start
// on a fresh base directory (time, peak memory, the size of its local copy
// against the repository's, packed by git), then the first request after
// each of rounds one-file commits, the two sizes in turn, so that both meet
// the machine in the same state (this one's file system takes from 0.3 to
// 1 ms to create a file, from one minute to the next): the median, and the
// slowest. Then the large server's throughput on its unchanged repository
// against the same answer from memory, as make load measures it. It prints
// the figures at both sizes, then each budget and whether it holds.
func scaleConfig(s *stack, r *scaleReport, rounds int) {
	var first, start [2]sized
	var servers [2]*configUnderTest
	var err error
	for i, files := range []int{configSmallFiles, configLargeFiles} {
		if err = r.ctx.Err(); err != nil {
			break
		}
		if servers[i], start[i], err = startConfig(s, files); err != nil {
			err = fmt.Errorf("%d files: %w", files, err)
			break
		}
		defer s.stopOne(servers[i].p)
	}
	for k := 0; err == nil && k < rounds; k++ {
		for i := range servers {
			if err = servers[i].commitAndAsk(k); err != nil {
				err = fmt.Errorf("%s: %w", servers[i].size, err)
				break
			}
		}
		err = cmp.Or(err, r.ctx.Err())
	}
	if err == nil {
		for i, c := range servers {
			peak, _ := peakMemory(c.p)
			copied, _ := diskSize(filepath.Join(c.repo+"-base", "objects"))
			first[i] = sized{size: c.size, wall: medianDuration(c.walls), cpu: medianDuration(c.cpus),
				extra: fmt.Sprintf("slowest %s, peak memory %s, local copy then %s", roundDuration(slices.Max(c.walls)), mib(peak), mib(copied))}
		}
	}
	r.figure("config server, first request after a one-file commit (10 and 10,000 files)", first[0], first[1], 0, err)
	r.figure(fmt.Sprintf("config server, start on a new base directory, %d commits (10 and 10,000 files)", configCommits), start[0], start[1], 0, err)
	unchanged := figure{err: err}
	if err == nil {
		unchanged = servers[1].throughput(s, r)
	}
	var slowest time.Duration
	if err == nil {
		slowest = slices.Max(servers[1].walls)
	}
	fmt.Println("config server budgets, 10,000 files:")
	r.budget("unchanged repository ÷ the same answer from memory", fmt.Sprintf("%.2f (%.2f-%.2f)", unchanged.ratio, unchanged.lo, unchanged.hi),
		fmt.Sprintf(">= %.2f", budgetUnchanged), unchanged.ratio >= budgetUnchanged, unchanged.err)
	r.budget("first answer after a one-file commit, showing it", fmt.Sprintf("%s (median; slowest %s)", roundDuration(first[1].wall), roundDuration(slowest)),
		fmt.Sprintf("<= %s", budgetFirstAnswer), first[1].wall <= budgetFirstAnswer, err)
	r.budget(fmt.Sprintf("start on a new base directory, %d commits", configCommits), roundDuration(start[1].wall).String(),
		fmt.Sprintf("<= %s", budgetStart), start[1].wall <= budgetStart, err)
}

// throughput measures the server on its unchanged repository against a
// server sending the same answer from memory, as make load does.
func (c *configUnderTest) throughput(s *stack, r *scaleReport) figure {
	url := c.url + "/" + configApp + "/default"
	answer, err := getBody(c.client, url)
	bodyFile := filepath.Join(s.dir, "scale-answer.json")
	if err == nil {
		err = os.WriteFile(bodyFile, []byte(answer), 0o644)
	}
	var mem string
	if err == nil {
		mem, err = s.fixedBody("the same answer from memory", bodyFile)
	}
	if err != nil {
		return figure{err: err}
	}
	m := &meter{d: 5 * time.Second, rounds: 3, conns: 32, ctx: r.ctx}
	m.compare(comparison{
		base: started{t: target{url: mem + "/", want: http.StatusOK}},
		subj: started{t: target{url: url, want: http.StatusOK, procs: []*proc{c.p}}},
	})
	return m.figures[0]
}

// configUnderTest is a configuration server on its repository, and what
// its first requests after a commit took.
type configUnderTest struct {
	size, repo, url string
	p               *proc
	client          *http.Client
	walls, cpus     []time.Duration
}

// startConfig creates a repository of files files and starts a server on
// it, measuring the start.
func startConfig(s *stack, files int) (*configUnderTest, sized, error) {
	c := &configUnderTest{size: fmt.Sprintf("%d files", files), repo: filepath.Join(s.dir, fmt.Sprintf("config-%d", files)),
		client: &http.Client{Timeout: time.Minute}}
	if err := scaleRepository(c.repo, files, configCommits); err != nil {
		return nil, sized{}, fmt.Errorf("creating the repository: %w", err)
	}
	packed, err := diskSize(filepath.Join(c.repo, ".git", "objects"))
	if err != nil {
		return nil, sized{}, err
	}
	base := filepath.Join(s.dir, fmt.Sprintf("config-%d-base", files))
	var took time.Duration
	c.url, c.p, took, err = s.startTimed("configserver "+c.size, "configserver", "--port", "0", "--uri", "file://"+c.repo, "--basedir", base)
	if err != nil {
		return nil, sized{}, err
	}
	cpu, err := cpuTime(c.p)
	if err != nil {
		s.stopOne(c.p)
		return nil, sized{}, err
	}
	copied, err := diskSize(filepath.Join(base, "objects"))
	if err != nil {
		s.stopOne(c.p)
		return nil, sized{}, err
	}
	peak, err := peakMemory(c.p)
	if err != nil {
		s.stopOne(c.p)
		return nil, sized{}, err
	}
	t0 := time.Now()
	if _, err := getBody(c.client, c.url+"/"+configApp+"/default"); err != nil {
		s.stopOne(c.p)
		return nil, sized{}, err
	}
	firstWall := time.Since(t0)
	firstCPU, _ := cpuTime(c.p)
	start := sized{size: c.size, wall: took, cpu: cpu, extra: fmt.Sprintf("then its first answer %s (CPU %s); peak memory %s, local copy so far %s (the repository, packed by git: %s)",
		roundDuration(firstWall), roundDuration(firstCPU-cpu), mib(peak), mib(copied), mib(packed))}
	return c, start, nil
}

// configApp is the application whose file the rounds change.
const configApp = "app00001"

// commitAndAsk commits a change to one file, then asks for it and times
// the answer, which must show the change.
func (c *configUnderTest) commitAndAsk(round int) error {
	marker := fmt.Sprintf("round-%d-%d", round, time.Now().UnixNano())
	if err := commitFile(c.repo, configApp+".yml", "greeting:\n  message: "+marker+"\n"); err != nil {
		return err
	}
	c0, _ := cpuTime(c.p)
	t0 := time.Now()
	body, err := getBody(c.client, c.url+"/"+configApp+"/default")
	wall := time.Since(t0)
	c1, _ := cpuTime(c.p)
	if err != nil {
		return err
	}
	if !strings.Contains(body, marker) {
		return fmt.Errorf("the answer right after commit %d does not show it", round)
	}
	c.walls, c.cpus = append(c.walls, wall), append(c.cpus, c1-c0)
	return nil
}

// scaleRepository creates a repository of files files and a history of
// commits commits, the first adding them all and each other changing one,
// with git fast-import (far faster than a commit at a time), packs it as a
// pushed repository is, and checks the files out for later commits.
func scaleRepository(dir string, files, commits int) error {
	if out, err := exec.Command("git", "init", "-q", "-b", "master", dir).CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v %s", err, out)
	}
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	w := bufio.NewWriterSize(in, 1<<20)
	content := func(i, version int) string {
		return fmt.Sprintf("greeting:\n  message: hello %d\nversion: %d\nkey%d: value\n", i, version, i)
	}
	when := int64(1_700_000_000)
	fmt.Fprintf(w, "commit refs/heads/master\ncommitter load <load@example.com> %d +0000\ndata 7\ninitial\n", when)
	for i := range files {
		c := content(i, 0)
		fmt.Fprintf(w, "M 100644 inline app%05d.yml\ndata %d\n%s\n", i, len(c), c)
	}
	w.WriteString("\n")
	for n := 1; n < commits; n++ {
		i := n * 7919 % files
		c := content(i, n)
		msg := fmt.Sprintf("change %d", n)
		fmt.Fprintf(w, "commit refs/heads/master\ncommitter load <load@example.com> %d +0000\ndata %d\n%s\nM 100644 inline app%05d.yml\ndata %d\n%s\n\n",
			when+int64(n), len(msg), msg, i, len(c), c)
	}
	err = w.Flush()
	if cerr := in.Close(); err == nil {
		err = cerr
	}
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("git fast-import: %v %s", werr, stderr.String())
	}
	if err != nil {
		return err
	}
	for _, args := range [][]string{{"gc", "-q"}, {"reset", "-q", "--hard"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v %s", args[0], err, out)
		}
	}
	return nil
}

// commitFile writes one file and commits it, as a person does.
func commitFile(repo, name, content string) error {
	if err := os.WriteFile(filepath.Join(repo, name), []byte(content), 0o644); err != nil {
		return err
	}
	cmd := exec.Command("git", "-C", repo, "-c", "user.name=load", "-c", "user.email=load@example.com", "commit", "-q", "-m", "change", "--", name)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git commit: %v %s", err, out)
	}
	return nil
}

func getBody(client *http.Client, url string) (string, error) {
	resp, err := client.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return string(b), err
}

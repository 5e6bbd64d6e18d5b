package harness

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
)

// The feature files that hold a long scenario start first, then those with a serial one, then the others.
func TestFeaturePathsStartTheFilesWithLongThenSerialScenariosFirst(t *testing.T) {
	cat, err := catalog.Load(features.FS)
	if err != nil {
		t.Fatal(err)
	}
	paths := featurePaths(cat, cat.Areas(features.Areas))
	var files []string
	for _, s := range cat.Scenarios {
		if !slices.Contains(files, s.URI) {
			files = append(files, s.URI)
		}
	}
	if len(paths) != len(files) {
		t.Fatalf("paths %v, want each of %v once", paths, files)
	}
	group := func(uri string) int {
		switch {
		case fileHas(cat, uri, features.LongTag):
			return 0
		case fileHas(cat, uri, features.SerialTag):
			return 1
		}
		return 2
	}
	for i := 1; i < len(paths); i++ {
		if group(paths[i-1]) > group(paths[i]) {
			t.Errorf("%s starts after %s: %v", paths[i], paths[i-1], paths)
		}
	}
	if group(paths[0]) != 0 || !slices.ContainsFunc(paths, func(p string) bool { return group(p) == 1 }) {
		t.Errorf("paths %v: want the files with long scenarios first, and files with serial ones (the features hold both)", paths)
	}
}

// The scenarios tagged @long are ranked first, the others in the order of the feature paths; each scenario once.
func TestOrderRanksTheLongScenariosFirst(t *testing.T) {
	cat, err := catalog.Load(features.FS)
	if err != nil {
		t.Fatal(err)
	}
	ranked := order(cat, cat.Areas(features.Areas))
	if len(ranked) != len(cat.Scenarios) {
		t.Fatalf("%d scenarios ranked, want %d", len(ranked), len(cat.Scenarios))
	}
	long := 0
	for i, s := range ranked {
		if s.HasTag(features.LongTag) {
			if i != long {
				t.Errorf("%s is long but ranked %d, after %s", s.ID(), i, ranked[i-1].ID())
			}
			long++
		}
	}
	if long == 0 {
		t.Error("no scenario is tagged @long: the lockout window's scenario waits out 10 s")
	}
}

func scenario(uri, name string, tags ...string) catalog.Scenario {
	return catalog.Scenario{URI: uri, Name: name, Tags: tags}
}

// entered waits for a scenario's place on its own goroutine and reports it on the channel it returns.
func entered(t *testing.T, s *scheduler, ctx context.Context, sc catalog.Scenario) <-chan func() {
	t.Helper()
	ch := make(chan func(), 1)
	go func() {
		leave, err := s.enter(ctx, sc)
		if err == nil {
			ch <- leave
		}
	}()
	return ch
}

func mustRun(t *testing.T, what string, ch <-chan func()) func() {
	t.Helper()
	select {
	case leave := <-ch:
		return leave
	case <-time.After(5 * time.Second):
		t.Fatalf("%s did not get its place", what)
		return nil
	}
}

func mustWait(t *testing.T, what string, ch <-chan func()) {
	t.Helper()
	select {
	case <-ch:
		t.Fatalf("%s got a place", what)
	case <-time.After(50 * time.Millisecond):
	}
}

// A free place goes to the best ranked waiting scenario, whatever the order of asking.
func TestTheSchedulerGivesAFreePlaceByRank(t *testing.T) {
	ranked := []catalog.Scenario{scenario("a.feature", "one"), scenario("b.feature", "two"), scenario("a.feature", "three")}
	s := newScheduler(1, ranked)
	ctx := context.Background()
	leave := mustRun(t, "the first to ask", entered(t, s, ctx, ranked[1]))
	third := entered(t, s, ctx, ranked[2])
	mustWait(t, "a scenario with every place taken", third)
	first := entered(t, s, ctx, ranked[0])
	mustWait(t, "a scenario with every place taken", first)
	leave()
	leave = mustRun(t, "the best ranked", first)
	mustWait(t, "the worse ranked", third)
	leave()
	mustRun(t, "the last one", third)
}

// A serial scenario that waits for its feature's running one holds no place: a scenario of another feature
// and one of its own take the free ones. It runs once none of its feature's runs, and the scenarios of its
// feature that ask meanwhile wait for it.
func TestASerialScenarioWaitsWithoutAPlace(t *testing.T) {
	shared := scenario("a.feature", "shared")
	serial := scenario("a.feature", "serial", features.SerialTag)
	later := scenario("a.feature", "later")
	other := scenario("b.feature", "other")
	last := scenario("a.feature", "last")
	s := newScheduler(3, []catalog.Scenario{shared, serial, later, other, last})
	ctx := context.Background()
	leaveShared := mustRun(t, "the first", entered(t, s, ctx, shared))
	serialCh := entered(t, s, ctx, serial)
	mustWait(t, "the serial scenario beside its feature's", serialCh)
	leaveLater := mustRun(t, "a scenario of the serial one's feature, with places free", entered(t, s, ctx, later))
	leaveOther := mustRun(t, "another feature's scenario", entered(t, s, ctx, other))
	leaveShared()
	mustWait(t, "the serial scenario beside its feature's", serialCh)
	leaveLater()
	leaveSerial := mustRun(t, "the serial scenario once its feature's had ended", serialCh)
	lastCh := entered(t, s, ctx, last)
	mustWait(t, "a scenario beside a serial one of its feature", lastCh)
	leaveOther()
	leaveSerial()
	mustRun(t, "a scenario once the serial one had ended", lastCh)
}

// A scenario whose context ends while it waits returns the context's error and takes no place.
func TestAWaitEndsWithItsContext(t *testing.T) {
	a, b := scenario("a.feature", "a"), scenario("a.feature", "b")
	s := newScheduler(1, []catalog.Scenario{a, b})
	leave := mustRun(t, "the first", entered(t, s, context.Background(), a))
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := s.enter(ctx, b); errc <- err }()
	time.Sleep(20 * time.Millisecond) // b waits now (if not, the test proves less, never fails)
	cancel()
	if err := <-errc; err != context.Canceled {
		t.Errorf("enter = %v, want the context's error", err)
	}
	leave()
	mustRun(t, "a scenario after one gave up waiting", entered(t, s, context.Background(), b))
}

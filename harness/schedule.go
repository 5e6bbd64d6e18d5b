package harness

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
)

// featurePaths are the feature files of the areas, as godog's paths, in the order in which the scenarios
// mostly ask the scheduler for a place (godog starts them in this order): the files that hold a @long scenario
// first, then those that hold a @serial one, then the others, each group in area and file order. Started early,
// a long scenario's wait and a serial scenario's wait for its feature's others overlap the later scenarios
// instead of being the run's tail.
func featurePaths(cat *catalog.Catalog, areas []features.Area) []string {
	var long, serial, others []string
	for _, a := range areas {
		for _, s := range cat.Scenarios {
			if s.Area != a || slices.Contains(long, s.URI) || slices.Contains(serial, s.URI) || slices.Contains(others, s.URI) {
				continue
			}
			switch {
			case fileHas(cat, s.URI, features.LongTag):
				long = append(long, s.URI)
			case fileHas(cat, s.URI, features.SerialTag):
				serial = append(serial, s.URI)
			default:
				others = append(others, s.URI)
			}
		}
	}
	return slices.Concat(long, serial, others)
}

// fileHas tells whether a scenario of a feature file has the tag.
func fileHas(cat *catalog.Catalog, uri, tag string) bool {
	for _, s := range cat.Scenarios {
		if s.URI == uri && s.HasTag(tag) {
			return true
		}
	}
	return false
}

// order ranks the scenarios of the areas for the scheduler: those tagged @long first (they wait out a period
// of the target's; started late, their wait would end the run), then the others, each in the order of
// featurePaths and of their files.
func order(cat *catalog.Catalog, areas []features.Area) []catalog.Scenario {
	var long, rest []catalog.Scenario
	for _, uri := range featurePaths(cat, areas) {
		for _, s := range cat.Scenarios {
			switch {
			case s.URI != uri:
			case s.HasTag(features.LongTag):
				long = append(long, s)
			default:
				rest = append(rest, s)
			}
		}
	}
	return append(long, rest...)
}

// scheduler gives the scenarios of a run their places, at most places of them running at once: each waits
// in its Before hook for its place (enter), which it gives back when it ends, and a free place goes to the best
// ranked (order) of the scenarios waiting. godog starts scenarios in the order of featurePaths, a few more at
// once than there are places (runGodog), and the scheduler, not godog, decides which of them run. A scenario
// that waits holds no place: a serial scenario (@serial), which runs once no other scenario of its feature
// runs, leaves its place to the others while it waits, its feature's included, and runs once they have ended.
// (Were the scenarios of its feature started after it held back, they would wait in godog's few extra places
// too, and the run would stand still until the feature's running scenarios ended.)
type scheduler struct {
	mu       sync.Mutex
	free     int            // places left
	rank     map[string]int // by scenario ID
	waiting  []*ticket      // by rank
	features map[string]*featureUse
}

// ticket is one scenario's request for a place.
type ticket struct {
	uri    string // its feature file
	rank   int
	serial bool
	ready  chan struct{} // closed when it has its place
}

// featureUse is what a feature's scenarios hold: places side by side (shared) or a serial one alone.
type featureUse struct {
	shared int
	alone  bool
}

// newScheduler gives places places to the scenarios, ranked.
func newScheduler(places int, ranked []catalog.Scenario) *scheduler {
	s := &scheduler{free: max(places, 1), rank: map[string]int{}, features: map[string]*featureUse{}}
	for i, sc := range ranked {
		s.rank[sc.ID()] = i
	}
	return s
}

// enter waits until the scenario may run and returns how to give its place back; it returns ctx's error when
// ctx ends first.
func (s *scheduler) enter(ctx context.Context, sc catalog.Scenario) (leave func(), err error) {
	rank, ok := s.rank[sc.ID()]
	if !ok {
		rank = len(s.rank) // not ranked: after the others
	}
	t := &ticket{uri: sc.URI, rank: rank, serial: sc.HasTag(features.SerialTag), ready: make(chan struct{})}
	s.mu.Lock()
	i, _ := slices.BinarySearchFunc(s.waiting, rank, func(w *ticket, r int) int { return cmp.Compare(w.rank, r) })
	s.waiting = slices.Insert(s.waiting, i, t)
	s.admit()
	s.mu.Unlock()
	select {
	case <-t.ready:
		return func() { s.leave(t) }, nil
	case <-ctx.Done():
		s.mu.Lock()
		defer s.mu.Unlock()
		if i := slices.Index(s.waiting, t); i >= 0 {
			s.waiting = slices.Delete(s.waiting, i, i+1)
		} else {
			s.release(t) // it got its place meanwhile
		}
		return nil, ctx.Err()
	}
}

func (s *scheduler) leave(t *ticket) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.release(t)
}

// release gives back the place of a scenario that had one and hands out the free places.
func (s *scheduler) release(t *ticket) {
	f := s.features[t.uri]
	if t.serial {
		f.alone = false
	} else {
		f.shared--
	}
	s.free++
	s.admit()
}

// admit gives free places to the waiting scenarios that may run, best ranked first.
func (s *scheduler) admit() {
	s.waiting = slices.DeleteFunc(s.waiting, func(t *ticket) bool {
		if s.free == 0 || !s.mayRun(t) {
			return false
		}
		s.free--
		close(t.ready)
		return true
	})
}

// mayRun tells whether a scenario's feature lets it run now, and if so counts it in.
func (s *scheduler) mayRun(t *ticket) bool {
	f := s.features[t.uri]
	if f == nil {
		f = &featureUse{}
		s.features[t.uri] = f
	}
	switch {
	case f.alone || t.serial && f.shared > 0:
		return false
	case t.serial:
		f.alone = true
	default:
		f.shared++
	}
	return true
}

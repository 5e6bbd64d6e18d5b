package harness

import (
	"slices"
	"sync"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
)

// featurePaths are the feature files of the areas, as godog's paths, in the order godog is to start their
// scenarios: godog starts them strictly in the order of its paths and, within a file, of the file. The files
// that hold a @serial scenario come first, each area's in file order, then the others in area order. A serial
// scenario waits until no other scenario of its feature runs (featureLock); started early, it waits while the
// rest of its feature runs, and then runs while the scenarios of the later files fill the other places. Started
// last, it and its wait would be the run's tail, with nothing else to run beside them.
func featurePaths(cat *catalog.Catalog, areas []features.Area) []string {
	var serial, others []string
	for _, a := range areas {
		for _, s := range cat.Scenarios {
			if s.Area != a || slices.Contains(serial, s.URI) || slices.Contains(others, s.URI) {
				continue
			}
			if hasSerial(cat, s.URI) {
				serial = append(serial, s.URI)
			} else {
				others = append(others, s.URI)
			}
		}
	}
	return append(serial, others...)
}

func hasSerial(cat *catalog.Catalog, uri string) bool {
	for _, s := range cat.Scenarios {
		if s.URI == uri && s.HasTag(features.SerialTag) {
			return true
		}
	}
	return false
}

// featureLock lets the scenarios of a feature run side by side (shared) and a serial one with none of its
// feature's others (alone). Unlike sync.RWMutex, a serial scenario that waits does not hold back the shared
// ones that godog starts after it: godog gives every scenario it starts one of its places (Concurrency) until
// it ends, so behind a waiting writer every place would fill with scenarios that wait too, and the run would
// stand still until the feature's running scenarios ended. A serial scenario runs once no other scenario of
// its feature runs, at the latest when the feature's last one has ended.
type featureLock struct {
	mu      sync.Mutex
	changed *sync.Cond
	shared  int  // scenarios running side by side
	alone   bool // a serial scenario runs
}

func newFeatureLock() *featureLock {
	l := &featureLock{}
	l.changed = sync.NewCond(&l.mu)
	return l
}

func (l *featureLock) lockShared() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.alone {
		l.changed.Wait()
	}
	l.shared++
}

func (l *featureLock) unlockShared() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.shared--
	l.changed.Broadcast()
}

func (l *featureLock) lockAlone() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.alone || l.shared > 0 {
		l.changed.Wait()
	}
	l.alone = true
}

func (l *featureLock) unlockAlone() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.alone = false
	l.changed.Broadcast()
}

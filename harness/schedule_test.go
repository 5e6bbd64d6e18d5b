package harness

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fortune-tck/fortune-tck/features"
	"github.com/fortune-tck/fortune-tck/harness/catalog"
)

// The feature files that hold a serial scenario start first; the others keep the order of their areas and files.
func TestFeaturePathsStartTheFilesWithSerialScenariosFirst(t *testing.T) {
	cat, err := catalog.Load(features.FS)
	if err != nil {
		t.Fatal(err)
	}
	areas := cat.Areas(features.Areas)
	paths := featurePaths(cat, areas)
	var files []string
	for _, s := range cat.Scenarios {
		if !slices.Contains(files, s.URI) {
			files = append(files, s.URI)
		}
	}
	if len(paths) != len(files) {
		t.Fatalf("paths %v, want each of %v once", paths, files)
	}
	seenPlain := false
	for _, p := range paths {
		serial := hasSerial(cat, p)
		if serial && seenPlain {
			t.Errorf("%s holds a serial scenario but starts after a file without one: %v", p, paths)
		}
		seenPlain = seenPlain || !serial
	}
	if !hasSerial(cat, paths[0]) {
		t.Errorf("no file with a serial scenario first: %v (the features hold @serial scenarios)", paths)
	}
}

// A serial scenario that waits holds back no scenario of its feature started after it, and runs once none runs;
// scenarios started while it runs wait for it.
func TestFeatureLockLetsSharedScenariosPassAWaitingSerialOne(t *testing.T) {
	l := newFeatureLock()
	l.lockShared()
	aloneHeld := make(chan struct{})
	go func() { l.lockAlone(); close(aloneHeld) }()
	time.Sleep(20 * time.Millisecond) // the serial scenario is waiting now (if it is not, the test proves less, never fails)
	shared := make(chan struct{})
	go func() { l.lockShared(); close(shared) }()
	select {
	case <-shared:
	case <-time.After(5 * time.Second):
		t.Fatal("a shared scenario waited behind a serial one that waits")
	}
	select {
	case <-aloneHeld:
		t.Fatal("the serial scenario ran beside two others")
	case <-time.After(20 * time.Millisecond):
	}
	l.unlockShared()
	l.unlockShared()
	select {
	case <-aloneHeld:
	case <-time.After(5 * time.Second):
		t.Fatal("the serial scenario did not run once the others had ended")
	}
	var wg sync.WaitGroup
	entered := make(chan string, 2)
	wg.Add(2)
	go func() { defer wg.Done(); l.lockShared(); entered <- "shared"; l.unlockShared() }()
	go func() { defer wg.Done(); l.lockAlone(); entered <- "alone"; l.unlockAlone() }()
	select {
	case who := <-entered:
		t.Fatalf("a %s scenario ran beside a serial one", who)
	case <-time.After(20 * time.Millisecond):
	}
	l.unlockAlone()
	wg.Wait()
}

package lru

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func TestGetAdd(t *testing.T) {
	c := New[string, int](2)
	if _, ok := c.Get("a", t0); ok {
		t.Fatal("hit in an empty cache")
	}
	c.Add("a", 1, t0.Add(time.Minute))
	c.Add("a", 2, t0.Add(time.Minute))
	if v, ok := c.Get("a", t0); !ok || v != 2 || c.Len() != 1 {
		t.Fatalf("a = %d, %v; len %d", v, ok, c.Len())
	}
}

func TestEvictsTheLeastRecentlyUsed(t *testing.T) {
	c := New[string, int](2)
	late := t0.Add(time.Hour)
	c.Add("a", 1, late)
	c.Add("b", 2, late)
	c.Get("a", t0) // b is now the least recently used
	c.Add("c", 3, late)
	if _, ok := c.Get("b", t0); ok {
		t.Error("b should have been evicted")
	}
	for _, k := range []string{"a", "c"} {
		if _, ok := c.Get(k, t0); !ok {
			t.Errorf("%s evicted", k)
		}
	}
	if c.Len() != 2 {
		t.Errorf("len %d, want the bound 2", c.Len())
	}
}

func TestExpires(t *testing.T) {
	c := New[string, int](4)
	c.Add("a", 1, t0.Add(time.Second))
	if _, ok := c.Get("a", t0.Add(999*time.Millisecond)); !ok {
		t.Fatal("expired early")
	}
	if _, ok := c.Get("a", t0.Add(time.Second)); ok {
		t.Fatal("served at its deadline")
	}
	if c.Len() != 0 {
		t.Fatal("expired entry kept")
	}
}

func TestTouch(t *testing.T) {
	c := New[string, int](4)
	c.Add("a", 1, t0.Add(time.Second))
	if v, ok := c.Touch("a", t0, t0.Add(time.Hour)); !ok || v != 1 {
		t.Fatal("touch missed a live entry")
	}
	if _, ok := c.Get("a", t0.Add(time.Minute)); !ok {
		t.Fatal("the deadline did not move")
	}
	if _, ok := c.Touch("a", t0.Add(time.Hour), t0.Add(2*time.Hour)); ok {
		t.Fatal("touch revived an expired entry")
	}
	if _, ok := c.Touch("b", t0, t0.Add(time.Hour)); ok || c.Len() != 0 {
		t.Fatal("touch added an entry")
	}
}

func TestRemoveAndMinimumSize(t *testing.T) {
	c := New[int, int](0)
	c.Add(1, 1, t0.Add(time.Hour))
	c.Add(2, 2, t0.Add(time.Hour))
	if c.Len() != 1 {
		t.Fatalf("len %d, want 1", c.Len())
	}
	c.Remove(2)
	c.Remove(3)
	if c.Len() != 0 {
		t.Fatalf("len %d after remove", c.Len())
	}
}

func TestConcurrentUse(t *testing.T) {
	c := New[string, int](16)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				k := fmt.Sprint(g, i%32)
				c.Add(k, i, t0.Add(time.Hour))
				c.Get(k, t0)
				if i%7 == 0 {
					c.Remove(k)
				}
			}
		})
	}
	wg.Wait()
	if c.Len() > 16 {
		t.Fatalf("len %d over the bound", c.Len())
	}
}

// An entry added to last Never is kept at any time, until it is the least recently used of a full cache.
func TestAnEntryThatNeverExpiresLeavesOnlyByEviction(t *testing.T) {
	c := New[int, string](2)
	c.Add(1, "a", Never)
	c.Add(2, "b", Never)
	far := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	if v, ok := c.Get(1, far); !ok || v != "a" { // 2 is now the least recently used
		t.Fatalf("Get(1) = %q, %v", v, ok)
	}
	c.Add(3, "c", Never)
	if _, ok := c.Get(2, far); ok || c.Len() != 2 {
		t.Fatalf("len %d, the least recently used entry still present: %v", c.Len(), ok)
	}
}

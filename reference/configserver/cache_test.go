package configserver

import "testing"

func TestLRUIsBounded(t *testing.T) {
	c := newLRU[int, string](2)
	c.put(1, "a")
	c.put(2, "b")
	c.get(1) // 2 is now the least recently used
	c.put(3, "c")
	if _, ok := c.get(2); ok || c.len() != 2 {
		t.Fatalf("len %d, evicted entry still present: %v", c.len(), ok)
	}
	if v, ok := c.get(1); !ok || v != "a" {
		t.Fatalf("get(1) = %q, %v", v, ok)
	}
	c.put(1, "z")
	if v, _ := c.get(1); v != "z" || c.len() != 2 {
		t.Fatalf("replace: %q len %d", v, c.len())
	}
}

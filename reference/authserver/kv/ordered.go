package kv

import (
	"slices"
	"sort"
)

// maxChunk bounds a chunk of orderedKeys: an insert or delete moves at
// most this many keys within the chunk and one chunk header in the list.
const maxChunk = 512

// orderedKeys is the sorted set of a Memory bucket's keys, so that Range
// and Scan seek to their first key and read on from there (bbolt's cursor,
// PostgreSQL's index) instead of sorting the whole bucket on every call. It
// is a list of sorted chunks, each non-empty and at most maxChunk long: a
// B-tree of height two, enough for a million keys (two binary searches,
// then a copy of at most maxChunk strings).
type orderedKeys struct {
	chunks [][]string
}

// locate returns the chunk that holds k or would hold it, and k's place in
// it.
func (o *orderedKeys) locate(k string) (ci, i int, found bool) {
	ci = sort.Search(len(o.chunks), func(c int) bool {
		chunk := o.chunks[c]
		return chunk[len(chunk)-1] >= k
	})
	if ci == len(o.chunks) {
		if ci == 0 {
			return 0, 0, false
		}
		ci--
		return ci, len(o.chunks[ci]), false
	}
	i, found = slices.BinarySearch(o.chunks[ci], k)
	return ci, i, found
}

// insert adds k; it is a no-op when k is there.
func (o *orderedKeys) insert(k string) {
	if len(o.chunks) == 0 {
		o.chunks = [][]string{{k}}
		return
	}
	ci, i, found := o.locate(k)
	if found {
		return
	}
	chunk := slices.Insert(o.chunks[ci], i, k)
	if len(chunk) <= maxChunk {
		o.chunks[ci] = chunk
		return
	}
	half := len(chunk) / 2
	// The first half is a copy: sharing the second's array, an insert into
	// it would overwrite the second.
	o.chunks[ci] = slices.Clone(chunk[:half])
	o.chunks = slices.Insert(o.chunks, ci+1, chunk[half:])
}

// delete removes k; it is a no-op when k is absent.
func (o *orderedKeys) delete(k string) {
	ci, i, found := o.locate(k)
	if !found {
		return
	}
	chunk := slices.Delete(o.chunks[ci], i, i+1)
	if len(chunk) == 0 {
		o.chunks = slices.Delete(o.chunks, ci, ci+1)
		return
	}
	o.chunks[ci] = chunk
}

// collect returns the keys from start (included) to end (excluded; "" for
// no end), at most limit of them (limit <= 0: all).
func (o *orderedKeys) collect(start, end string, limit int) []string {
	var keys []string
	ci, i, _ := o.locate(start)
	for ; ci < len(o.chunks); ci, i = ci+1, 0 {
		for _, k := range o.chunks[ci][i:] {
			if (end != "" && k >= end) || (limit > 0 && len(keys) >= limit) {
				return keys
			}
			keys = append(keys, k)
		}
	}
	return keys
}

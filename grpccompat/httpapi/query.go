package httpapi

import (
	"slices"
	"sync"
)

var copyBufs = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

func sortIDs(ids []int32) { slices.Sort(ids) }

// intersect returns the ids in both sorted lists, sorted. One package's blobs against a whole
// schema's is the common case, so a much shorter list is searched for in the longer one rather
// than merged with it: a query costs the size of its answer, not of the catalog.
func intersect(a, b []int32) []int32 {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) == 0 {
		return nil
	}
	out := make([]int32, 0, len(a))
	if len(b) > 16*len(a) {
		rest := b
		for _, id := range a {
			i, found := slices.BinarySearch(rest, id)
			if found {
				out = append(out, id)
			}
			rest = rest[i:]
		}
		return out
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

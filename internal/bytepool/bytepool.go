// Package bytepool recycles byte buffers by size class, for code that allocates many short-lived
// buffers of a few kilobytes to a few megabytes (blobs read from a catalog, encoded records). A
// buffer that is not given back is collected as usual; giving back is an optimization only.
//
// Recycling matters to the garbage collector's pace, not just to allocation time: the collector
// runs each time the heap has grown by a fraction of what is live, so every byte not allocated
// postpones a collection, and on a large live heap each collection costs more.
package bytepool

import (
	"math/bits"
	"sync"
)

const (
	minShift = 9  // 512 B: smaller buffers are not worth keeping
	maxShift = 26 // 64 MiB: larger ones are rare and would pin too much
)

// classes[i] holds buffers whose capacity is at least 1<<(minShift+i).
var classes [maxShift - minShift + 1]sync.Pool

// Get returns an empty buffer with a capacity of at least n: a recycled one when one of that size
// class is at hand, else a new one of capacity exactly n (so that a buffer the caller keeps wastes
// nothing).
func Get(n int) []byte {
	if n <= 1<<maxShift {
		shift := max(minShift, bits.Len(uint(max(n, 1)-1))) // smallest class whose buffers all fit n
		if p, ok := classes[shift-minShift].Get().(*[]byte); ok {
			return (*p)[:0]
		}
	}
	return make([]byte, 0, n)
}

// Put gives b back for reuse. The caller must hold no reference to b's memory afterwards: not b,
// not a slice of it, not a string made from it without copying.
func Put(b []byte) {
	c := cap(b)
	if c < 1<<minShift {
		return
	}
	shift := min(bits.Len(uint(c))-1, maxShift) // largest class all of b fits
	b = b[:0]
	classes[shift-minShift].Put(&b)
}

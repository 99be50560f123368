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

// Buffers come in classes of four sizes per doubling (512, 640, 768, 896, 1024, 1280, ...), so
// that a new buffer, made at its class's size, goes back to the class it came from, and at most a
// fifth of it is more than was asked for.
const (
	minShift   = 9  // 512 B: smaller buffers are not worth keeping
	maxShift   = 26 // 64 MiB: larger ones are rare and would pin too much
	stepsShift = 2  // 1<<stepsShift sizes per doubling
	minSize    = 1 << minShift
	maxSize    = 1 << maxShift
)

var classes [(maxShift-minShift)<<stepsShift + 1]sync.Pool

// classSize is the buffer size of class k.
func classSize(k int) int {
	if k == 0 {
		return minSize
	}
	e := minShift + (k-1)>>stepsShift
	step := (k-1)&(1<<stepsShift-1) + 1
	return 1<<e + step<<(e-stepsShift)
}

// classOf is the smallest class whose size is at least n (n <= maxSize).
func classOf(n int) int {
	if n <= minSize {
		return 0
	}
	e := bits.Len(uint(n-1)) - 1 // 1<<e < n <= 1<<(e+1)
	step := (n - 1<<e + 1<<(e-stepsShift) - 1) >> (e - stepsShift)
	return (e-minShift)<<stepsShift + step
}

// fitOf is the largest class whose size is at most c (minSize <= c).
func fitOf(c int) int {
	e := bits.Len(uint(c)) - 1 // 1<<e <= c < 1<<(e+1)
	step := (c - 1<<e) >> (e - stepsShift)
	return (e-minShift)<<stepsShift + step
}

// Get returns an empty buffer with a capacity of at least n: a recycled one of n's class, or of a
// class up to twice its size, when one is at hand; else a new one of the class's size.
func Get(n int) []byte {
	if n > maxSize {
		return make([]byte, 0, n)
	}
	k := classOf(n)
	for c := k; c < min(k+1<<stepsShift, len(classes)); c++ { // up to twice the size asked for
		if p, ok := classes[c].Get().(*[]byte); ok {
			return (*p)[:0]
		}
	}
	return make([]byte, 0, classSize(k))
}

// Put gives b back for reuse. The caller must hold no reference to b's memory afterwards: not b,
// not a slice of it, not a string made from it without copying.
func Put(b []byte) {
	c := cap(b)
	if c < minSize || c > maxSize {
		return
	}
	b = b[:0]
	classes[fitOf(c)].Put(&b)
}

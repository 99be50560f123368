package main

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// largeHeap is the live heap past which compat collects at the default pace or slower (s5k and
// gen-s5k stay under 110 MB; gen-s50k reaches 776 MB).
var largeHeap uint64 = 256 << 20

// compatGC sets the collector's pace for a compat run and returns the function that restores it.
//
// What stays live is small next to what decoding answers allocates and drops, so collecting more
// often than Go's default (GOGC 70) keeps the peak about a fifth lower on s5k (277 -> 235 MB). But
// the number of collections follows the allocation, and marking a megabyte of live heap costs
// about twice the CPU once the heap is a few hundred megabytes (gctrace: 0.36 ms/MB at gen-s5k,
// 0.73 ms/MB at gen-s50k), so at that pace the collector's share grows faster than the catalog:
// 12.2x the CPU for 10x the bundles. Past largeHeap compat collects at GOGC 120, which keeps
// both time and memory about linear. A GOGC set by the user wins.
func compatGC() (restore func()) { return paceGC(70, 120, largeHeap) }

// validateLargeHeap is the live heap past which validate stops collecting at its lazy pace. s5k
// keeps 16 MB live; a catalog template of tens of MB keeps a few hundred MB live, and at GOGC 400
// the process grew to about 16 times the file (a 49 MB semver template: 866 MB; 404 MB now).
var validateLargeHeap uint64 = 48 << 20

// validateGC: validation allocates and drops one blob after another, and collecting less often
// saves about 15% CPU on large catalogs for a few tens of MB, as long as what stays live is small.
// Since validate keeps each bundle's required APIs and packages to the end (issue 34's rules), GOGC
// 400 peaked at 77-83 MB on s5k; 250 peaks at 69-75 MB in the same wall time (4 runs in turns).
func validateGC() (restore func()) { return paceGC(validateSmallHeapGOGC, 100, validateLargeHeap) }

// validateSmallHeapGOGC is validate's pace while its live heap is small.
const validateSmallHeapGOGC = 250

// filterGC: filter from an index.db holds a few packages (s5k: about 10 MB live, 22 MB at ten
// times its size) and allocates and drops every row and bundle it reads; collecting half as often
// takes about a tenth off its time for about 8 MB more, and the peak still follows what is live,
// not the catalog. From an FBC directory it saves nothing (fewer, larger allocations).
func filterGC() (restore func()) { return paceGC(200, 100, validateLargeHeap) }

// paceGC collects at GOGC small until the live heap passes threshold, then at large, and returns
// the function that restores the pace it found. A GOGC set by the user wins.
func paceGC(small, large int, threshold uint64) (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	previous := debug.SetGCPercent(small)
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			metrics.Read(live)
			if live[0].Value.Kind() == metrics.KindUint64 && live[0].Value.Uint64() > threshold {
				debug.SetGCPercent(large)
				return
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		debug.SetGCPercent(previous)
	}
}

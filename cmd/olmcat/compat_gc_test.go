package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// compat collects at GOGC 70 until the live heap is large, then at 120, and restores the pace it
// found; a GOGC set by the user is left alone.
func TestCompatGCPace(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	defer func(saved uint64) { largeHeap = saved }(largeHeap)

	largeHeap = 1 << 50
	restore := compatGC()
	if got := gcPercent(); got != 70 {
		t.Errorf("GOGC %d during a run on a small heap, want 70", got)
	}
	restore()
	if got := gcPercent(); got != 100 {
		t.Errorf("GOGC %d after the run, want the 100 it found", got)
	}

	largeHeap = 1 // any live heap is large
	runtime.GC()  // the live heap is measured by a collection
	restore = compatGC()
	deadline := time.Now().Add(5 * time.Second)
	for gcPercent() != 120 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := gcPercent(); got != 120 {
		t.Errorf("GOGC %d on a large heap, want 120", got)
	}
	restore()
	if got := gcPercent(); got != 100 {
		t.Errorf("GOGC %d after the run, want the 100 it found", got)
	}

	t.Setenv("GOGC", "50")
	restore = compatGC()
	if got := gcPercent(); got != 100 {
		t.Errorf("GOGC set by the user: compat changed the pace to %d", got)
	}
	restore()
}

// validate collects lazily (validateSmallHeapGOGC) while the live heap is small, at the default pace once it
// is large (a big template), and restores the pace it found.
func TestValidateGCPace(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	defer func(saved uint64) { validateLargeHeap = saved }(validateLargeHeap)

	validateLargeHeap = 1 << 50
	restore := validateGC()
	if got := gcPercent(); got != validateSmallHeapGOGC {
		t.Errorf("GOGC %d while validating on a small heap, want %d", got, validateSmallHeapGOGC)
	}
	restore()

	validateLargeHeap = 1
	runtime.GC()
	restore = validateGC()
	deadline := time.Now().Add(5 * time.Second)
	for gcPercent() != 100 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := gcPercent(); got != 100 {
		t.Errorf("GOGC %d while validating on a large heap, want 100", got)
	}
	restore()
	if got := gcPercent(); got != 100 {
		t.Errorf("GOGC %d after the run, want the 100 it found", got)
	}
}

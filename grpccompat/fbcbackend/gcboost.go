package fbcbackend

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// While the index is built most allocations die young (blobs, converted bundles) and the live
// heap stays small, so the default GOGC=100 collects every few megabytes: 45 collections for a
// 5,000-bundle catalog. A boost lets the heap grow to boostHeap before collecting, as long as the
// live heap stays under boostLive (checked as the build goes: a large catalog falls back to the
// process's settings instead of collecting continuously against the limit). The settings are
// restored when the last build ends. GOGC or GOMEMLIMIT set by the user win.
const (
	boostHeap = 72 << 20
	boostLive = boostHeap / 2
)

var boost struct {
	sync.Mutex
	builds  int
	active  bool
	percent int
	limit   int64
}

type gcBoost struct{ blobs int }

// restoreGC is called with boost locked.
func restoreGC() {
	debug.SetGCPercent(boost.percent)
	debug.SetMemoryLimit(boost.limit)
	boost.active = false
}

func boostGC() *gcBoost {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	boost.Lock()
	defer boost.Unlock()
	boost.builds++
	if boost.builds == 1 {
		if limit := debug.SetMemoryLimit(-1); limit > boostHeap {
			boost.limit, boost.percent, boost.active = limit, debug.SetGCPercent(400), true
			debug.SetMemoryLimit(boostHeap)
		}
	}
	return &gcBoost{}
}

var liveHeap = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}

// blob is called for every blob the build reads.
func (g *gcBoost) blob() {
	if g == nil {
		return
	}
	if g.blobs++; g.blobs%64 != 0 {
		return
	}
	boost.Lock()
	defer boost.Unlock()
	metrics.Read(liveHeap)
	if boost.active && liveHeap[0].Value.Kind() == metrics.KindUint64 && liveHeap[0].Value.Uint64() > boostLive {
		restoreGC()
	}
}

func (g *gcBoost) end() {
	if g == nil {
		return
	}
	boost.Lock()
	defer boost.Unlock()
	if boost.builds--; boost.builds == 0 && boost.active {
		restoreGC()
	}
}

package fbcbackend

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// While the index is built most allocations die young (blobs, converted bundles) and the live
// heap stays small, so the default GOGC=100 collects every few megabytes: 45 collections for a
// 5,000-bundle catalog. A boost lets the heap grow to boostHeap before collecting, as long as the
// live heap stays under boostLive (checked as the build goes).
//
// Past boostLive (a catalog of about 5,000 bundles and more) the build goes on at GOGC
// largeBuildPercent rather than 100, not against a limit (which would collect continuously). The
// collector marks the whole live heap once per heap's worth of growth, so the headroom it gets
// over the live heap decides what a megabyte of catalog costs: under the boost a 5,000-bundle
// build gets about 1.3x its live heap; at GOGC=100 a 50,000-bundle one would get 1x, and its build
// took 12.6x the CPU of the small one's. At 150 the cost per bundle stays flat (10.0x for 10x the
// bundles), for a peak heap of 2.5x the live one instead of 2x while the build runs.
//
// The settings are restored when the last build ends. GOGC or GOMEMLIMIT set by the user win.
const (
	boostHeap         = 72 << 20
	largeBuildPercent = 150
)

var boostLive uint64 = boostHeap / 2 // a variable for tests

var boost struct {
	sync.Mutex
	builds  int
	active  bool
	large   bool // past boostLive: at largeBuildPercent, without the limit
	percent int
	limit   int64
}

type gcBoost struct{ blobs int }

// restoreGC is called with boost locked.
func restoreGC() {
	debug.SetGCPercent(boost.percent)
	debug.SetMemoryLimit(boost.limit)
	boost.active, boost.large = false, false
}

func boostGC() *gcBoost {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	boost.Lock()
	defer boost.Unlock()
	boost.builds++
	if boost.builds == 1 && defaultPace() {
		boost.limit, boost.percent, boost.active = debug.SetMemoryLimit(boostHeap), debug.SetGCPercent(400), true
	}
	return &gcBoost{}
}

var paceSettings = []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}

// defaultPace reports whether the collector runs at Go's defaults: a pace the program set (compat
// sets its own) is left alone, like one set by the user.
func defaultPace() bool {
	metrics.Read(paceSettings)
	for _, s := range paceSettings {
		if s.Value.Kind() != metrics.KindUint64 {
			return false
		}
	}
	return paceSettings[0].Value.Uint64() == 100 && paceSettings[1].Value.Uint64() == math.MaxInt64
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
	if boost.active && !boost.large && liveHeap[0].Value.Kind() == metrics.KindUint64 && liveHeap[0].Value.Uint64() > boostLive {
		debug.SetMemoryLimit(boost.limit)
		debug.SetGCPercent(largeBuildPercent)
		boost.large = true
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

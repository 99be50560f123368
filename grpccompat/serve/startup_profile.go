package serve

import (
	"bytes"
	"log/slog"
	"net/http"
	"runtime/pprof"
	"sync"
)

// startupProfilePath is where opm serve offers the CPU profile of its start-up.
const startupProfilePath = "/debug/pprof/startup/cpu"

// startupProfile records a CPU profile from the server's start until the catalog is served.
type startupProfile struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready bool
	on    bool
}

func startStartupProfile(log *slog.Logger) *startupProfile {
	p := &startupProfile{}
	if err := pprof.StartCPUProfile(&p.buf); err != nil {
		log.Warn("cannot record the start-up CPU profile", "error", err)
		return nil
	}
	p.on = true
	log.Info("recording the start-up CPU profile", "path", startupProfilePath)
	return p
}

// stop ends the recording; it may be called more than once, and on a nil profile.
func (p *startupProfile) stop() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.on {
		pprof.StopCPUProfile()
		p.on, p.ready = false, true
	}
}

func (p *startupProfile) serveHTTP(w http.ResponseWriter, _ *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.ready {
		http.Error(w, "the start-up CPU profile is not ready yet: the catalog is still loading", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Write(p.buf.Bytes())
}

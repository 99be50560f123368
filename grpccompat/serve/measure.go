package serve

import (
	"bufio"
	"context"
	"errors"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/olmcat/olmcat/internal/source"
)

// MeasureMemory loads the catalog o.Path as Run serves it (the gRPC backend and, with HTTPAddr,
// catalogd's HTTP store), closes it again and returns the process's peak resident memory in bytes:
// what a server of this catalog needs at least. On Linux it is the high-water mark (VmHWM), which
// also counts what the process did before (pulling an image); elsewhere the Go runtime's memory.
func MeasureMemory(ctx context.Context, o Options) (uint64, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	src, err := source.Open(ctx, o.Path, o.Source)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	if err := guardOutputs(src, o); err != nil {
		return 0, err
	}
	backend, store, fill, err := load(ctx, src, o, o.Logger)
	if err != nil {
		return 0, err
	}
	if fill != nil { // a server holds both at once
		if store, err = fill(ctx); err != nil {
			if backend != nil {
				backend.Close()
			}
			return 0, err
		}
	}
	peak, err := selfPeakRSS()
	if backend != nil {
		backend.Close()
	}
	if store != nil {
		store.Close()
	}
	if err != nil {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.Sys, nil
	}
	return peak, nil
}

// selfPeakRSS reads VmHWM from /proc/self/status.
func selfPeakRSS() (uint64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0, err
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("no VmHWM in /proc/self/status")
}

package indeximage

import (
	"context"
	"io"
	"sync"
)

// pullMemory bounds the memory of all registry pulls together, whatever their parallelism: each
// manifest, image index and config is read whole into memory (up to Limits.MaxManifestBytes
// each), so that 256 pulls at once could hold 256 of them. Each read reserves its size (the
// limit when the registry does not say) before its first byte and gives it back once read and
// parsed; reads wait while the reservations would pass the budget. Layers are streamed, never
// held, and reserve nothing.
var pullMemory = newMemoryBudget(metadataReadsAtOnce * (Limits{}).WithDefaults().MaxManifestBytes)

// metadataReadsAtOnce is how many manifests or configs of the largest size allowed may be read
// at once: the budget is this many times Limits.MaxManifestBytes (16 MiB by default). A real one
// is kilobytes, and reserves what it is.
const metadataReadsAtOnce = 4

// memoryBudget is a weighted semaphore of bytes.
type memoryBudget struct {
	size int64

	mu      sync.Mutex
	free    int64
	changed chan struct{} // closed and replaced whenever bytes are given back
}

func newMemoryBudget(size int64) *memoryBudget {
	return &memoryBudget{size: size, free: size, changed: make(chan struct{})}
}

// acquire reserves n bytes (at most the whole budget), waiting until they are free or ctx ends.
// It returns what was reserved, to give back with release.
func (b *memoryBudget) acquire(ctx context.Context, n int64) (int64, error) {
	n = max(0, min(n, b.size))
	for {
		b.mu.Lock()
		if b.free >= n {
			b.free -= n
			b.mu.Unlock()
			return n, nil
		}
		changed := b.changed
		b.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

func (b *memoryBudget) release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.free += n
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// reservedBody gives its reservation back when the body ends or is closed, whichever comes first
// (go-containerregistry closes every body, but a reader that stops at an error may close late).
type reservedBody struct {
	io.ReadCloser
	budget *memoryBudget
	n      int64
	once   sync.Once
}

func (r *reservedBody) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if err != nil {
		r.done()
	}
	return n, err
}

func (r *reservedBody) Close() error {
	r.done()
	return r.ReadCloser.Close()
}

func (r *reservedBody) done() { r.once.Do(func() { r.budget.release(r.n) }) }

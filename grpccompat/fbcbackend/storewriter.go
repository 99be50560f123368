package fbcbackend

import (
	"bufio"
	"errors"
	"hash/crc32"
	"os"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/olmcat/olmcat/internal/bytepool"
)

// storeWriter appends records to the body store. Callers get the record's ref at once; a writer
// goroutine does the writes, in ref order, so converting workers do not wait for the disk.
type storeWriter struct {
	f     *os.File
	mu    sync.Mutex // orders offsets and the queue
	off   int64
	queue chan queuedRecord // bounded: appends wait when the disk is behind
	done  chan struct{}
	hash  *xxhash.Digest // of everything written, for the cache header; nil without sum
	err   error          // the first write error; read after done
	// stop closes the queue and waits for the writer goroutine, once: finish and abort both
	// end the writer, and a failed finish (a full disk) is followed by an abort.
	stop sync.Once
}

// createStore creates the body store at path, a new file in a directory this process just
// created; its mode is 0644 whatever the umask.
func createStore(path string, sum bool) (*storeWriter, error) {
	f, err := createExclusive(path)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return nil, err
	}
	return newStoreWriter(f, sum), nil
}

// createExclusive creates a new file at path, never opening one that is there (a link put in its
// place fails with EEXIST instead of being written through).
func createExclusive(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
}

// newStoreWriter writes the body store to f.
func newStoreWriter(f *os.File, sum bool) *storeWriter {
	w := &storeWriter{f: f, queue: make(chan queuedRecord, 64), done: make(chan struct{})}
	if sum {
		w.hash = xxhash.New()
	}
	go w.write()
	return w
}

func (w *storeWriter) write() {
	defer close(w.done)
	buf := bufio.NewWriterSize(w.f, 1<<20)
	for rec := range w.queue {
		if w.err == nil {
			if w.hash != nil {
				w.hash.Write(rec.data)
			}
			_, w.err = buf.Write(rec.data)
		}
		if rec.recycle {
			bytepool.Put(rec.data)
		}
	}
	if w.err == nil {
		w.err = buf.Flush()
	}
}

type queuedRecord struct {
	data    []byte
	recycle bool
}

// append queues data, which the caller must not change afterwards. Write errors are reported by
// finish.
func (w *storeWriter) append(data []byte) ref { return w.enqueue(data, false) }

// appendRecycled is append for a buffer the caller gives up: once written it goes to bytepool.
func (w *storeWriter) appendRecycled(data []byte) ref { return w.enqueue(data, true) }

func (w *storeWriter) enqueue(data []byte, recycle bool) ref {
	r := ref{Len: uint32(len(data)), CRC: crc32.Checksum(data, crcTable)}
	w.mu.Lock()
	r.Off = w.off
	w.off += int64(len(data))
	w.queue <- queuedRecord{data, recycle}
	w.mu.Unlock()
	return r
}

// finish waits for the writes, (with durable) syncs and closes the file, and returns its size and
// xxhash64.
func (w *storeWriter) finish(durable bool) (size int64, sum uint64, err error) {
	w.drain()
	err = w.err
	if durable && err == nil {
		err = w.f.Sync()
	}
	if w.hash != nil {
		sum = w.hash.Sum64()
	}
	return w.off, sum, errors.Join(err, w.f.Close())
}

// abort ends the writer after an error; it may follow finish.
func (w *storeWriter) abort() {
	w.drain()
	w.f.Close() // an error here adds nothing to the one being reported
}

func (w *storeWriter) drain() {
	w.stop.Do(func() {
		close(w.queue)
		<-w.done
	})
}

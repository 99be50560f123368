package fbcbackend

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/olmcat/olmcat/fbc/csvmeta"
)

// The body store is one append-only file holding bundle bodies (manifests or CSV metadata) and
// custom-schema blobs. The in-memory index keeps a ref per record; each record carries a CRC so
// that a cache damaged after it was verified gives a clear error instead of wrong answers.

// ref locates one record of the body store.
type ref struct {
	Off int64
	Len uint32
	CRC uint32
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

type storeWriter struct {
	mu   sync.Mutex
	f    *os.File
	buf  *bufio.Writer
	off  int64
	hash *xxhash.Digest // of everything written, for the cache header
}

func createStore(path string) (*storeWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	return &storeWriter{f: f, buf: bufio.NewWriterSize(f, 1<<20), hash: xxhash.New()}, nil
}

func (w *storeWriter) append(data []byte) (ref, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := ref{Off: w.off, Len: uint32(len(data)), CRC: crc32.Checksum(data, crcTable)}
	if _, err := w.buf.Write(data); err != nil {
		return ref{}, err
	}
	w.hash.Write(data)
	w.off += int64(len(data))
	return r, nil
}

// finish flushes (and with durable, syncs) the file and returns its size and xxhash64.
func (w *storeWriter) finish(durable bool) (size int64, sum uint64, err error) {
	err = w.buf.Flush()
	if durable {
		err = errors.Join(err, w.f.Sync())
	}
	return w.off, w.hash.Sum64(), errors.Join(err, w.f.Close())
}

func (w *storeWriter) abort() { w.f.Close() }

type storeReader struct {
	f    *os.File
	path string
}

func openStore(path string) (*storeReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &storeReader{f: f, path: path}, nil
}

// verify checks that the file has the size and xxhash64 recorded when it was written.
func (s *storeReader) verify(size int64, sum uint64) error {
	st, err := s.f.Stat()
	if err != nil {
		return err
	}
	if st.Size() != size {
		return damaged(s.path, "is %d bytes, the index expects %d", st.Size(), size)
	}
	h := xxhash.New()
	if _, err := io.CopyBuffer(h, io.NewSectionReader(s.f, 0, size), make([]byte, 1<<20)); err != nil {
		return fmt.Errorf("read %s: %w", s.path, err)
	}
	if h.Sum64() != sum {
		return damaged(s.path, "does not match the checksum in the index header")
	}
	return nil
}

func (s *storeReader) read(r ref) ([]byte, error) {
	buf := make([]byte, r.Len)
	if _, err := s.f.ReadAt(buf, r.Off); err != nil {
		return nil, fmt.Errorf("read cache file %s at %d: %w (was the cache changed or removed while serving?)", s.path, r.Off, err)
	}
	if crc32.Checksum(buf, crcTable) != r.CRC {
		return nil, fmt.Errorf("cache file %s is corrupted at offset %d (checksum mismatch); rebuild the cache", s.path, r.Off)
	}
	return buf, nil
}

func (s *storeReader) close() error { return s.f.Close() }

// Body record encoding: a kind byte, then length-prefixed fields.
const (
	bodyManifests byte = 1
	bodyCSVMeta   byte = 2
)

func encodeBody(b body) []byte {
	size := 32 + len(b.CSVMeta) + len(b.Version)
	for _, o := range b.Objects {
		size += len(o) + binary.MaxVarintLen64
	}
	for _, ri := range b.Related {
		size += len(ri.Name) + len(ri.Image) + 2*binary.MaxVarintLen64
	}
	out := make([]byte, 0, size)
	putString := func(s string) {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	if b.CSVMeta != nil {
		out = append(out, bodyCSVMeta)
		putString(string(b.CSVMeta))
		putString(b.Version)
		out = binary.AppendUvarint(out, uint64(len(b.Related)))
		for _, ri := range b.Related {
			putString(ri.Name)
			putString(ri.Image)
		}
		return out
	}
	out = append(out, bodyManifests)
	out = binary.AppendUvarint(out, uint64(b.CSVIndex+1))
	out = binary.AppendUvarint(out, uint64(len(b.Objects)))
	for _, o := range b.Objects {
		putString(o)
	}
	return out
}

var errBadBody = errors.New("malformed body record")

func decodeBody(data []byte) (body, error) {
	b := body{CSVIndex: -1}
	if len(data) == 0 {
		return b, errBadBody
	}
	kind, rest := data[0], data[1:]
	num := func() (uint64, bool) {
		v, n := binary.Uvarint(rest)
		if n <= 0 {
			return 0, false
		}
		rest = rest[n:]
		return v, true
	}
	str := func() (string, bool) {
		l, ok := num()
		if !ok || l > uint64(len(rest)) {
			return "", false
		}
		s := string(rest[:l])
		rest = rest[l:]
		return s, true
	}
	switch kind {
	case bodyCSVMeta:
		meta, ok1 := str()
		ver, ok2 := str()
		n, ok3 := num()
		if !ok1 || !ok2 || !ok3 || n > uint64(len(rest)) {
			return b, errBadBody
		}
		b.CSVMeta, b.Version = []byte(meta), ver
		for i := uint64(0); i < n; i++ {
			name, ok1 := str()
			image, ok2 := str()
			if !ok1 || !ok2 {
				return b, errBadBody
			}
			b.Related = append(b.Related, csvmeta.RelatedImage{Name: name, Image: image})
		}
	case bodyManifests:
		idx, ok1 := num()
		n, ok2 := num()
		if !ok1 || !ok2 || n > uint64(len(rest)) || idx > n {
			return b, errBadBody
		}
		b.CSVIndex = int(idx) - 1
		b.Objects = make([]string, 0, n)
		for i := uint64(0); i < n; i++ {
			o, ok := str()
			if !ok {
				return b, errBadBody
			}
			b.Objects = append(b.Objects, o)
		}
	default:
		return b, errBadBody
	}
	return b, nil
}

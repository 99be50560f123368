package fbcbackend

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/cespare/xxhash/v2"
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

type storeReader struct {
	f    *os.File
	path string
}

// openStore opens the body store at path; its last component is not followed (see openRegular).
func openStore(path string) (*storeReader, error) {
	return openStoreIn(filepath.Dir(path), filepath.Base(path))
}

// openStoreIn opens the body store base/rel..., following no link in rel (see openRegular).
func openStoreIn(base string, rel ...string) (*storeReader, error) {
	f, _, err := openRegular(base, rel...)
	if err != nil {
		return nil, err
	}
	return &storeReader{f: f, path: f.Name()}, nil
}

// verify checks that the file has the size and xxhash64 recorded when it was written. It stops,
// returning ctx's error, when ctx ends.
func (s *storeReader) verify(ctx context.Context, size int64, sum uint64) error {
	st, err := s.f.Stat()
	if err != nil {
		return err
	}
	if st.Size() != size {
		return damaged(s.path, "is %d bytes, the index expects %d", st.Size(), size)
	}
	h := xxhash.New()
	buf := make([]byte, 1<<20)
	for off := int64(0); off < size; {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := s.f.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		h.Write(buf[:n])
		off += int64(n)
		if err != nil && !(errors.Is(err, io.EOF) && off == size) {
			return fmt.Errorf("read %s: %w", s.path, err)
		}
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

package fbcbackend

import (
	"bufio"
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cespare/xxhash/v2"

	"github.com/olmcat/olmcat/internal/scratch"
)

// Cache layout: <cache-dir>/olmcat-serve-v1/{index.gob,bodies.bin}. index.gob is a gob-encoded
// cacheHeader followed by the gob-encoded index. The header names the format and the digest of the
// catalog the cache was built from, and carries the size and xxhash64 of the encoded index and of
// bodies.bin: a cache that does not match its catalog, or whose files do not match their sums
// (changed or damaged since they were written), is never served. The sums detect damage and
// edits, not forgery: whoever can write the cache can also rewrite its header. Files are written
// under temporary names and renamed into place (index last), with modes 0644/0755 whatever the
// umask, so a cache built at image build time can be read by any user on a read-only filesystem.
// Serving never writes.
const (
	cacheSubdir   = "olmcat-serve-v1"
	indexFile     = "index.gob"
	bodiesFile    = "bodies.bin"
	formatVersion = "olmcat-serve-cache/3"
)

type cacheHeader struct {
	Format     string
	Digest     string // of the catalog
	IndexSize  int64  // of the gob-encoded index that follows the header
	IndexSum   uint64 // xxhash64 of it
	BodiesSize int64
	BodiesSum  uint64 // xxhash64 of bodies.bin
}

var (
	// errCacheMismatch says a cache exists but was not built from this catalog (or by this format).
	errCacheMismatch = errors.New("cache does not match the catalog")
	// errCacheDamaged says a cache file does not match the sums recorded when it was written.
	errCacheDamaged = errors.New("cache is damaged")
)

func damaged(path, format string, args ...any) error {
	return fmt.Errorf("%w: %s %s (changed or damaged after it was written)", errCacheDamaged, path, fmt.Sprintf(format, args...))
}

// readCache loads the index of a cache directory and opens its bodies, if the cache was built from
// a catalog with the given digest and its files are intact.
// It stops when ctx ends: checking a large bodies.bin reads all of it.
func readCache(ctx context.Context, dir, digest string) (*index, *storeReader, error) {
	indexPath := filepath.Join(dir, cacheSubdir, indexFile)
	f, st, err := openRegular(dir, cacheSubdir, indexFile)
	if err != nil {
		return nil, nil, err
	}
	data, err := readRegular(f, st, maxIndexFileSize)
	f.Close()
	if err != nil {
		return nil, nil, err
	}
	r := bytes.NewReader(data) // an io.ByteReader: gob reads no further than the header
	var hdr cacheHeader
	if err := gob.NewDecoder(r).Decode(&hdr); err != nil {
		return nil, nil, damaged(indexPath, "has an unreadable header: %v", err)
	}
	if hdr.Format != formatVersion {
		return nil, nil, fmt.Errorf("%w: format %q, this olmcat reads %q", errCacheMismatch, hdr.Format, formatVersion)
	}
	if hdr.Digest != digest {
		return nil, nil, fmt.Errorf("%w: built from catalog digest %s, the catalog's is now %s", errCacheMismatch, hdr.Digest, digest)
	}
	encoded := data[len(data)-r.Len():]
	if int64(len(encoded)) != hdr.IndexSize || xxhash.Sum64(encoded) != hdr.IndexSum {
		return nil, nil, damaged(indexPath, "does not match the checksum in its header")
	}
	store, err := openStoreIn(dir, cacheSubdir, bodiesFile)
	if err != nil {
		return nil, nil, err
	}
	verified := make(chan error, 1)
	go func() { verified <- store.verify(ctx, hdr.BodiesSize, hdr.BodiesSum) }()
	ix := &index{}
	err = gob.NewDecoder(bytes.NewReader(encoded)).Decode(ix)
	if verr := <-verified; verr != nil {
		store.close()
		return nil, nil, verr
	}
	if err != nil {
		store.close()
		return nil, nil, damaged(indexPath, "has an unreadable index: %v", err)
	}
	if err := ix.check(hdr.BodiesSize); err != nil {
		store.close()
		return nil, nil, damaged(indexPath, "has an index serving cannot use: %v", err)
	}
	return ix, store, nil
}

// cacheWriter builds a cache in a temporary directory beside the final one and moves it into
// place on commit.
type cacheWriter struct {
	dir, tmp  string
	store     *storeWriter
	removeTmp func() error
}

func newCacheWriter(dir string) (*cacheWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp, removeTmp, err := scratch.MkdirTemp(dir, buildDirPrefix)
	if err != nil {
		return nil, err
	}
	store, err := createStore(filepath.Join(tmp, bodiesFile), true)
	if err != nil {
		removeTmp()
		return nil, err
	}
	return &cacheWriter{dir: dir, tmp: tmp, store: store, removeTmp: removeTmp}, nil
}

func (w *cacheWriter) abort() {
	w.store.abort()
	w.removeTmp()
}

// commit writes the index and replaces any previous cache with the new one.
func (w *cacheWriter) commit(ix *index, digest string) error {
	size, sum, err := w.store.finish(true)
	if err != nil {
		return err
	}
	var encoded bytes.Buffer
	if err := gob.NewEncoder(&encoded).Encode(ix); err != nil {
		return err
	}
	hdr := cacheHeader{Format: formatVersion, Digest: digest, IndexSize: int64(encoded.Len()), IndexSum: xxhash.Sum64(encoded.Bytes()),
		BodiesSize: size, BodiesSum: sum}
	// The build directory is new and the files are created in it (O_EXCL: never through a link
	// someone put there), their modes set on what was opened.
	f, err := createExclusive(filepath.Join(w.tmp, indexFile))
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = gob.NewEncoder(bw).Encode(hdr)
	_, werr := encoded.WriteTo(bw)
	err = errors.Join(err, werr, bw.Flush(), f.Chmod(0o644), f.Sync(), f.Close())
	if err != nil {
		return err
	}
	tmpDir, err := openDir(filepath.Dir(w.tmp), filepath.Base(w.tmp))
	if err != nil {
		return err
	}
	err = tmpDir.Chmod(".", 0o755)
	tmpDir.Close()
	if err != nil {
		return err
	}
	// Whatever is at final (a previous cache; or a link, FIFO or file put there) is renamed aside
	// and removed: os.RemoveAll removes a link, never what it names.
	final := filepath.Join(w.dir, cacheSubdir)
	old := final + ".old"
	_ = os.RemoveAll(old)
	if err := os.Rename(final, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Rename(w.tmp, final); err != nil {
		return err
	}
	w.removeTmp() // unlocks the directory and forgets its path, which no longer exists
	return os.RemoveAll(old)
}

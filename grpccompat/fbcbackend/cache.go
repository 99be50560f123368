package fbcbackend

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// Cache layout: <cache-dir>/olmcat-serve-v1/{index.gob,bodies.bin}. The index starts with a header
// naming the format, the digest of the catalog it was built from and the size of the bodies file;
// a cache whose header does not match is never served. Files are written under temporary names
// and renamed into place (index last), with modes 0644/0755 whatever the umask, so a cache built
// at image build time can be read by any user on a read-only filesystem. Serving never writes.
const (
	cacheSubdir   = "olmcat-serve-v1"
	indexFile     = "index.gob"
	bodiesFile    = "bodies.bin"
	formatVersion = "olmcat-serve-cache/2"
)

type cacheHeader struct {
	Format     string
	Digest     string
	BodiesSize int64
}

// FilesDigest hashes every regular file under root (or root itself when it is a file): relative
// path, size and content, in lexical path order. Any change to the catalog changes it. Files are
// hashed in parallel; the digest is the hash of their (path, size, hash) list.
func FilesDigest(root string) (string, error) {
	files, err := catalogFiles(root)
	if err != nil {
		return "", fmt.Errorf("hash catalog %s: %w", root, err)
	}
	sums := make([][]byte, len(files))
	errs := make([]error, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 1<<20)
			for i := range next {
				sums[i], errs[i] = hashFile(files[i].path, buf)
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	h := sha256.New()
	h.Write([]byte(formatVersion + "\x00"))
	for i, f := range files {
		if errs[i] != nil {
			return "", fmt.Errorf("hash catalog file %s: %w", f.path, errs[i])
		}
		h.Write([]byte(f.rel + "\x00"))
		h.Write(sums[i])
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

type catalogFile struct{ rel, path string }

func catalogFiles(root string) ([]catalogFile, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []catalogFile{{filepath.Base(root), root}}, nil
	}
	var files []catalogFile
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
				return nil
			}
		} else if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		files = append(files, catalogFile{filepath.ToSlash(rel), path})
		return nil
	})
	return files, err
}

// hashFile returns xxhash64(size || content): change detection, not protection against forgery,
// and fast enough to run at every start (a 134 MB catalog hashes in well under 0.1 s).
func hashFile(path string, buf []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	h := xxhash.New()
	h.Write(binary.BigEndian.AppendUint64(nil, uint64(st.Size())))
	if _, err := io.CopyBuffer(h, f, buf); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// errCacheMismatch says a cache exists but was not built from this catalog (or by this format).
var errCacheMismatch = errors.New("cache does not match the catalog")

// readCache loads the index of a cache directory and opens its bodies, if the cache was built from
// a catalog with the given digest.
func readCache(dir, digest string) (*index, *storeReader, error) {
	sub := filepath.Join(dir, cacheSubdir)
	f, err := os.Open(filepath.Join(sub, indexFile))
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	dec := gob.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	var hdr cacheHeader
	if err := dec.Decode(&hdr); err != nil {
		return nil, nil, fmt.Errorf("%w: unreadable index header: %v", errCacheMismatch, err)
	}
	if hdr.Format != formatVersion {
		return nil, nil, fmt.Errorf("%w: format %q, this olmcat reads %q", errCacheMismatch, hdr.Format, formatVersion)
	}
	if hdr.Digest != digest {
		return nil, nil, fmt.Errorf("%w: built from catalog digest %s, the catalog's is now %s", errCacheMismatch, hdr.Digest, digest)
	}
	bodiesPath := filepath.Join(sub, bodiesFile)
	st, err := os.Stat(bodiesPath)
	if err != nil {
		return nil, nil, err
	}
	if st.Size() != hdr.BodiesSize {
		return nil, nil, fmt.Errorf("%w: %s is %d bytes, the index expects %d", errCacheMismatch, bodiesPath, st.Size(), hdr.BodiesSize)
	}
	ix := &index{}
	if err := dec.Decode(ix); err != nil {
		return nil, nil, fmt.Errorf("%w: unreadable index: %v", errCacheMismatch, err)
	}
	store, err := openStore(bodiesPath)
	if err != nil {
		return nil, nil, err
	}
	return ix, store, nil
}

// cacheWriter builds a cache in a temporary directory beside the final one and moves it into
// place on commit.
type cacheWriter struct {
	dir, tmp string
	durable  bool // sync to disk: the cache outlives this process
	store    *storeWriter
}

func newCacheWriter(dir string, durable bool) (*cacheWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(dir, ".olmcat-serve-build-")
	if err != nil {
		return nil, err
	}
	store, err := createStore(filepath.Join(tmp, bodiesFile))
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return &cacheWriter{dir: dir, tmp: tmp, durable: durable, store: store}, nil
}

func (w *cacheWriter) abort() {
	w.store.abort()
	os.RemoveAll(w.tmp)
}

// commit writes the index and replaces any previous cache with the new one.
func (w *cacheWriter) commit(ix *index, digest string) error {
	size, err := w.store.finish(w.durable)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(w.tmp, indexFile), os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	enc := gob.NewEncoder(bw)
	err = errors.Join(enc.Encode(cacheHeader{Format: formatVersion, Digest: digest, BodiesSize: size}), enc.Encode(ix))
	err = errors.Join(err, bw.Flush())
	if w.durable {
		err = errors.Join(err, f.Sync())
	}
	err = errors.Join(err, f.Close())
	if err != nil {
		return err
	}
	for _, p := range []string{w.tmp, filepath.Join(w.tmp, indexFile), filepath.Join(w.tmp, bodiesFile)} {
		mode := os.FileMode(0o644)
		if p == w.tmp {
			mode = 0o755
		}
		if err := os.Chmod(p, mode); err != nil {
			return err
		}
	}
	final := filepath.Join(w.dir, cacheSubdir)
	old := final + ".old"
	_ = os.RemoveAll(old)
	if err := os.Rename(final, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Rename(w.tmp, final); err != nil {
		return err
	}
	return os.RemoveAll(old)
}

package fbcbackend

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/olmcat/olmcat/internal/nofollow"
)

// Issue 27.1: a cache directory is shared and may be written by others (a CI cache restored from
// another job, a volume). Nothing under --cache-dir is followed: the cache's subdirectory and its
// files are opened with O_NOFOLLOW, without blocking (a FIFO in place of index.gob hung the
// server), and only a regular file is read, with its size known before reading (a link to
// /dev/zero took gigabytes). A link, FIFO, device or directory where a cache file belongs is a
// damaged cache: never read, refused with --cache-enforce-integrity, otherwise replaced when the
// cache is rebuilt (the rename moves the link itself aside and removes it, never what it names).
// The --cache-dir itself, given on the command line, may be a link.

// maxIndexFileSize bounds index.gob: the in-memory index of a catalog (names, versions, edges,
// small fields), a few MB for catalogs of thousands of bundles.
const maxIndexFileSize = 1 << 30

// notACacheFile says that path holds something else than what olmcat
// wrote there: a directory (wantDir) or a regular file.
func notACacheFile(path string, mode fs.FileMode, wantDir bool) error {
	want := "file"
	if wantDir {
		want = "directory"
	}
	return fmt.Errorf("%w: %s is %s, not the %s olmcat wrote (never read; rebuilding the cache replaces it)",
		errCacheDamaged, path, nofollow.Describe(mode), want)
}

// openRegular opens base/rel[0]/.../rel[n-1] for reading: base as given (it may be a link), every
// component of rel without following a link, without blocking, and only if the last is a regular
// file (package nofollow). A link, FIFO, device or other non-file in the way is an
// errCacheDamaged; a missing one an fs.ErrNotExist.
func openRegular(base string, rel ...string) (*os.File, os.FileInfo, error) {
	root, err := os.OpenRoot(base)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	f, st, err := nofollow.Open(root, path.Join(rel...))
	if err != nil {
		return nil, nil, cacheDamaged(base, err)
	}
	return f, st, nil
}

// openDir opens the directory base/name without following a link at name.
func openDir(base, name string) (*os.Root, error) {
	root, err := os.OpenRoot(base)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	dir, err := nofollow.OpenDir(root, name)
	if err != nil {
		return nil, cacheDamaged(base, err)
	}
	return dir, nil
}

// cacheDamaged says a cache path is not what olmcat wrote there (an errCacheDamaged), when nofollow
// found so; other errors (a missing file) are returned as they are.
func cacheDamaged(base string, err error) error {
	var nr *nofollow.NotRegularError
	if errors.As(err, &nr) {
		return notACacheFile(filepath.Join(base, filepath.FromSlash(nr.Path)), nr.Mode, nr.Dir)
	}
	if errors.Is(err, nofollow.ErrChanged) {
		return fmt.Errorf("%w: %v", errCacheDamaged, err)
	}
	return err
}

// readRegular reads a whole regular file opened by openRegular, at most limit bytes: its size is
// checked before reading and it must not have grown meanwhile.
func readRegular(f *os.File, st os.FileInfo, limit int64) ([]byte, error) {
	if st.Size() > limit {
		return nil, fmt.Errorf("%w: %s is %d bytes, more than the %d a cache file of olmcat can be", errCacheDamaged, f.Name(), st.Size(), limit)
	}
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: %s shrank while it was read", errCacheDamaged, f.Name())
		}
		return nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	if n, _ := f.Read(make([]byte, 1)); n != 0 {
		return nil, fmt.Errorf("%w: %s grew while it was read", errCacheDamaged, f.Name())
	}
	return data, nil
}

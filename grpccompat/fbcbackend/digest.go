package fbcbackend

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/cespare/xxhash/v2"
)

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

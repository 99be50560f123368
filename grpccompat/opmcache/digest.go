package opmcache

import (
	"archive/tar"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Digest is the digest opm's json cache keeps in DIR/digest and recomputes at every start
// (pkg/cache/json.go ComputeDigest): FNV-64a over a tar stream of the catalog directory, then one
// of DIR/cache, each written as opm's fsToTar writes it (pkg/cache/tar.go): entries in
// fs.WalkDir's lexical order, the directory itself first as ".", symbolic links left out,
// .indexignore not applied, headers from the file's mode and size with owners and times zeroed.
// Any change of a byte, a name, a size or a permission bit changes it.
func Digest(configsDir, cacheDir string) (string, error) {
	buf := make([]byte, 32*1024)
	h := fnv.New64a()
	if err := fsToTar(h, os.DirFS(configsDir), buf); err != nil {
		return "", fmt.Errorf("digest of catalog %s: %w", configsDir, err)
	}
	if err := fsToTar(h, os.DirFS(filepath.Join(cacheDir, cacheSubdir)), buf); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("digest of cache %s: %w", cacheDir, err)
	}
	return fmt.Sprintf("%x", h.Sum(nil)), nil
}

func fsToTar(w io.Writer, fsys fs.FS, buf []byte) error {
	tw := tar.NewWriter(w)
	if err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("get file info for %q: %w", path, err)
		}
		h, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return fmt.Errorf("build tar file info header for %q: %w", path, err)
		}
		h.Uid, h.Gid, h.Uname, h.Gname = 0, 0, "", ""
		h.AccessTime, h.ChangeTime, h.ModTime = time.Time{}, time.Time{}, time.Time{}
		h.Name = path
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("write tar header for %q: %w", path, err)
		}
		if d.IsDir() {
			return nil
		}
		f, err := fsys.Open(path)
		if err != nil {
			return fmt.Errorf("open file %q: %w", path, err)
		}
		defer f.Close()
		if _, err := io.CopyBuffer(tw, f, buf); err != nil {
			return fmt.Errorf("write tar data for %q: %w", path, err)
		}
		return nil
	}); err != nil {
		return err
	}
	return tw.Close()
}

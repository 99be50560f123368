package indeximage

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// layerCompression is fixed: the digest of a built layer must depend on its content only.
const layerCompression = gzip.BestSpeed

// dirLayer is a reproducible layer holding a host directory at an image path: entries sorted,
// owners root, times zero, permissions 0755/0644, gzip without a timestamp. Its tar stream is
// generated again from the directory on every read instead of being stored, so building an image
// needs neither memory nor temporary files of the layer's size; the directory must not change
// until the image is written (a push of changed content fails on the digest).
type dirLayer struct {
	hostDir   string
	imagePath string   // "configs", "tmp/cache"
	whiteouts []string // image paths to hide from lower layers, e.g. "database"
	mediaType types.MediaType
	modTime   time.Time // every entry's modification time: zeroTime unless SOURCE_DATE_EPOCH says
	own       ownership // of the tree's entries (not of the image path's parents)
	spool     string    // the compressed layer kept in a file, "" to compress it again on each read

	digest, diffID v1.Hash
	size           int64
}

// ownership says who owns a layer's files and with what permissions: root and 0755/0644 by
// default; opm's serve cache keeps the permission bits it was written with (opm verifies the cache
// with them) and belongs to the user the base image runs as, as a Dockerfile's RUN leaves it.
type ownership struct {
	keepModes bool
	uid, gid  int
	// spoolDir, if set, keeps the compressed layer made for its digest in a file there, read
	// back when the layer is written instead of compressing the directory again; the caller
	// removes spoolDir once the image is written.
	spoolDir string
}

func newDirLayer(hostDir, imagePath string, whiteouts []string, mt types.MediaType, modTime time.Time) (*dirLayer, error) {
	return newOwnedDirLayer(hostDir, imagePath, whiteouts, mt, modTime, ownership{})
}

func newOwnedDirLayer(hostDir, imagePath string, whiteouts []string, mt types.MediaType, modTime time.Time, own ownership) (*dirLayer, error) {
	fi, err := os.Stat(hostDir)
	if err != nil {
		return nil, fmt.Errorf("layer content: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("layer content %s is not a directory", hostDir)
	}
	l := &dirLayer{hostDir: hostDir, imagePath: strings.Trim(path.Clean("/"+imagePath), "/"), whiteouts: whiteouts, mediaType: mt, modTime: modTime.UTC(), own: own}
	if modTime.IsZero() {
		l.modTime = zeroTime
	}
	if l.imagePath == "" {
		return nil, fmt.Errorf("image path %q for %s is the filesystem root", imagePath, hostDir)
	}
	// One pass computes both hashes: tar bytes -> diff ID hasher and gzip -> digest hasher.
	compressed, uncompressed := sha256.New(), sha256.New()
	var sink io.Writer = compressed
	var spool *os.File
	if own.spoolDir != "" {
		if spool, err = os.CreateTemp(own.spoolDir, "layer-*.tar.gz"); err != nil {
			return nil, fmt.Errorf("layer of %s: %w", hostDir, err)
		}
		defer spool.Close()
		sink = io.MultiWriter(compressed, spool)
	}
	counter := &countingWriter{w: sink}
	gz, _ := gzip.NewWriterLevel(counter, layerCompression)
	if err := l.writeTar(io.MultiWriter(uncompressed, gz)); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	if spool != nil {
		if err := spool.Close(); err != nil {
			return nil, fmt.Errorf("layer of %s: %w", hostDir, err)
		}
		l.spool = spool.Name()
	}
	l.digest = v1.Hash{Algorithm: "sha256", Hex: hex.EncodeToString(compressed.Sum(nil))}
	l.diffID = v1.Hash{Algorithm: "sha256", Hex: hex.EncodeToString(uncompressed.Sum(nil))}
	l.size = counter.n
	return l, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (l *dirLayer) Digest() (v1.Hash, error)            { return l.digest, nil }
func (l *dirLayer) DiffID() (v1.Hash, error)            { return l.diffID, nil }
func (l *dirLayer) Size() (int64, error)                { return l.size, nil }
func (l *dirLayer) MediaType() (types.MediaType, error) { return l.mediaType, nil }

func (l *dirLayer) Uncompressed() (io.ReadCloser, error) {
	return l.pipe(func(w io.Writer) error { return l.writeTar(w) }), nil
}

func (l *dirLayer) Compressed() (io.ReadCloser, error) {
	if l.spool != "" {
		return os.Open(l.spool)
	}
	return l.pipe(func(w io.Writer) error {
		gz, _ := gzip.NewWriterLevel(w, layerCompression)
		if err := l.writeTar(gz); err != nil {
			return err
		}
		return gz.Close()
	}), nil
}

func (l *dirLayer) pipe(produce func(io.Writer) error) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(produce(pw)) }()
	return pr
}

var zeroTime = time.Unix(0, 0).UTC()

func (l *dirLayer) writeTar(w io.Writer) error {
	tw := tar.NewWriter(w)
	for _, wh := range l.whiteouts {
		name := path.Join(parentOf(wh), ".wh."+path.Base(wh))
		if err := tw.WriteHeader(l.header(tar.TypeReg, name, 0)); err != nil {
			return err
		}
	}
	// Parent directories of the image path, then the tree in lexical order (WalkDir's order).
	parts := strings.Split(l.imagePath, "/")
	for i := 1; i < len(parts); i++ {
		h := l.header(tar.TypeDir, strings.Join(parts[:i], "/")+"/", 0)
		if h.Name == "tmp/" {
			h.Mode = 0o1777 // /tmp stays writable by everyone, as in every base
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
	}
	err := filepath.WalkDir(l.hostDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(l.hostDir, p)
		if err != nil {
			return err
		}
		name := path.Join(l.imagePath, filepath.ToSlash(rel))
		switch {
		case d.IsDir():
			h := l.header(tar.TypeDir, name+"/", 0)
			if err := l.owned(h, d.Info); err != nil {
				return err
			}
			return tw.WriteHeader(h)
		case d.Type()&fs.ModeSymlink != 0:
			return l.writeSymlink(tw, p, name)
		case d.Type().IsRegular():
			return l.writeRegular(tw, p, name)
		}
		return fmt.Errorf("%s: only regular files, directories and symlinks can go into an image layer (found %s)", p, d.Type())
	})
	if err != nil {
		return fmt.Errorf("build layer %s from %s: %w", l.imagePath, l.hostDir, err)
	}
	return tw.Close()
}

func (l *dirLayer) writeSymlink(tw *tar.Writer, hostPath, name string) error {
	target, err := os.Readlink(hostPath)
	if err != nil {
		return err
	}
	resolved := path.Join(path.Dir(name), filepath.ToSlash(target))
	if path.IsAbs(target) || (resolved != l.imagePath && !strings.HasPrefix(resolved, l.imagePath+"/")) {
		return fmt.Errorf("%s: symlink to %q leaves the directory; copy the file instead", hostPath, target)
	}
	h := l.header(tar.TypeSymlink, name, 0)
	h.Linkname = filepath.ToSlash(target)
	return tw.WriteHeader(h)
}

func (l *dirLayer) writeRegular(tw *tar.Writer, hostPath, name string) error {
	f, err := os.Open(hostPath)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	h := l.header(tar.TypeReg, name, fi.Size())
	if err := l.owned(h, f.Stat); err != nil {
		return err
	}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	if _, err := io.Copy(tw, f); err != nil {
		return fmt.Errorf("%s: %w (did the file change while the image was built?)", hostPath, err)
	}
	return nil
}

func normalizedHeader(typ byte, name string, size int64) *tar.Header {
	mode := int64(0o644)
	if typ == tar.TypeDir {
		mode = 0o755
	} else if typ == tar.TypeSymlink {
		mode = 0o777
	}
	return &tar.Header{Typeflag: typ, Name: name, Size: size, Mode: mode, ModTime: zeroTime, Format: tar.FormatPAX}
}

// header is normalizedHeader at the layer's modification time.
func (l *dirLayer) header(typ byte, name string, size int64) *tar.Header {
	h := normalizedHeader(typ, name, size)
	h.ModTime = l.modTime
	return h
}

// owned applies the layer's ownership to the header of a tree entry.
func (l *dirLayer) owned(h *tar.Header, info func() (fs.FileInfo, error)) error {
	h.Uid, h.Gid = l.own.uid, l.own.gid
	if !l.own.keepModes {
		return nil
	}
	fi, err := info()
	if err != nil {
		return err
	}
	h.Mode = int64(fi.Mode().Perm())
	return nil
}

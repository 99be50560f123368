package indeximage

import (
	"archive/tar"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// write materializes one visible entry under root. Permissions are normalized (0755 directories,
// 0644 files): no set-id bits, no owners, nothing executable comes out of an image.
func (w *overlayWalker) write(hdr *tar.Header, name string, body io.Reader) error {
	if w.files >= w.limits.MaxFiles {
		return fmt.Errorf("%w: more than %d entries under /%s (Limits.MaxFiles); the image is hostile or needs a higher limit", ErrLimitExceeded, w.limits.MaxFiles, w.root)
	}
	w.files++
	if w.single && name != w.root {
		return nil // beneath a "file" that is not one; reported when root itself is seen
	}
	dst := w.hostPath(name)
	if !w.single && name == w.root && hdr.Typeflag != tar.TypeDir {
		if hdr.Typeflag == tar.TypeSymlink {
			return fmt.Errorf("%w: the %s /%s is a symlink to %q; olmcat does not follow it: point the label at the real directory", ErrUnsafeEntry, w.what, w.root, hdr.Linkname)
		}
		return fmt.Errorf("the %s /%s is not a directory in the image (tar type %q)", w.what, w.root, hdr.Typeflag)
	}
	switch hdr.Typeflag {
	case tar.TypeDir:
		if w.single {
			return fmt.Errorf("/%s is a directory in the image, not the SQLite file the label names", w.root)
		}
		if err := w.prepare(dst, true); err != nil {
			return err
		}
		if err := os.Mkdir(dst, 0o755); err != nil && !os.IsExist(err) {
			return err
		}
	case tar.TypeReg, tar.TypeRegA, tar.TypeGNUSparse:
		if hdr.Size > w.limits.MaxBytes-w.bytes {
			return fmt.Errorf("%w: the files under /%s exceed %d bytes (Limits.MaxBytes); the image is a decompression bomb or needs a higher limit", ErrLimitExceeded, w.root, w.limits.MaxBytes)
		}
		if err := w.prepare(dst, false); err != nil {
			return err
		}
		if err := writeFile(dst, body, hdr.Size, w.copyBuffer()); err != nil {
			return err
		}
		w.bytes += hdr.Size
		w.layerFiles[name] = true
	case tar.TypeSymlink:
		if w.single {
			return fmt.Errorf("/%s is a symlink to %q; olmcat reads the SQLite file only at the path the label names", w.root, hdr.Linkname)
		}
		if err := w.symlink(dst, name, hdr.Linkname); err != nil {
			return err
		}
	case tar.TypeLink:
		if err := w.hardlink(dst, name, hdr.Linkname); err != nil {
			return err
		}
	case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
		return fmt.Errorf("%w: device or fifo (type %q) inside the %s /%s", ErrUnsafeEntry, hdr.Typeflag, w.what, w.root)
	default:
		return fmt.Errorf("%w: unsupported entry type %q inside the %s /%s", ErrUnsafeEntry, hdr.Typeflag, w.what, w.root)
	}
	if hdr.Typeflag != tar.TypeReg && hdr.Typeflag != tar.TypeRegA && hdr.Typeflag != tar.TypeGNUSparse {
		delete(w.layerFiles, name)
	}
	if hdr.Typeflag != tar.TypeDir {
		w.layerHidden[name] = true // a non-directory hides anything at or below its path in lower layers
	}
	w.markPresent(name)
	return nil
}

// writeFile writes a file's content from the layer in writes of up to len(buf) bytes. buf is
// the walker's, shared by every file: a buffer per file made reading a catalog of many small
// files from an image several times slower than from a directory.
func writeFile(dst string, body io.Reader, size int64, buf []byte) error {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	src := &readErrReader{r: body}
	var n int64
	for err == nil {
		var m int
		m, err = io.ReadFull(src, buf)
		if m > 0 {
			if _, werr := f.Write(buf[:m]); werr != nil {
				err = werr
			}
			n += int64(m)
		}
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil // end of the entry; a truncated layer shows in src.err and n
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case src.err != nil:
		return fmt.Errorf("read file content: %w (the layer is truncated or corrupt: pull or rebuild the image)", src.err)
	case err != nil:
		return fmt.Errorf("extract to %s: %w", dst, err)
	case n != size:
		return fmt.Errorf("extract to %s: wrote %d bytes, the header says %d", dst, n, size)
	}
	return nil
}

// readErrReader remembers a read error so that it is not blamed on the disk.
type readErrReader struct {
	r   io.Reader
	err error
}

func (e *readErrReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

// prepare creates the parent directories of dst inside dest, refusing to go through a symlink
// (so a link planted by an earlier entry can never redirect a write), and clears a previous
// entry of the same layer at dst (the later duplicate wins, as in docker).
func (w *overlayWalker) prepare(dst string, wantDir bool) error {
	if dst == w.dest && !w.single {
		return nil // the catalog directory itself, created before the walk
	}
	if parent := filepath.Dir(dst); !w.single && !w.dirs[parent] {
		rel, err := filepath.Rel(w.dest, parent)
		if err != nil || strings.HasPrefix(rel, "..") {
			return fmt.Errorf("%w: resolves outside the extraction directory", ErrUnsafeEntry)
		}
		cur := w.dest
		if rel != "." {
			for _, part := range strings.Split(rel, string(filepath.Separator)) {
				cur = filepath.Join(cur, part)
				fi, err := os.Lstat(cur)
				switch {
				case os.IsNotExist(err):
					if err := os.Mkdir(cur, 0o755); err != nil {
						return err
					}
				case err != nil:
					return err
				case fi.Mode()&fs.ModeSymlink != 0:
					return fmt.Errorf("%w: lies beneath a symlink of the same layer (%s)", ErrUnsafeEntry, cur)
				case !fi.IsDir():
					return fmt.Errorf("lies beneath a non-directory of the same layer (%s)", cur)
				}
			}
		}
		// Checked once per directory: a directory is never removed nor replaced by a link (a
		// non-directory at its path in the same layer is refused, in lower layers hidden).
		w.dirs[parent] = true
	}
	fi, err := os.Lstat(dst)
	switch {
	case os.IsNotExist(err):
		return nil
	case err != nil:
		return err
	case fi.IsDir() && wantDir:
		return nil
	case fi.IsDir():
		return fmt.Errorf("the layer has both a directory and a non-directory at this path")
	case wantDir:
		return fmt.Errorf("the layer has both a non-directory and a directory at this path")
	}
	return os.Remove(dst)
}

// symlink writes a link whose target, resolved lexically in the image, stays under root. The
// target is rewritten as the shortest relative path, so ".." can only lead up through real
// directories and never out of the catalog, whatever other links exist.
func (w *overlayWalker) symlink(dst, name, linkname string) error {
	var resolved string
	if path.IsAbs(linkname) {
		resolved = strings.TrimPrefix(path.Clean(linkname), "/")
	} else {
		resolved = path.Join(parentOf(name), linkname)
	}
	if resolved == ".." || strings.HasPrefix(resolved, "../") || !w.under(resolved) {
		return fmt.Errorf("%w: symlink to %q points outside the %s /%s", ErrUnsafeEntry, linkname, w.what, w.root)
	}
	if err := w.prepare(dst, false); err != nil {
		return err
	}
	rel, err := filepath.Rel(filepath.Dir(dst), w.hostPath(resolved))
	if err != nil {
		return err
	}
	return os.Symlink(rel, dst)
}

// hardlink links to a regular file written earlier from the same layer (tar hard links always
// refer back into the same archive); anything else would reach outside what was extracted.
func (w *overlayWalker) hardlink(dst, name, linkname string) error {
	target, err := cleanEntryName(linkname)
	if err != nil {
		return fmt.Errorf("hard link target %q: %w", linkname, err)
	}
	if !w.under(target) || (w.single && name == w.root) {
		return fmt.Errorf("%w: hard link to %q points outside the %s /%s", ErrUnsafeEntry, linkname, w.what, w.root)
	}
	if !w.layerFiles[target] {
		return fmt.Errorf("%w: hard link to %q, which is not a regular file earlier in the same layer", ErrUnsafeEntry, linkname)
	}
	if err := w.prepare(dst, false); err != nil {
		return err
	}
	return os.Link(w.hostPath(target), dst)
}

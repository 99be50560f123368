package indeximage

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/olmcat/olmcat/internal/filetree"
)

// write materializes one visible entry under root: into the tree, or for a single file, into
// dest. Permissions are normalized (0755 directories, 0644 files): no set-id bits, no owners,
// nothing executable comes out of an image.
func (w *overlayWalker) write(hdr *tar.Header, name string, body io.Reader) error {
	if w.files >= w.limits.MaxFiles {
		return limitError(fmt.Sprintf("/%s holds more entries than", w.root), int64(w.limits.MaxFiles), EnvMaxFiles)
	}
	w.files++
	if w.single && name != w.root {
		return nil // beneath a "file" that is not one; reported when root itself is seen
	}
	if !w.single && name == w.root && hdr.Typeflag != tar.TypeDir {
		if hdr.Typeflag == tar.TypeSymlink {
			return fmt.Errorf("%w: the %s /%s is a symlink to %q; olmcat does not follow it: point the label at the real directory", ErrUnsafeEntry, w.what, w.root, hdr.Linkname)
		}
		return fmt.Errorf("the %s /%s is not a directory in the image (tar type %q)", w.what, w.root, hdr.Typeflag)
	}
	rel := w.treeName(name)
	switch hdr.Typeflag {
	case tar.TypeDir:
		if w.single {
			return fmt.Errorf("/%s is a directory in the image, not the SQLite file the label names", w.root)
		}
		if err := w.prepare(rel, true); err != nil {
			return err
		}
		if err := w.tree.Mkdir(rel); err != nil {
			return err
		}
	case tar.TypeReg, tar.TypeRegA, tar.TypeGNUSparse:
		if hdr.Size > w.limits.MaxFileBytes {
			return limitError("the file is larger than", w.limits.MaxFileBytes, EnvMaxFileBytes)
		}
		if hdr.Size > w.limits.MaxBytes-w.bytes {
			return limitError(fmt.Sprintf("the files under /%s add up to more than", w.root), w.limits.MaxBytes, EnvMaxBytes)
		}
		if err := w.writeRegular(rel, body, hdr.Size); err != nil {
			return err
		}
		w.bytes += hdr.Size
		w.layerFiles[name] = true
	case tar.TypeSymlink:
		if w.single {
			return fmt.Errorf("/%s is a symlink to %q; olmcat reads the SQLite file only at the path the label names", w.root, hdr.Linkname)
		}
		if err := w.symlink(rel, name, hdr.Linkname); err != nil {
			return err
		}
	case tar.TypeLink:
		if err := w.hardlink(rel, name, hdr.Linkname); err != nil {
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

// writeRegular stores a regular file's content: the single file to dest, anything else in the tree.
func (w *overlayWalker) writeRegular(rel string, body io.Reader, size int64) error {
	if w.single {
		if err := w.prepareSingle(); err != nil {
			return err
		}
		return writeFile(w.dest, body, size, w.copyBuffer())
	}
	if err := w.prepare(rel, false); err != nil {
		return err
	}
	n, err := w.tree.WriteFile(rel, body, w.copyBuffer())
	var readErr *filetree.ReadError
	switch {
	case errors.As(err, &readErr):
		return fmt.Errorf("read file content: %w (the layer is truncated or corrupt: pull or rebuild the image)", readErr.Err)
	case err != nil:
		return fmt.Errorf("extract: %w", err)
	case n != size:
		return fmt.Errorf("extract: read %d bytes, the header says %d", n, size)
	}
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

// prepare makes the parent directories of rel in the tree, refusing to go through a symlink (so a
// link planted by an earlier entry can never redirect a write), and clears a previous entry of the
// same layer at rel (the later duplicate wins, as in docker).
func (w *overlayWalker) prepare(rel string, wantDir bool) error {
	if rel == "." {
		return nil // the catalog directory itself
	}
	if dir := path.Dir(rel); !w.dirs[dir] {
		cur := "."
		if dir != "." {
			for _, part := range strings.Split(dir, "/") {
				cur = path.Join(cur, part)
				mode, ok := w.tree.Kind(cur)
				switch {
				case !ok:
					if err := w.tree.Mkdir(cur); err != nil {
						return err
					}
				case mode&fs.ModeSymlink != 0:
					return fmt.Errorf("%w: lies beneath a symlink of the same layer (/%s)", ErrUnsafeEntry, path.Join(w.root, cur))
				case !mode.IsDir():
					return fmt.Errorf("lies beneath a non-directory of the same layer (/%s)", path.Join(w.root, cur))
				}
			}
		}
		// Checked once per directory: a directory is never removed nor replaced by a link (a
		// non-directory at its path in the same layer is refused, in lower layers hidden).
		w.dirs[dir] = true
	}
	mode, ok := w.tree.Kind(rel)
	switch {
	case !ok:
		return nil
	case mode.IsDir() && wantDir:
		return nil
	case mode.IsDir():
		return fmt.Errorf("the layer has both a directory and a non-directory at this path")
	case wantDir:
		return fmt.Errorf("the layer has both a non-directory and a directory at this path")
	}
	return w.tree.Remove(rel)
}

// prepareSingle clears a previous copy of the single file written from the same layer.
func (w *overlayWalker) prepareSingle() error {
	fi, err := os.Lstat(w.dest)
	switch {
	case os.IsNotExist(err):
		return nil
	case err != nil:
		return err
	case fi.IsDir():
		return fmt.Errorf("the layer has both a directory and a non-directory at this path")
	}
	return os.Remove(w.dest)
}

// symlink stores a link whose target, resolved lexically in the image, stays under root; the tree
// keeps the resolved target, so ".." can only lead up through real directories and never out of
// the catalog, whatever other links exist.
func (w *overlayWalker) symlink(rel, name, linkname string) error {
	var resolved string
	if path.IsAbs(linkname) {
		resolved = strings.TrimPrefix(path.Clean(linkname), "/")
	} else {
		resolved = path.Join(parentOf(name), linkname)
	}
	if resolved == ".." || strings.HasPrefix(resolved, "../") || !w.under(resolved) {
		return fmt.Errorf("%w: symlink to %q points outside the %s /%s", ErrUnsafeEntry, linkname, w.what, w.root)
	}
	if err := w.prepare(rel, false); err != nil {
		return err
	}
	return w.tree.Symlink(rel, w.treeName(resolved))
}

// hardlink links to a regular file written earlier from the same layer (tar hard links always
// refer back into the same archive); anything else would reach outside what was extracted.
func (w *overlayWalker) hardlink(rel, name, linkname string) error {
	target, err := cleanEntryName(linkname)
	if err != nil {
		return fmt.Errorf("hard link target %q: %w", linkname, err)
	}
	if !w.under(target) || w.single {
		return fmt.Errorf("%w: hard link to %q points outside the %s /%s", ErrUnsafeEntry, linkname, w.what, w.root)
	}
	if !w.layerFiles[target] {
		return fmt.Errorf("%w: hard link to %q, which is not a regular file earlier in the same layer", ErrUnsafeEntry, linkname)
	}
	if err := w.prepare(rel, false); err != nil {
		return err
	}
	return w.tree.Link(rel, w.treeName(target))
}

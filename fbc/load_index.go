package fbc

import (
	"bytes"
	"io"
	"slices"
	"sync"

	"github.com/olmcat/olmcat/internal/bytepool"
)

// The first reading of WalkPackages (indexTree) notes which files hold which packages, and where
// each blob of a JSON file lies. Files of up to wholeFileLimit are read in whole and split,
// checked and placed in one pass (placeJSON) by helper goroutines, a few files ahead, while the
// walk goes on: the first reading is most of the reading of a catalog, and it is the part no
// other work can overlap (no package is handed over before it is done). What the helpers found is
// noted in walk order, and everything they do not handle (a file that is not one placeJSON
// takes, a large one, one that cannot be opened) is read by the walk itself in its turn, so the
// problems come out in the same order as from a walk reading one file after another.

const (
	indexHelpers   = 2 // goroutines reading whole files
	indexReadAhead = 4 // files read ahead of the one noted next, at most (besides the helpers' own)
)

// wholeFile is one file of the first reading, taken in whole by a helper.
type wholeFile struct {
	name   string
	f      io.ReadCloser
	layout *fileLayout // its stamp; the places of its blobs go in once noted
	done   chan struct{}

	// Set by the helper before done is closed.
	buf    []byte // from bytepool, given back once the file is noted
	text   []byte // what was read
	placed []placedBlob
	ok     bool // placed holds every blob of the file
}

// read reads the whole file and places its blobs.
func (w *wholeFile) read(maxBlob int) {
	defer close(w.done)
	size := int(w.layout.size)
	w.buf = bytepool.Get(size + 1)[:size+1]
	n, err := io.ReadFull(w.f, w.buf)
	w.text = w.buf[:n]
	if err != io.ErrUnexpectedEOF || n != size { // not as large as it was said to be
		return
	}
	var base int64
	if bytes.HasPrefix(w.text, utf8BOM) {
		base = int64(len(utf8BOM))
	}
	w.placed, w.ok = placeJSON(w.text[base:], base, maxBlob, nil)
}

// indexTree is the first reading of every file of the tree.
func (l Loader) indexTree(tree *catalogTree, idx *packageIndex, errs *errorList) error {
	jobs := make(chan *wholeFile)
	var helpers sync.WaitGroup
	maxBlob := l.maxBlob()
	for range indexHelpers {
		helpers.Add(1)
		go func() {
			defer helpers.Done()
			for w := range jobs {
				w.read(maxBlob)
			}
		}()
	}
	var pending []*wholeFile // handed to the helpers, in walk order
	defer func() {
		close(jobs)
		helpers.Wait()
		for _, w := range pending { // the walk stopped early
			_ = w.f.Close()
		}
	}()
	var failed error // an error noting a file, which stops the walk
	noteNext := func() {
		w := pending[0]
		pending = pending[1:]
		<-w.done
		defer w.f.Close()
		if err := l.indexWhole(w, idx, errs); err != nil && failed == nil {
			failed = err
		}
	}
	flush := func() {
		for len(pending) > 0 {
			noteNext()
		}
	}
	// A problem of the walk itself is reported once the files before it are noted.
	report := func(e *LoadError) {
		flush()
		errs.add(e)
	}
	err := tree.files(report, func(name string) error {
		if failed != nil {
			return failed
		}
		if err := l.stopped(); err != nil {
			return err
		}
		f, err := tree.open(name)
		if err != nil {
			report(fileError(name, err, "cannot open the file"))
			return nil
		}
		// The stamp is taken before reading: a file written to while it is read shows a newer time.
		layout := &fileLayout{}
		size, mtime, stamped := fileStamp(f)
		layout.size, layout.mtime = size, mtime
		if stamped && size > 0 && size <= wholeFileLimit {
			w := &wholeFile{name: name, f: f, layout: layout, done: make(chan struct{})}
			pending = append(pending, w)
			jobs <- w
			for len(pending) > indexReadAhead {
				noteNext()
			}
			return nil
		}
		flush()
		defer f.Close()
		return l.indexStream(f, name, stamped, layout, idx, errs)
	})
	if err != nil {
		return err
	}
	flush()
	return failed
}

// indexWhole notes a file a helper read: the blobs it placed, or else, when placeJSON did not take
// the file, what the streaming reader makes of it (the text read, then the rest of the file).
func (l Loader) indexWhole(w *wholeFile, idx *packageIndex, errs *errorList) error {
	if !w.ok {
		// The buffer is not given back: the streaming reader reads it. A file that needs it is
		// rare (one with a problem, or not JSON).
		return l.indexStream(io.MultiReader(bytes.NewReader(w.text), w.f), w.name, true, w.layout, idx, errs)
	}
	// The places are kept until the second reading, for every blob of the catalog: no spare room.
	w.layout.spans = make([]blobSpan, len(w.placed))
	for i, p := range w.placed {
		idx.note(w.name, p.pkgName)
		w.layout.spans[i] = p.span
	}
	idx.layouts[w.name] = w.layout
	bytepool.Put(w.buf)
	return nil
}

// indexStream notes the file read from r with the streaming reader, and where each blob lies when
// placed (the file's stamp is known) and every blob is a JSON one.
func (l Loader) indexStream(r io.Reader, name string, placed bool, layout *fileLayout, idx *packageIndex, errs *errorList) error {
	err := l.readStream(r, name, func(b Blob) error {
		idx.note(name, b.PackageName())
		if placed = placed && b.span.n > 0; placed {
			layout.spans = append(layout.spans, b.span)
		}
		bytepool.Put(b.Data) // only names and places are kept: the next blob can reuse the buffer
		return nil
	}, errs)
	if placed && len(layout.spans) > 0 {
		layout.spans = slices.Clone(layout.spans) // without the room append left
		idx.layouts[name] = layout
	}
	return err
}

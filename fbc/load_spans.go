package fbc

import (
	"bytes"
	"io"
	"io/fs"
	"math"
	"time"
	"unicode/utf8"

	"github.com/olmcat/olmcat/internal/bytepool"
)

// WalkPackages reads a catalog twice (see there). The first reading splits every JSON file into
// blobs, checks them and notes where each lies; the second takes each blob of the packages it
// hands over straight from there (one positioned read per blob), instead of splitting the file
// again, finding each blob's head again and copying it out of the read buffer: on the s5k bench
// catalog that was a third of the time of a heads-only filter. A file that is no longer as the
// first reading saw it (size or modification time), a YAML file, and a file that cannot be read
// at a position are read afresh as before.

// blobSpan is where one blob of a JSON file lies, as the first reading found it: 24 bytes a blob,
// kept for every blob of the catalog until the second reading.
type blobSpan struct {
	off  int64
	n    uint32 // the blob's length in bytes; 0: not known (a YAML document, or too large to note)
	line uint32 // the line the blob starts on
	// headEnd is where, in the blob, the last of its "schema", "package" and "name" values ends:
	// the second reading finds them again (scanHead) in what comes before, usually a hundred
	// bytes. 0 (no schema, which every blob read has): the blob held invalid UTF-8, which the
	// loader replaces, so that places in the file do not hold in what it hands over; its head is
	// then found in the whole blob.
	headEnd uint32
}

// setHead records where the head fields scanHead found in a blob whose object starts at first
// end; rescan says the blob's text was changed (invalid UTF-8 replaced).
func (s *blobSpan) setHead(bounds [3][2]int, first int, rescan bool) {
	s.headEnd = 0
	if rescan {
		return
	}
	for _, r := range bounds {
		s.headEnd = max(s.headEnd, uint32(first+r[1]))
	}
}

// rescan reports whether the blob's head is to be found in the whole blob (see headEnd).
func (s *blobSpan) rescan() bool { return s.headEnd == 0 }

// place records where the blob lies in its file, once the splitter has found it; a blob whose
// length or line does not fit the record is left unplaced (its file is then read afresh).
func (s *blobSpan) place(off int64, n, line int) {
	if n <= 0 || n > math.MaxUint32 || line <= 0 || line > math.MaxUint32 {
		return
	}
	s.off, s.n, s.line = off, uint32(n), uint32(line)
}

// fileLayout is what the first reading of a file noted for the second: the blobs of a JSON file,
// and its size and modification time, by which a file changed in between is recognized.
type fileLayout struct {
	size  int64
	mtime time.Time
	spans []blobSpan
}

// fileStamp is the size and modification time of an opened file, ok false when it cannot tell.
func fileStamp(f io.Reader) (size int64, mtime time.Time, ok bool) {
	st, isStater := f.(interface{ Stat() (fs.FileInfo, error) })
	if !isStater {
		return 0, time.Time{}, false
	}
	info, err := st.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return 0, time.Time{}, false
	}
	return info.Size(), info.ModTime(), true
}

// readPlaced reads the blobs of file name at the places layout gives, handing each to add in file
// order. It returns false, having handed over nothing, when the file cannot be read so (it is not
// as it was at the first reading, or cannot be read at a position): the caller then reads it
// afresh, which reports what is wrong with it.
func (l Loader) readPlaced(tree *catalogTree, name string, layout *fileLayout, add func(Blob) error) (bool, error) {
	f, err := tree.open(name)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	ra, isReaderAt := f.(io.ReaderAt)
	size, mtime, ok := fileStamp(f)
	if !isReaderAt || !ok || size != layout.size || !mtime.Equal(layout.mtime) {
		return false, nil
	}
	// All the blobs of the file are read before any is handed over, so that a file found changed
	// halfway is read afresh whole. They are held together anyway: a file's blobs are one package,
	// or packages that are loaded together.
	blobs := make([]Blob, 0, len(layout.spans))
	release := func() {
		for _, b := range blobs {
			bytepool.Put(b.Data)
		}
	}
	for _, sp := range layout.spans {
		data := bytepool.Get(int(sp.n))[:sp.n]
		if _, err := ra.ReadAt(data, sp.off); err != nil {
			bytepool.Put(data)
			release()
			return false, nil
		}
		b, ok := sp.blob(data, name)
		if !ok {
			bytepool.Put(data)
			release()
			return false, nil
		}
		blobs = append(blobs, b)
	}
	for i, b := range blobs {
		if err := add(b); err != nil {
			for _, rest := range blobs[i+1:] {
				bytepool.Put(rest.Data)
			}
			return true, err
		}
	}
	return true, nil
}

// blob makes the Blob of data, the text read at the span; ok is false when the text is plainly
// not what the first reading found there (the file changed without its size and time showing it).
func (sp *blobSpan) blob(data []byte, file string) (Blob, bool) {
	if len(data) == 0 || data[0] != '{' || data[len(data)-1] != '}' {
		return Blob{}, false
	}
	loc := Location{File: file, Line: int(sp.line)}
	if sp.rescan() {
		b, lerr := newBlob(data, loc, false)
		return b, lerr == nil
	}
	if sp.headEnd > uint32(len(data)) {
		return Blob{}, false
	}
	var fields [3]string
	for i, r := range scanHead(data[:sp.headEnd]) {
		raw := data[r[0]:r[1]]
		if i == 0 && len(raw) >= 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0 {
			fields[i] = internString(raw[1 : len(raw)-1]) // the schema: one of a few
			continue
		}
		s, err := jsonString(raw)
		if err != nil {
			return Blob{}, false
		}
		fields[i] = s
	}
	b := Blob{Schema: fields[0], Package: fields[1], Name: fields[2], Data: data, Loc: loc}
	if checkIdentity(b) != nil {
		return Blob{}, false
	}
	return b, true
}

// wholeFileLimit is the largest file the first reading of WalkPackages takes in whole, to split
// and check it in one pass (placeJSON). Larger files are streamed blob by blob, as Walk reads
// them, so that the memory a walk takes does not grow with a file (a single-file catalog).
const wholeFileLimit = 16 << 20

// placedBlob is one blob placeJSON found: where it lies, and the package it belongs to.
type placedBlob struct {
	span    blobSpan
	pkgName string
}

// placeJSON splits data, the whole text of a JSON file (past a byte order mark, which takes the
// base first bytes of the file), into its blobs, checking each as the streaming reader does and
// finding its head, in one pass over the text: the streaming reader splits the text, then checks
// each blob, then scans it again for its head. It handles the files without a problem only: it
// gives up (ok false) at the first blob it would have to report (syntax, a blob too large, not an
// object, a missing or mistyped schema, package or name, invalid UTF-8) and at anything it is
// not sure to read as the streaming reader does; the file is then streamed, which reports it.
func placeJSON(data []byte, base int64, maxBlob int, into []placedBlob) ([]placedBlob, bool) {
	s := jsonScanner{data: data}
	line, counted := 1, 0 // the line of data[counted]
	for {
		s.space()
		if s.i == len(data) {
			return into, len(into) > 0
		}
		start := s.i
		if data[start] != '{' || len(into) == 0 && start >= readBufferSize {
			// Not an object; or so much space first that the streaming reader, which looks that
			// far for the '{' that makes a file JSON, would read the file as YAML.
			return into, false
		}
		head, ok := s.topMembers()
		if !ok {
			return into, false
		}
		blob := data[start:s.i]
		if len(blob) > maxBlob || !utf8.Valid(blob) {
			return into, false
		}
		line += bytes.Count(data[counted:start], newline)
		counted = start
		var fields [3]string
		for i, r := range head {
			v, err := jsonString(blob[r[0]:r[1]])
			if err != nil {
				return into, false
			}
			fields[i] = v
		}
		b := Blob{Schema: fields[0], Package: fields[1], Name: fields[2]}
		if checkIdentity(b) != nil {
			return into, false
		}
		var sp blobSpan
		sp.setHead(head, 0, false)
		if sp.place(base+int64(start), len(blob), line); sp.n == 0 {
			return into, false
		}
		into = append(into, placedBlob{span: sp, pkgName: b.PackageName()})
	}
}

// topMembers scans the object at s.i, checking it completely, and returns the bounds (from the
// object's first byte) of its "schema", "package" and "name" values as scanHead finds them.
func (s *jsonScanner) topMembers() (head [3][2]int, ok bool) {
	start := s.i
	s.i++
	if s.consume('}') {
		return head, true
	}
	for {
		s.space()
		keyFrom := s.i
		if _, _, _, ok := s.str(); !ok {
			return head, false
		}
		keyTo := s.i
		if !s.consume(':') {
			return head, false
		}
		s.space()
		valueFrom := s.i
		if !s.skipValue() {
			return head, false
		}
		if slot := headSlot(unquoteKey(s.data[keyFrom:keyTo])); slot >= 0 {
			head[slot] = [2]int{valueFrom - start, s.i - start}
		}
		if s.consume(',') {
			continue
		}
		return head, s.consume('}')
	}
}

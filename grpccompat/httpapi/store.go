// Package httpapi serves a catalog over catalogd's HTTP API, the one OLM v1 (operator-controller)
// reads: /api/v1/all, the whole catalog as a stream of JSON lines, and /api/v1/metas, the blobs
// whose schema, package and name match the query, both also under catalogd's per-catalog prefix
// /catalogs/NAME/. The answers are catalogd's byte for byte. Blob bodies are kept in a temporary
// file, one line each as catalogd re-encodes them, with an in-memory index of their offsets, so
// memory does not grow with the catalog's size.
package httpapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/grpccompat/fbcbackend"
	"github.com/olmcat/olmcat/internal/scratch"
)

// section is one blob's line in the store file (its trailing newline included).
type section struct {
	off int64
	n   int64
}

// Builder writes blobs to a store file in the order they are added. It is not safe for concurrent
// use; the source's Walk calls fn from one goroutine.
type Builder struct {
	f         *os.File
	remove    func() error
	w         *bufio.Writer
	off       int64
	line      bytes.Buffer
	secs      []section
	bySchema  map[string][]int32
	byPackage map[string][]int32
	byName    map[string][]int32
}

// NewBuilder creates the store file in dir ("" = the system's temporary directory). It is tracked
// with package scratch, so a signal handler that calls scratch.RemoveAll removes it.
func NewBuilder(dir string) (*Builder, error) {
	f, remove, err := scratch.CreateTemp(dir, "olmcat-http-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("create the HTTP API's blob store: %w", err)
	}
	return &Builder{
		f: f, remove: remove, w: bufio.NewWriterSize(f, 1<<20),
		bySchema: map[string][]int32{}, byPackage: map[string][]int32{}, byName: map[string][]int32{},
	}, nil
}

// Add appends one blob as catalogd stores it: decoded and re-encoded as operator-registry's
// declcfg.Meta does (object keys sorted, no HTML escaping, numbers through float64), compact on
// one line. Its schema, package and name fields (as written in the blob: an olm.package blob has
// no package field) index it.
func (b *Builder) Add(blob fbc.Blob) error {
	b.line.Reset()
	norm, err := fbcbackend.NormalizeJSON(blob.Data)
	if err != nil {
		return fmt.Errorf("%s: blob %q of package %q: %w", blob.Loc, blob.Name, blob.Package, err)
	}
	b.line.Write(norm)
	b.line.WriteByte('\n')
	n, err := b.w.Write(b.line.Bytes())
	if err != nil {
		return fmt.Errorf("write the HTTP API's blob store: %w", err)
	}
	id := int32(len(b.secs))
	b.secs = append(b.secs, section{off: b.off, n: int64(n)})
	b.off += int64(n)
	if blob.Schema != "" {
		b.bySchema[blob.Schema] = append(b.bySchema[blob.Schema], id)
	}
	pkg := blob.Package
	if blob.Schema == fbc.SchemaPackage {
		// A converted index.db names an olm.package blob's package in Blob.Package; catalogd
		// indexes the field, which such a blob has not (its name is the package).
		var fields struct{ Package string }
		json.Unmarshal(blob.Data, &fields) // the blob is valid JSON: Compact took it
		pkg = fields.Package
	}
	if pkg != "" {
		b.byPackage[pkg] = append(b.byPackage[pkg], id)
	}
	if blob.Name != "" {
		b.byName[blob.Name] = append(b.byName[blob.Name], id)
	}
	return nil
}

// Added is the number of blobs added so far.
func (b *Builder) Added() int { return len(b.secs) }

// Finish flushes the file and returns the store; the builder must not be used after.
func (b *Builder) Finish() (*Store, error) {
	if err := b.w.Flush(); err != nil {
		b.Discard()
		return nil, fmt.Errorf("write the HTTP API's blob store: %w", err)
	}
	every := make([]int32, 0, len(b.secs))
	for _, ids := range b.bySchema {
		every = append(every, ids...)
	}
	sortIDs(every)
	return &Store{
		f: b.f, remove: b.remove, size: b.off, secs: b.secs, withSchema: every,
		bySchema: b.bySchema, byPackage: b.byPackage, byName: b.byName,
		modTime: time.Now().UTC(),
	}, nil
}

// Discard removes the file of a store that will not be finished.
func (b *Builder) Discard() {
	b.f.Close()
	b.remove()
}

// Store is a loaded catalog as the HTTP API serves it. It is read-only and safe for concurrent use.
type Store struct {
	f          *os.File
	remove     func() error
	size       int64
	secs       []section
	withSchema []int32 // every blob that has a schema, in file order
	bySchema   map[string][]int32
	byPackage  map[string][]int32
	byName     map[string][]int32
	modTime    time.Time
}

// All reads the whole stream: every blob, one line each, in the catalog's order.
func (s *Store) All() *io.SectionReader { return io.NewSectionReader(s.f, 0, s.size) }

// Open opens the whole stream as a file of its own (its own offset, so one per request): net/http
// then sends it with sendfile, without copying it through the process. Where the system offers
// it, the file is opened again through the descriptor the store holds (/proc/self/fd), so that
// it keeps working after its name is gone: a server runs for months, and a cleaner of the
// temporary directory may remove a file it takes for old.
func (s *Store) Open() (*os.File, error) {
	if f, err := os.Open("/proc/self/fd/" + strconv.FormatUint(uint64(s.f.Fd()), 10)); err == nil {
		return f, nil
	}
	return os.Open(s.f.Name())
}

// Size is the length of the whole stream in bytes.
func (s *Store) Size() int64 { return s.size }

// Blobs is the number of blobs.
func (s *Store) Blobs() int { return len(s.secs) }

// ModTime is when the store was finished: the Last-Modified of every answer.
func (s *Store) ModTime() time.Time { return s.modTime }

// Close closes and removes the file.
func (s *Store) Close() error {
	err := s.f.Close()
	if rerr := s.remove(); err == nil {
		err = rerr
	}
	return err
}

// Match is the answer to one metas query: the matching blobs' lines, in file order.
type Match struct {
	s    *Store
	ids  []int32
	Size int64 // total bytes
}

// Lookup selects the blobs as catalogd's index does: empty parameters do not filter, the others
// must all match (schema, and the package and name fields as written in the blob).
func (s *Store) Lookup(schema, pkg, name string) Match {
	ids := s.withSchema
	if schema != "" {
		ids = s.bySchema[schema]
	}
	if pkg != "" {
		ids = intersect(ids, s.byPackage[pkg])
	}
	if name != "" {
		ids = intersect(ids, s.byName[name])
	}
	m := Match{s: s, ids: ids}
	for _, id := range ids {
		m.Size += s.secs[id].n
	}
	return m
}

// Blobs is the number of matching blobs.
func (m Match) Blobs() int { return len(m.ids) }

// WriteTo copies the matching lines to w, one read for each run of adjacent blobs.
func (m Match) WriteTo(w io.Writer) (int64, error) {
	var total int64
	bufp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bufp)
	for i := 0; i < len(m.ids); {
		start := m.s.secs[m.ids[i]]
		end := start.off + start.n
		j := i + 1
		for j < len(m.ids) && m.ids[j] == m.ids[j-1]+1 {
			end += m.s.secs[m.ids[j]].n
			j++
		}
		n, err := io.CopyBuffer(onlyWriter{w}, io.NewSectionReader(m.s.f, start.off, end-start.off), *bufp)
		total += n
		if err != nil {
			return total, err
		}
		i = j
	}
	return total, nil
}

// onlyWriter hides a ResponseWriter's ReadFrom, which would allocate its own buffer per copy.
type onlyWriter struct{ io.Writer }

package source

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cespare/xxhash/v2"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/bytepool"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/scratch"
	"github.com/olmcat/olmcat/sqlite"
)

// A catalog on standard input, a pipe, a FIFO or a character device can be read only once, and a
// command may read its catalog more than once, so the stream is copied to a temporary file (a
// spool) and read from there like any FBC file or index.db. Memory stays that of a file; the
// limits are those of a file (fbc.DefaultMaxBlobSize per blob, binary content refused from the
// first bytes) and, since a stream may never end, of an image's extraction in total
// (indeximage.Limits.MaxBytes, OLMCAT_MAX_INPUT_BYTES). Every read gives way to the context: a
// signal ends a read that waits on a silent pipe or a FIFO nobody opened for writing.

// spool is a stream kept in a temporary file.
type spool struct {
	path string // "" for a stream known to be empty
	size int64
	sum  uint64 // xxhash of the bytes
}

func (sp *spool) open() (io.ReadCloser, error) {
	if sp.path == "" {
		return io.NopCloser(bytes.NewReader(nil)), nil
	}
	return os.Open(sp.path)
}

// digest names the stream's content, for the serve cache.
func (sp *spool) digest() string { return fmt.Sprintf("stream:%d:%016x", sp.size, sp.sum) }

// spoolName is the spooled FBC's file name, which FS shows.
const spoolName = "stdin"

// openStream reads an FBC or an index.db from r (standard input, a pipe, a device) into a spool.
func (s *Source) openStream(ctx context.Context, r io.Reader) error {
	in := &interruptible{ctx: ctx, r: r}
	head := make([]byte, 512)
	n, err := io.ReadFull(in, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return s.streamReadError(ctx, err)
	}
	head = head[:n]
	if isBinary(head) && !sqlite.HasMagic(head) {
		return classify(s.ref.Raw, sqlite.NotSQLite(s.ref.Raw, head))
	}
	dir, remove, err := scratch.MkdirTemp("", "olmcat-stdin-*")
	if err != nil {
		return err
	}
	s.closers = append(s.closers, func() { remove() })
	name := spoolName
	if sqlite.HasMagic(head) {
		name = "index.db"
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	w := &spoolWriter{w: bufio.NewWriterSize(f, 256<<10), limit: indeximage.Limits{}.WithDefaults().MaxBytes, sum: xxhash.New()}
	if s.opts.Images.Limits.MaxBytes > 0 {
		w.limit = s.opts.Images.Limits.MaxBytes
	}
	body := io.TeeReader(io.MultiReader(bytes.NewReader(head), in), w)
	var (
		readErr error
		found   bool // a blob, so the catalog is not empty
		pkg     bool // an olm.package blob
	)
	if sqlite.HasMagic(head) {
		_, readErr = io.Copy(io.Discard, body)
	} else {
		// The loader reads the stream as it would read a file, so that it stops where it would
		// stop reading a file: at a blob larger than its limit, a syntax error, binary content.
		// What it read is the spool; what it found is found again when the spool is read.
		readErr = fbc.WalkReader(body, s.streamName(), func(b fbc.Blob) error {
			found = true
			pkg = pkg || b.Schema == fbc.SchemaPackage
			bytepool.Put(b.Data) // nothing of the blob is kept
			return ctx.Err()
		})
	}
	if err := w.w.Flush(); err != nil && w.err == nil {
		w.err = err
	}
	if err := f.Close(); err != nil && w.err == nil {
		w.err = err
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case w.over:
		return &Error{Ref: s.ref.Raw, Problem: TooLarge,
			Detail: fmt.Sprintf("the stream goes on past %s, olmcat's limit for a catalog read from standard input, a pipe or a device",
				indeximage.FormatSize(w.limit)),
			Hint: fmt.Sprintf("if it is a catalog that large, set %s to a higher value, e.g. %s=%s, or save it to a file first",
				indeximage.EnvMaxBytes, indeximage.EnvMaxBytes, indeximage.FormatSize(2*w.limit))}
	case w.err != nil:
		return fmt.Errorf("keep %s in a temporary file: %w", s.ref.Raw, w.err)
	case in.err != nil:
		return s.streamReadError(ctx, in.err)
	}
	var lerrs *fbc.LoadErrors
	if readErr != nil && !errors.As(readErr, &lerrs) {
		return readErr
	}
	// A blob past the loader's limit ends the stream's reading: the rest was not read, so there
	// is no catalog to report findings on, only an input too large (an endless line).
	var tooLarge *fbc.LoadError
	if lerrs != nil {
		for _, le := range lerrs.Errs {
			if errors.Is(le, fbc.ErrBlobTooLarge) {
				tooLarge = le
				break
			}
		}
	}
	if tooLarge != nil {
		return &Error{Ref: s.ref.Raw, Problem: TooLarge, Err: tooLarge,
			Detail: fmt.Sprintf("line %d: %v", tooLarge.Loc.Line, tooLarge.Err)}
	}
	sp := &spool{path: f.Name(), size: w.n, sum: w.sum.Sum64()}
	if sqlite.HasMagic(head) {
		return s.openIndexDB(sp.path)
	}
	if isTemplate, err := s.openIfTemplate(ctx, sp.path); isTemplate || err != nil {
		return err
	}
	s.format, s.stream = FormatFBC, sp
	switch {
	case pkg || s.opts.AllowEmpty:
		return nil
	case found:
		s.warnNoPackage("catalog")
		return nil
	case lerrs != nil:
		return nil // a stream with problems is a catalog with problems, reported in full by the command
	}
	return s.emptyError()
}

func (s *Source) streamReadError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &Error{Ref: s.ref.Raw, Problem: Unreadable, Detail: err.Error(), Err: err}
}

// spoolWriter writes the spool, up to limit bytes. Past the limit, or after a failed write, it
// fails the read that fed it, which ends the loader's walk.
type spoolWriter struct {
	w     *bufio.Writer
	n     int64
	limit int64
	sum   *xxhash.Digest
	over  bool
	err   error
}

var errSpool = errors.New("spool stopped")

func (sw *spoolWriter) Write(p []byte) (int, error) {
	if sw.over || sw.err != nil {
		return 0, errSpool
	}
	if sw.n+int64(len(p)) > sw.limit {
		sw.over = true
		return 0, errSpool
	}
	if _, err := sw.w.Write(p); err != nil {
		sw.err = err
		return 0, errSpool
	}
	sw.sum.Write(p)
	sw.n += int64(len(p))
	return len(p), nil
}

// interruptible reads r on a goroutine of its own, so that a read blocked on a pipe nobody writes
// to gives way to ctx at once. A read abandoned so ends when r returns, or with the process.
// The first error other than io.EOF is kept in err.
type interruptible struct {
	ctx context.Context
	r   io.Reader
	buf []byte
	err error
}

type readResult struct {
	n   int
	err error
}

func (ir *interruptible) Read(p []byte) (int, error) {
	if err := ir.ctx.Err(); err != nil {
		ir.err = err
		return 0, err
	}
	if cap(ir.buf) < len(p) {
		ir.buf = make([]byte, len(p))
	}
	buf := ir.buf[:len(p)]
	done := make(chan readResult, 1)
	go func() {
		n, err := ir.r.Read(buf)
		done <- readResult{n, err}
	}()
	select {
	case res := <-done:
		n := copy(p, buf[:res.n])
		if res.err != nil && res.err != io.EOF {
			ir.err = res.err
		}
		return n, res.err
	case <-ir.ctx.Done():
		ir.buf = nil // the abandoned read may still write into it
		ir.err = ir.ctx.Err()
		return 0, ir.err
	}
}

// openSpecial opens a pipe, FIFO or device. Opening a FIFO waits for a writer; a signal ends the
// wait (the abandoned open ends with the process, or closes what it opened).
func openSpecial(ctx context.Context, path string) (*os.File, error) {
	type result struct {
		f   *os.File
		err error
	}
	done := make(chan result, 1)
	go func() {
		f, err := os.Open(path)
		done <- result{f, err}
	}()
	select {
	case r := <-done:
		return r.f, r.err
	case <-ctx.Done():
		go func() {
			if r := <-done; r.f != nil {
				r.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// ReadInput reads an input that is not a catalog but a document of one (a catalog template): the
// file at path, or stdin for "-". It is read as a catalog is: binary content is refused from its
// first bytes, at most limit bytes are read (a larger input is a TooLarge error naming
// fbc.EnvMaxBlobBytes: limit is the blob limit, fbc.BlobLimit), and a pipe, a FIFO or a device
// gives way to ctx.
func ReadInput(ctx context.Context, path string, stdin io.Reader, limit int64) ([]byte, error) {
	var r io.Reader
	size := int64(-1) // unknown: a stream
	if path == "-" {
		r = &interruptible{ctx: ctx, r: stdin}
	} else {
		fi, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		var f *os.File
		if fi.Mode().IsRegular() {
			f, err = os.Open(path)
		} else {
			f, err = openSpecial(ctx, path)
		}
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
		if !fi.Mode().IsRegular() {
			r = &interruptible{ctx: ctx, r: f}
		} else {
			size = fi.Size()
		}
	}
	head := make([]byte, 512)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	if isBinary(head[:n]) {
		if sqlite.HasMagic(head[:n]) {
			return nil, &Error{Ref: path, Problem: NotACatalog, Detail: "an index.db (a SQLite database), not YAML or JSON text",
				Hint: "this reads one document; read the index.db as the catalog it is, e.g. olmcat migrate INDEX.DB OUT --to basic-template for its templates"}
		}
		return nil, &Error{Ref: path, Problem: NotACatalog, Detail: "binary content, not YAML or JSON text: it looks like " + sqlite.NotSQLite(path, head[:n]).LooksLike}
	}
	// A file of known size is read into one buffer of its size (at most the limit's), not grown.
	var buf bytes.Buffer
	if size >= 0 {
		buf.Grow(int(min(size, limit)) + bytes.MinRead + 1)
	}
	_, err = buf.ReadFrom(io.LimitReader(io.MultiReader(bytes.NewReader(head[:n]), r), limit+1))
	data := buf.Bytes()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &Error{Ref: path, Problem: TooLarge, Detail: fmt.Sprintf("more than %s, the most olmcat reads of one document", indeximage.FormatSize(limit)),
			Hint: fmt.Sprintf("check that it is the file you meant, or set %s to a higher value, e.g. %s=%s", fbc.EnvMaxBlobBytes, fbc.EnvMaxBlobBytes, indeximage.FormatSize(2*limit))}
	}
	return data, nil
}

// spoolBytes keeps data (a rendered catalog) in a spool, as a stream is kept.
func (s *Source) spoolBytes(data []byte) (*spool, error) {
	dir, remove, err := scratch.MkdirTemp("", "olmcat-stdin-*")
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, func() { remove() })
	p := filepath.Join(dir, spoolName)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		return nil, fmt.Errorf("keep %s in a temporary file: %w", s.ref.Raw, err)
	}
	return &spool{path: p, size: int64(len(data)), sum: xxhash.Sum64(data)}, nil
}

package fbc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/olmcat/olmcat/internal/bytepool"
)

// DefaultMaxBlobSize is the largest blob (one JSON value, or one YAML document) the loader accepts
// unless Loader.MaxBlobSize says otherwise. The largest real bundles (CSV plus CRDs inlined as
// olm.bundle.object) are a few MB; 64 MiB leaves room while keeping a corrupt or hostile file (one
// endless line) from making the loader allocate gigabytes.
const DefaultMaxBlobSize = 64 << 20

const (
	readBufferSize = 64 << 10
	sniffSize      = 8 << 10
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// readers are reused across files: a catalog of 50,000 small files allocated 3 GB of read
// buffers when each file got its own. Blobs never alias the buffer (the splitters copy them out).
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readBufferSize) }}

// fileReader turns one file's bytes into blobs. Problems are handed to report; emit's error (a
// failure of the caller's callback) ends the walk and is returned as is.
type fileReader struct {
	checked bool  // the blobs were validated by an earlier reading (Loader.checked)
	base    int64 // offset in the file of the first byte the splitters see (past a byte order mark)
	file    string
	maxBlob int
	report  func(*LoadError)
	emit    func(Blob) error
}

// errStopFile tells a splitter to stop reading the current file; the reason was reported already.
var errStopFile = errors.New("stop reading this file")

// read reads every blob of r. It decides between JSON and YAML from the content, as opm does: a
// stream whose first non-space character is '{' is a JSON stream, anything else is YAML.
func (fr *fileReader) read(r io.Reader) error {
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil)
		readers.Put(br)
	}()
	if b, _ := br.Peek(len(utf8BOM)); bytes.Equal(b, utf8BOM) {
		_, _ = br.Discard(len(utf8BOM))
		fr.base = int64(len(utf8BOM))
	}
	head, err := br.Peek(sniffSize)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		fr.report(readError(Location{File: fr.file}, err))
		return nil
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		fr.report(locErr(Location{File: fr.file}, ErrNotCatalogData,
			"not a JSON or YAML file: binary content (NUL byte at offset %d); remove it from the catalog or list it in a .indexignore file", i))
		return nil
	}
	first := firstNonSpace(head)
	if first < 0 && len(head) == sniffSize {
		more, _ := br.Peek(readBufferSize)
		first = firstNonSpace(more)
	}
	var splitErr error
	if first >= 0 && byteAt(br, first) == '{' {
		splitErr = fr.readJSON(br)
	} else {
		if !utf8.Valid(trimPartialRune(head)) {
			fr.report(locErr(Location{File: fr.file}, ErrNotCatalogData,
				"not a JSON or YAML file: not UTF-8 text; remove it from the catalog or list it in a .indexignore file"))
			return nil
		}
		splitErr = fr.readYAML(br)
	}
	if splitErr == errStopFile {
		return nil
	}
	return splitErr
}

func byteAt(br *bufio.Reader, i int) byte {
	b, _ := br.Peek(i + 1)
	if len(b) <= i {
		return 0
	}
	return b[i]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func firstNonSpace(b []byte) int {
	for i, c := range b {
		if !isSpace(c) {
			return i
		}
	}
	return -1
}

// trimPartialRune drops an incomplete UTF-8 sequence cut off at the end of a sniffed prefix.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

func readError(loc Location, err error) *LoadError {
	return &LoadError{Loc: loc, Err: &problem{kind: err, msg: fmt.Sprintf("cannot read the file: %v", err)}}
}

func tooLarge(loc Location, limit int) *LoadError {
	return locErr(loc, ErrBlobTooLarge,
		"a blob goes on past %s, the most olmcat reads of one JSON value or YAML document; the file is probably corrupt (a missing closing brace or an endless line), or set %s to a higher value, e.g. %s=%s; the rest of the file was not read",
		formatBlobSize(limit), EnvMaxBlobBytes, EnvMaxBlobBytes, formatBlobSize(2*limit))
}

// EnvMaxBlobBytes raises the loader's blob limit (DefaultMaxBlobSize) for every command, as the
// OLMCAT_MAX_* variables of package indeximage raise theirs: a number of bytes with an optional
// unit K, M or G (powers of 1024; KiB, MB... read the same way), e.g. OLMCAT_MAX_BLOB_BYTES=256M.
const EnvMaxBlobBytes = "OLMCAT_MAX_BLOB_BYTES"

// blobLimitFromEnv is the blob limit of a Loader that sets none: EnvMaxBlobBytes when it holds a
// size (the command line refuses a bad one before anything runs), else DefaultMaxBlobSize.
var blobLimitFromEnv = sync.OnceValue(func() int {
	if n, ok := parseBlobSize(os.Getenv(EnvMaxBlobBytes)); ok {
		return n
	}
	return DefaultMaxBlobSize
})

// BlobLimit is the blob limit of every reading that sets none: EnvMaxBlobBytes when it holds a size,
// else DefaultMaxBlobSize. Whatever reads one document of a catalog input whole (a catalog
// template, a bundle's file, the first document of a file to tell a template from a catalog)
// stops there, so that no form of an input costs more memory than a blob of the catalog does.
func BlobLimit() int { return blobLimitFromEnv() }

// parseBlobSize reads a positive size as indeximage.ParseSize does (which package fbc cannot
// import), up to 1 TiB.
func parseBlobSize(s string) (int, bool) {
	s = strings.TrimSpace(s)
	num := strings.TrimRightFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.ToUpper(strings.TrimSpace(s[len(num):]))
	unit = strings.TrimSuffix(strings.TrimSuffix(unit, "B"), "I")
	shift, ok := map[string]uint{"": 0, "K": 10, "M": 20, "G": 30}[unit]
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if !ok || err != nil || n <= 0 || n > (1<<40)>>shift {
		return 0, false
	}
	return int(n << shift), true
}

// FormatBlobSize writes n in the largest binary unit that divides it (64MiB), as EnvMaxBlobBytes
// reads it.
func FormatBlobSize(n int) string { return formatBlobSize(n) }

// formatBlobSize writes n in the largest binary unit that divides it (64MiB).
func formatBlobSize(n int) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.Itoa(n>>u.shift) + u.name
		}
	}
	return strconv.Itoa(n) + " bytes"
}

// appendCapped appends chunk to buf unless that would make buf longer than limit. It grows buf by
// doubling, so that building a blob of n bytes allocates at most about 2n, taking buffers from
// bytepool; with recycle, a buffer outgrown goes back to the pool (buf must then be the caller's
// alone).
func appendCapped(buf, chunk []byte, limit int, recycle bool) ([]byte, bool) {
	need := len(buf) + len(chunk)
	if need > limit {
		return buf, false
	}
	if need > cap(buf) {
		newCap := max(2*cap(buf), need, 512)
		// Past a quarter of the limit the buffer goes straight to the limit: an endless line then
		// holds the limit and one quarter of it at once, not the limit, half and the pooled smaller
		// steps (issue 35: memory bounded by twice the limit and a constant, whatever the file).
		large := newCap > limit/4
		if large {
			newCap = limit
		}
		grown := bytepool.Get(min(newCap, limit))[:len(buf)]
		copy(grown, buf)
		if recycle && buf != nil && !large {
			bytepool.Put(buf)
		}
		buf = grown
	}
	return append(buf, chunk...), true
}

// dropTooLarge lets go of the buffer of a blob that passed the limit, and collects at once. A
// directory is read three times as it is opened (for templates, for emptiness, then for the
// command), each reading growing a buffer to the limit for the same endless line: pooled, the
// buffer is often gone from the pool by the next reading while still counted in the heap, and the
// process held three times the limit (256 MiB line, 64 MiB limit: 210-240 MB). Collected here, the
// next reading reuses its memory. A blob this large is a broken or hostile file, so the collection
// costs nothing a real catalog pays.
func dropTooLarge(buf []byte) {
	if cap(buf) >= 1<<20 {
		runtime.GC()
	}
}

// window returns the unread bytes buffered in br, reading more when there are none.
func window(br *bufio.Reader) ([]byte, error) {
	if br.Buffered() == 0 {
		if _, err := br.Peek(1); err != nil {
			return nil, err
		}
	}
	return br.Peek(br.Buffered())
}

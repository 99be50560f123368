package sqlite

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// sqliteMagic starts every SQLite 3 database file.
var sqliteMagic = []byte("SQLite format 3\x00")

const headerSize = 100

// IsSQLiteFile reports whether path is a regular file that starts with the SQLite 3 magic header.
// It is how commands tell an index.db from an FBC file, whatever the file is called.
func IsSQLiteFile(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() {
		return false, nil
	}
	head := make([]byte, len(sqliteMagic))
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, err
	}
	return bytes.Equal(head[:n], sqliteMagic), nil
}

// header is what olmcat checks in the 100-byte database header before handing the file to SQLite.
type header struct {
	pageSize  int64
	pageCount int64 // 0 when the header's count is not trustworthy
	walMode   bool
}

// checkFile makes sure path is a complete SQLite file, and explains what it is otherwise.
func checkFile(path string) (*header, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open index database: %w", err)
	}
	if fi.IsDir() {
		return nil, &NotSQLiteError{Path: path, LooksLike: "a directory",
			Hint: "an index database is a single file (index.db); a directory is read as a File-Based Catalog"}
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotSQLiteError{Path: path, LooksLike: "a special file (" + fi.Mode().Type().String() + ")"}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open index database: %w", err)
	}
	defer f.Close()
	buf := make([]byte, 512)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	buf = buf[:n]
	if !bytes.HasPrefix(buf, sqliteMagic) {
		what, hint := describeBytes(buf)
		return nil, &NotSQLiteError{Path: path, LooksLike: what, Hint: hint}
	}
	if len(buf) < headerSize {
		return nil, &CorruptError{Path: path, Detail: fmt.Sprintf("file is truncated: only %d bytes, shorter than the 100-byte SQLite header", len(buf))}
	}
	h := parseHeader(buf[:headerSize])
	if h.pageSize == 0 {
		return nil, &CorruptError{Path: path, Detail: "the header's page size is invalid"}
	}
	size := fi.Size()
	if size%h.pageSize != 0 {
		return nil, &CorruptError{Path: path, Detail: fmt.Sprintf("file is truncated: %d bytes is not a whole number of %d-byte pages", size, h.pageSize)}
	}
	if h.pageCount > 0 && size < h.pageCount*h.pageSize {
		return nil, &CorruptError{Path: path, Detail: fmt.Sprintf("file is truncated: %d of %d pages present", size/h.pageSize, h.pageCount)}
	}
	if h.walMode {
		if wi, err := os.Stat(path + "-wal"); err == nil && wi.Size() > 0 {
			return nil, fmt.Errorf("%s is in write-ahead-log mode and %s-wal holds changes not yet in the main file; olmcat reads the file without writing to it, so checkpoint it first (e.g. sqlite3 %s 'PRAGMA wal_checkpoint(TRUNCATE)') on a copy", path, path, path)
		}
	}
	return h, nil
}

func parseHeader(b []byte) *header {
	h := &header{}
	ps := int64(binary.BigEndian.Uint16(b[16:18]))
	if ps == 1 {
		ps = 65536
	}
	if ps >= 512 && ps <= 65536 && ps&(ps-1) == 0 {
		h.pageSize = ps
	}
	h.walMode = b[18] == 2 || b[19] == 2
	changeCounter := binary.BigEndian.Uint32(b[24:28])
	validFor := binary.BigEndian.Uint32(b[92:96])
	if count := binary.BigEndian.Uint32(b[28:32]); count > 0 && changeCounter == validFor {
		h.pageCount = int64(count)
	}
	return h
}

// describeBytes says in a few words what a non-SQLite file looks like, and what to do about it.
func describeBytes(b []byte) (what, hint string) {
	trimmed := bytes.TrimLeft(b, " \t\r\n\ufeff")
	switch {
	case len(b) == 0:
		return "an empty file", ""
	case bytes.HasPrefix(b, []byte{0x1f, 0x8b}):
		return "gzip-compressed data", "decompress it first (gunzip)"
	case bytes.HasPrefix(b, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return "xz-compressed data", "decompress it first (unxz)"
	case bytes.HasPrefix(b, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return "zstd-compressed data", "decompress it first (unzstd)"
	case bytes.HasPrefix(b, []byte("BZh")):
		return "bzip2-compressed data", "decompress it first (bunzip2)"
	case bytes.HasPrefix(b, []byte("PK\x03\x04")):
		return "a zip archive", "extract the index.db from it first"
	case len(b) > 262 && bytes.Equal(b[257:262], []byte("ustar")):
		return "a tar archive", "extract the index.db from it first (an image layer? the database is usually at /database/index.db)"
	case bytes.HasPrefix(b, []byte("\x7fELF")):
		return "an executable program (ELF)", ""
	case bytes.HasPrefix(b, []byte("SQLite format")):
		return "a SQLite file of an unsupported format version", ""
	case !IsText(b):
	case len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '['):
		return "JSON text", "File-Based Catalog files are read by the FBC commands, not as an index database"
	case bytes.HasPrefix(trimmed, []byte("---")) || bytes.HasPrefix(trimmed, []byte("schema:")):
		return "YAML text", "File-Based Catalog files are read by the FBC commands, not as an index database"
	default:
		return "a text file", ""
	}
	n := min(len(b), 8)
	return fmt.Sprintf("binary data starting with % x", b[:n]), ""
}

// IsText reports whether the first bytes of a file are UTF-8 text without NUL bytes (a rune cut
// at the end of b does not count against it).
func IsText(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return false
	}
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				b = b[:i]
			}
			break
		}
	}
	return utf8.Valid(b)
}

// HasMagic reports whether head, the first bytes of a file or stream, starts like a SQLite 3
// database.
func HasMagic(head []byte) bool { return bytes.HasPrefix(head, sqliteMagic) }

// NotSQLite is the error for a file or stream named name whose first bytes, head, are not a
// SQLite database, saying what they look like.
func NotSQLite(name string, head []byte) *NotSQLiteError {
	what, hint := describeBytes(head)
	return &NotSQLiteError{Path: name, LooksLike: what, Hint: hint}
}

package indeximage

import (
	"errors"
	"fmt"
	"io"
)

// Limits bound what one Fetch may extract or read, so that a hostile or broken image (a
// decompression bomb, millions of tiny files) fails fast with a clear error instead of filling the
// disk or running for hours. Zero fields take the defaults below.
type Limits struct {
	// MaxBytes caps the bytes of regular files written out of the catalog path.
	MaxBytes int64
	// MaxFiles caps the entries (files, directories, links) written out of the catalog path.
	MaxFiles int
	// MaxScannedBytes caps the uncompressed layer bytes read in total, extracted or skipped.
	MaxScannedBytes int64
}

// Default limits: far above any real catalog (the largest public index.db files are about 1 GB, the
// largest FBC catalogs some hundred thousand files), far below what would hurt the machine.
const (
	DefaultMaxBytes        int64 = 8 << 30
	DefaultMaxFiles              = 1_000_000
	DefaultMaxScannedBytes int64 = 64 << 30
)

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultMaxFiles
	}
	if l.MaxScannedBytes <= 0 {
		l.MaxScannedBytes = DefaultMaxScannedBytes
	}
	return l
}

// ErrLimitExceeded is wrapped by every error raised because a Limits cap was reached.
var ErrLimitExceeded = errors.New("limit exceeded")

// ErrUnsafeEntry is wrapped by every error raised because a layer entry could escape the
// extraction directory or is of a kind a catalog never holds (devices, fifos).
var ErrUnsafeEntry = errors.New("unsafe layer entry")

// budgetReader counts the uncompressed bytes read from all layers and fails past the cap.
type budgetReader struct {
	r     io.Reader
	read  *int64
	limit int64
}

func (b *budgetReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	*b.read += int64(n)
	if *b.read > b.limit {
		return n, fmt.Errorf("%w: read more than %d uncompressed layer bytes (Limits.MaxScannedBytes); the image is a decompression bomb or needs a higher limit", ErrLimitExceeded, b.limit)
	}
	return n, err
}

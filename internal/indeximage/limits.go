package indeximage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Limits bound what one Fetch may extract or read, so that a hostile or broken image (a
// decompression bomb, millions of tiny files) fails fast with a clear error instead of filling the
// disk or running for hours. Zero fields take the defaults: the environment variable named in
// LimitVars when it is set, else the Default constants below.
type Limits struct {
	// MaxBytes caps the bytes of regular files written out of the catalog path, in total. It also
	// caps a catalog read from standard input, a pipe or a device, which is kept in a temporary
	// file (package source).
	MaxBytes int64
	// MaxFileBytes caps each regular file written out of the catalog path.
	MaxFileBytes int64
	// MaxFiles caps the entries (files, directories, links) written out of the catalog path.
	MaxFiles int
	// MaxScannedBytes caps the uncompressed layer bytes read in total, extracted or skipped.
	MaxScannedBytes int64
	// MaxExpansion caps how many times its compressed size a layer may uncompress to, once past
	// expansionFloor bytes: a decompression bomb is refused after a few MB, whatever its total.
	MaxExpansion int64
	// MaxManifestBytes caps each image manifest, image index and config, which are read whole
	// into memory (real ones are kilobytes): a registry's answer is cut off there, and a config
	// declared larger is refused before it is read.
	MaxManifestBytes int64
}

// Default limits: far above any real catalog (the largest public index.db files are about 1 GB, the
// largest FBC catalogs some hundred thousand files and 2 GB), far below what would hurt the
// machine: a 2.6 MB gzip bomb may not fill TMPDIR with gigabytes before it fails.
const (
	DefaultMaxBytes        int64 = 4 << 30
	DefaultMaxFileBytes    int64 = 2 << 30
	DefaultMaxFiles              = 1_000_000
	DefaultMaxScannedBytes int64 = 16 << 30
	// Catalog layers compress about 8 times (JSON) to 30 times (an index.db); a bomb of
	// repeated bytes 1,000 times.
	DefaultMaxExpansion int64 = 200
	expansionFloor      int64 = 64 << 20
	// DefaultMaxManifestBytes: the pulls together read at most 16 MiB of manifests and configs
	// at once (see pullMemory).
	DefaultMaxManifestBytes int64 = 4 << 20
)

// The environment variables that change the default limits, for every command. A size is a
// number of bytes with an optional unit (K, M, G, T, as powers of 1024; KiB, MB, GiB... read the
// same way), e.g. OLMCAT_MAX_INPUT_BYTES=16G.
const (
	EnvMaxBytes         = "OLMCAT_MAX_INPUT_BYTES"
	EnvMaxFileBytes     = "OLMCAT_MAX_FILE_BYTES"
	EnvMaxFiles         = "OLMCAT_MAX_INPUT_FILES"
	EnvMaxScannedBytes  = "OLMCAT_MAX_SCANNED_BYTES"
	EnvMaxExpansion     = "OLMCAT_MAX_EXPANSION"
	EnvMaxManifestBytes = "OLMCAT_MAX_MANIFEST_BYTES"
)

// LimitsFromEnv reads the limits set in the environment (zero where a variable is unset). A value
// that is not a positive size is an error naming the variable.
func LimitsFromEnv(getenv func(string) string) (Limits, error) {
	var l Limits
	var errs []error
	size := func(name string) int64 {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return 0
		}
		n, err := ParseSize(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: %v", name, v, err))
		}
		return n
	}
	l.MaxBytes = size(EnvMaxBytes)
	l.MaxFileBytes = size(EnvMaxFileBytes)
	l.MaxFiles = int(min(size(EnvMaxFiles), 1<<40))
	l.MaxScannedBytes = size(EnvMaxScannedBytes)
	l.MaxManifestBytes = size(EnvMaxManifestBytes)
	if v := strings.TrimSpace(getenv(EnvMaxExpansion)); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			errs = append(errs, fmt.Errorf("%s=%q: not a ratio: give a positive whole number, e.g. %d", EnvMaxExpansion, v, 2*DefaultMaxExpansion))
		}
		l.MaxExpansion = n
	}
	return l, errors.Join(errs...)
}

// ParseSize reads a positive size: digits with an optional unit K, M, G or T (powers of 1024,
// also written KB, KiB, ...; case does not matter).
func ParseSize(s string) (int64, error) {
	num := strings.TrimRightFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.ToUpper(strings.TrimSpace(s[len(num):]))
	unit = strings.TrimSuffix(strings.TrimSuffix(unit, "B"), "I")
	shift := map[string]uint{"": 0, "K": 10, "M": 20, "G": 30, "T": 40}
	sh, ok := shift[unit]
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if !ok || err != nil || n <= 0 {
		return 0, errors.New("not a size: give a positive number of bytes, e.g. 8G or 8589934592")
	}
	if n > (1<<62)>>sh {
		return 0, errors.New("too large")
	}
	return n << sh, nil
}

// FormatSize writes a size the way ParseSize reads it, in the largest unit that divides it
// (16GiB).
func FormatSize(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

// WithDefaults fills the zero fields: from the environment (see LimitsFromEnv; a bad value there
// is ignored here, the command line refuses it before anything runs), else the Default constants.
func (l Limits) WithDefaults() Limits {
	env, _ := LimitsFromEnv(os.Getenv)
	if l.MaxBytes <= 0 {
		l.MaxBytes = firstPositive(env.MaxBytes, DefaultMaxBytes)
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = firstPositive(env.MaxFileBytes, DefaultMaxFileBytes)
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = int(firstPositive(int64(env.MaxFiles), DefaultMaxFiles))
	}
	if l.MaxScannedBytes <= 0 {
		l.MaxScannedBytes = firstPositive(env.MaxScannedBytes, DefaultMaxScannedBytes)
	}
	if l.MaxManifestBytes <= 0 {
		l.MaxManifestBytes = firstPositive(env.MaxManifestBytes, DefaultMaxManifestBytes)
	}
	if l.MaxExpansion <= 0 {
		l.MaxExpansion = firstPositive(env.MaxExpansion, DefaultMaxExpansion)
	}
	return l
}

// firstPositive is the first of a and b that is positive.
func firstPositive(a, b int64) int64 {
	if a > 0 {
		return a
	}
	return b
}

// ErrLimitExceeded is wrapped by every error raised because a Limits cap was reached.
var ErrLimitExceeded = errors.New("limit exceeded")

// limitError says which limit was reached, and how to raise it.
func limitError(what string, limit int64, env string) error {
	return fmt.Errorf("%w: %s %s (the image is a decompression bomb, or set %s to a higher value, e.g. %s=%s)",
		ErrLimitExceeded, what, FormatSize(limit), env, env, FormatSize(limit*2))
}

// ErrUnsafeEntry is wrapped by every error raised because a layer entry could escape the
// extraction directory or is of a kind a catalog never holds (devices, fifos).
var ErrUnsafeEntry = errors.New("unsafe layer entry")

// budgetReader counts the uncompressed bytes read from all layers and fails past the cap; it
// stops when ctx ends, so that a signal ends the extraction of a large entry at once.
type budgetReader struct {
	ctx   context.Context
	r     io.Reader
	read  *int64
	limit int64
}

func (b *budgetReader) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := b.r.Read(p)
	*b.read += int64(n)
	if *b.read > b.limit {
		return n, limitError("the image's layers uncompress to more than", b.limit, EnvMaxScannedBytes)
	}
	return n, err
}

// expansionReader reads a layer's uncompressed stream and fails once it has given more than
// maxRatio times the layer's compressed size (past expansionFloor bytes).
type expansionReader struct {
	r          io.Reader
	compressed int64
	maxRatio   int64
	read       int64
}

func (e *expansionReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	e.read += int64(n)
	if e.compressed > 0 && e.read > expansionFloor && e.read/e.compressed >= e.maxRatio {
		return n, fmt.Errorf("%w: the layer uncompresses to more than %d times its compressed size of %s (the image is a decompression bomb, or set %s to a higher value, e.g. %s=%d)",
			ErrLimitExceeded, e.maxRatio, FormatSize(e.compressed), EnvMaxExpansion, EnvMaxExpansion, 2*e.maxRatio)
	}
	return n, err
}

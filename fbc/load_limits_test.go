package fbc

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

// endlessLine is a stream of prefix followed by size bytes of 'a' and no newline, made up as it is
// read.
type endlessLine struct {
	prefix string
	size   int64
	read   int64
}

func (r *endlessLine) Read(p []byte) (int, error) {
	total := int64(len(r.prefix)) + r.size
	if r.read >= total {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && r.read < total {
		if r.read < int64(len(r.prefix)) {
			p[n] = r.prefix[r.read]
		} else {
			p[n] = 'a'
		}
		n++
		r.read++
	}
	return n, nil
}

// A 2 GB line is refused at the blob limit: the loader reads and keeps no more than the limit, names
// the blob's line, and goes on with the next file.
func TestHugeLineIsRefusedAtTheLimit(t *testing.T) {
	const twoGB = 2 << 30
	for _, tc := range []struct {
		name   string
		loader Loader
		prefix string
	}{
		{"JSON, default limit", Loader{}, "\n{\"schema\":\"olm.bundle\",\"name\":\"x\",\"data\":\""},
		{"JSON, 1 MiB limit", Loader{MaxBlobSize: 1 << 20}, "\n{\"schema\":\"olm.bundle\",\"name\":\"x\",\"data\":\""},
		{"YAML, 1 MiB limit", Loader{MaxBlobSize: 1 << 20}, "\nschema: olm.bundle\ndata: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			limit := tc.loader.maxBlob()
			in := &endlessLine{prefix: tc.prefix, size: twoGB}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := tc.loader.LoadReader(in, "huge.json")
			runtime.ReadMemStats(&after)
			errs := loadErrorList(t, err)
			if len(errs) != 1 || !errors.Is(errs[0], ErrBlobTooLarge) || errs[0].Loc.Line != 2 {
				t.Fatalf("want one blob-too-large problem at line 2, got %v", err)
			}
			if !strings.Contains(err.Error(), "huge.json:2: a blob goes on past ") || !strings.Contains(err.Error(), EnvMaxBlobBytes+"=") || strings.Contains(err.Error(), "Loader.") {
				t.Errorf("message: %v", err)
			}
			if in.read > int64(limit)+2*readBufferSize {
				t.Errorf("read %d bytes of the stream, want no more than the limit %d plus a buffer", in.read, limit)
			}
			if allocated := after.TotalAlloc - before.TotalAlloc; allocated > uint64(4*limit+(8<<20)) {
				t.Errorf("allocated %d bytes for a blob limit of %d", allocated, limit)
			}
		})
	}
}

// A YAML document made of many short lines is held to the same limit.
func TestLargeYAMLDocumentIsRefused(t *testing.T) {
	in := "schema: x.y\nname: a\n---\nschema: x.y\nitems:\n" + strings.Repeat("  - some item\n", 1000)
	c, err := Loader{MaxBlobSize: 4096}.LoadReader(strings.NewReader(in), "in")
	errs := loadErrorList(t, err)
	if len(errs) != 1 || !errors.Is(errs[0], ErrBlobTooLarge) || errs[0].Loc.Line != 4 || len(c.Others) != 1 {
		t.Errorf("want the first blob and a too-large problem at line 4 (the document's first key), got %d blobs, %v", len(c.Others), err)
	}
}

// The blob limit's variable reads sizes as the other OLMCAT_MAX_* variables do.
func TestParseBlobSize(t *testing.T) {
	for in, want := range map[string]int{"1024": 1024, "64M": 64 << 20, "64MiB": 64 << 20, " 2 GB ": 2 << 30, "1k": 1 << 10} {
		if got, ok := parseBlobSize(in); !ok || got != want {
			t.Errorf("parseBlobSize(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "12X", "M", "2T"} {
		if got, ok := parseBlobSize(in); ok {
			t.Errorf("parseBlobSize(%q) = %d, want refused", in, got)
		}
	}
	if got := formatBlobSize(64 << 20); got != "64MiB" {
		t.Errorf("formatBlobSize(64 MiB) = %s", got)
	}
}

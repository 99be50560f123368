package fbc

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzLoadReader feeds arbitrary bytes to the loader (seed corpus: testdata/fuzz/FuzzLoadReader,
// JSON and YAML files from the conformance corpus plus hand-made edge cases). It must never panic;
// every problem must be a *LoadError located in the stream, at a line that exists; and what loads
// without problems must survive a write and a reload in both formats.
func FuzzLoadReader(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		l := Loader{MaxBlobSize: 1 << 20, MaxErrors: 1000}
		c, err := l.LoadReader(bytes.NewReader(data), "fuzz")
		if c == nil {
			t.Fatal("nil catalog")
		}
		if err != nil {
			checkLocatedErrors(t, err, bytes.Count(data, []byte{'\n'})+1)
			return
		}
		for _, format := range []Format{JSON, YAML} {
			var out bytes.Buffer
			if format == YAML && !yamlCanCarry(c) {
				continue
			}
			if err := Write(&out, c, format); err != nil {
				t.Fatalf("write %s of a catalog that loaded: %v", format, err)
			}
			again, err := l.LoadReader(bytes.NewReader(out.Bytes()), "rewritten")
			if err != nil {
				t.Fatalf("reload of the written %s: %v\n%s", format, err, out.Bytes())
			}
			if a, b := loadedCounts(c), loadedCounts(again); !equalCounts(a, b) {
				t.Fatalf("%s round trip changed the blobs: %v -> %v", format, a, b)
			}
		}
	})
}

// yamlCanCarry reports whether the catalog's JSON form holds only characters YAML allows unescaped.
// JSON strings may hold DEL, C1 controls and a few other code points raw; the YAML writer (as opm's)
// passes them through and YAML parsers refuse them, so such catalogs can only be written as JSON.
func yamlCanCarry(c *Catalog) bool {
	var out bytes.Buffer
	if err := Write(&out, c, JSON); err != nil {
		return false
	}
	for _, r := range out.String() {
		printable := r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r <= 0x7E) || r == 0x85 ||
			(r >= 0xA0 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD && r != 0xFEFF) || r >= 0x10000
		if !printable {
			return false
		}
	}
	return true
}

func checkLocatedErrors(t *testing.T, err error, lines int) {
	t.Helper()
	var errs *LoadErrors
	if !errors.As(err, &errs) || len(errs.Errs) == 0 {
		t.Fatalf("want a non-empty *LoadErrors, got %T: %v", err, err)
	}
	for _, e := range errs.Errs {
		fileLevel := errors.Is(e, ErrNotCatalogData)
		if e.Loc.File != "fuzz" || (!fileLevel && (e.Loc.Line < 1 || e.Loc.Line > lines)) {
			t.Fatalf("problem not located in the input (%d lines): %v", lines, e)
		}
		if !strings.HasPrefix(e.Error(), e.Loc.String()+": ") {
			t.Fatalf("message does not start with the location: %q", e.Error())
		}
		if e.Err == nil {
			t.Fatalf("problem without a cause: %+v", e)
		}
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

package fbc

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// FuzzLoadReader feeds arbitrary bytes to the loader (seed corpus: testdata/fuzz/FuzzLoadReader,
// JSON and YAML files from the conformance corpus plus hand-made edge cases). It must never panic;
// every problem must be a *LoadError located in the stream, at a line that exists; and what loads
// without problems must survive a write and a reload in both formats.
func FuzzLoadReader(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		timer := time.AfterFunc(5*time.Second, func() { panic(fmt.Sprintf("HANG on %q", data)) })
		defer timer.Stop()
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

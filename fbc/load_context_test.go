package fbc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A loader with a context stops between two reads once the context is done, and returns the
// context's error, not the read errors it caused.
func TestLoaderStopsWithItsContext(t *testing.T) {
	dir := t.TempDir()
	for i := range 5 {
		blob := fmt.Sprintf(`{"schema":"olm.package","name":"p%d"}`, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.json", i)), []byte(blob), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	big := filepath.Join(dir, "5.yaml") // one endless line, as a file that holds no blob
	if err := os.WriteFile(big, []byte(strings.Repeat("a", 1<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	walks := map[string]func(l Loader, fn func(Blob) error) error{
		"Walk":   func(l Loader, fn func(Blob) error) error { return l.Walk(dir, fn) },
		"WalkFS": func(l Loader, fn func(Blob) error) error { return l.WalkFS(os.DirFS(dir), fn) },
		"WalkPackages": func(l Loader, fn func(Blob) error) error {
			return l.WalkPackages(dir, func(_ string, c *Catalog) error { return fn(Blob{}) })
		},
		"WalkReader": func(l Loader, fn func(Blob) error) error {
			f, err := os.Open(big)
			if err != nil {
				return err
			}
			defer f.Close()
			return l.WalkReader(f, "5.yaml", fn)
		},
	}
	for name, walk := range walks {
		// Done before the walk: nothing is read, and the big file's problem is not reported.
		t.Run(name+" done before", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			calls := 0
			err := walk(Loader{Context: ctx, MaxBlobSize: 4 << 10}, func(Blob) error { calls++; return nil })
			if !errors.Is(err, context.Canceled) || calls != 0 {
				t.Errorf("got %v after %d blobs, want context.Canceled and none", err, calls)
			}
		})
	}
	for _, name := range []string{"Walk", "WalkFS"} {
		// Done during the walk: the next file is not opened.
		t.Run(name+" done during", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			calls := 0
			err := walks[name](Loader{Context: ctx, MaxBlobSize: 4 << 10}, func(Blob) error {
				calls++
				cancel()
				return nil
			})
			if !errors.Is(err, context.Canceled) || calls != 1 {
				t.Errorf("got %v after %d blobs, want context.Canceled after 1", err, calls)
			}
		})
	}
}

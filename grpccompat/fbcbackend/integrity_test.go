package fbcbackend

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/internal/readonlytest"

	"google.golang.org/protobuf/proto"

	"github.com/olmcat/olmcat/fixtures/generate"
	"github.com/olmcat/olmcat/grpccompat/api"
)

// answers is every GetBundle answer of the backend (manifests included) in ListBundles order, as
// deterministic wire bytes.
func answers(t *testing.T, b *Backend) [][]byte {
	t.Helper()
	ctx := context.Background()
	var rows []*api.Bundle
	if err := b.ListBundles(ctx, func(x *api.Bundle) error { rows = append(rows, x); return nil }); err != nil {
		t.Fatalf("ListBundles: %v", err)
	}
	var out [][]byte
	for _, r := range rows {
		got, err := b.GetBundle(ctx, r.PackageName, r.ChannelName, r.CsvName)
		if err != nil {
			t.Fatalf("GetBundle %s/%s/%s: %v", r.PackageName, r.ChannelName, r.CsvName, err)
		}
		for _, m := range []proto.Message{r, got} {
			wire, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, wire)
		}
	}
	return out
}

// A cache whose files were changed after they were written is never served: rebuilt where the
// directory is writable, refused (naming the file and the way out) where it is not, both when
// serving and when only building or verifying (--cache-only).
func TestTamperedCacheIsNeverServed(t *testing.T) {
	root := writeCatalog(t, generate.Small)
	fresh, err := Open(context.Background(), Dir(root), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := answers(t, fresh)
	fresh.Close()

	flip := func(at func(n int) int) func([]byte) []byte {
		return func(data []byte) []byte { data[at(len(data))] ^= 0x01; return data }
	}
	imageHost := func(data []byte) []byte { return bytes.ReplaceAll(data, []byte("quay.io/"), []byte("evil.io/")) }
	for _, tc := range []struct {
		name, file string
		edit       func([]byte) []byte
	}{
		{"index byte flipped mid-file", indexFile, flip(func(n int) int { return n / 2 })},
		{"index last byte flipped", indexFile, flip(func(n int) int { return n - 1 })},
		{"index image host edited", indexFile, imageHost},
		{"bodies byte flipped", bodiesFile, flip(func(n int) int { return n / 2 })},
		{"bodies image host edited", bodiesFile, imageHost},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			if err := BuildCache(context.Background(), Dir(root), cache, nil); err != nil {
				t.Fatal(err)
			}
			path := cacheFile(cache, tc.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			edited := tc.edit(bytes.Clone(data))
			if bytes.Equal(edited, data) {
				t.Fatalf("test setup: the edit changed nothing in %s", tc.file)
			}
			if err := os.WriteFile(path, edited, 0o644); err != nil {
				t.Fatal(err)
			}

			t.Run("read-only", func(t *testing.T) {
				readonlytest.Make(t, cacheFile(cache, ""), cache)
				_, openErr := Open(context.Background(), Dir(root), Options{CacheDir: cache})
				verifyErr := BuildCache(context.Background(), Dir(root), cache, nil)
				for _, err := range []error{openErr, verifyErr} {
					if err == nil {
						t.Fatal("a tampered cache in a read-only directory was accepted")
					}
					if errors.Is(err, fs.ErrPermission) {
						t.Errorf("refusal %q unwraps to fs.ErrPermission: it would be reported as an unreadable catalog", err)
					}
					for _, want := range []string{path, "damaged", "--cache-only"} {
						if !strings.Contains(err.Error(), want) {
							t.Errorf("refusal %q does not say %q", err, want)
						}
					}
				}
			})

			b := openCached(t, root, cache)
			if got := answers(t, b); !slices.EqualFunc(got, want, bytes.Equal) {
				t.Error("after rebuilding a tampered cache, the answers differ from those of the catalog")
			}
			if now, _ := os.ReadFile(path); bytes.Equal(now, edited) {
				t.Errorf("%s still holds the edit: the cache was not rebuilt", tc.file)
			}
		})
	}
}

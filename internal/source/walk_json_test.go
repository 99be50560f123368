package source_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/source"
)

// WalkJSON gives an index.db's blobs in Walk's order, with the same values (only white space and
// escapes differ): every index.db of the corpus and the fixtures' one, blob by blob.
func TestWalkJSONGivesWalksBlobs(t *testing.T) {
	dbs, _ := filepath.Glob(filepath.Join(corpus, "sqlite", "*", "input.db"))
	dbs = append(dbs, "../../fixtures/index.db")
	for _, db := range dbs {
		t.Run(filepath.Base(filepath.Dir(db)), func(t *testing.T) {
			want := walkValues(t, db, (*source.Source).Walk)
			got := walkValues(t, db, (*source.Source).WalkJSON)
			if len(want) == 0 || len(got) != len(want) {
				t.Fatalf("WalkJSON gave %d blobs, Walk %d", len(got), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("blob %d: WalkJSON gave\n%+v\nWalk\n%+v", i, got[i], want[i])
				}
			}
		})
	}
}

type walkedBlob struct {
	schema, pkg, name string
	loc               fbc.Location
	value             any
}

func walkValues(t *testing.T, path string, walk func(*source.Source, context.Context, func(fbc.Blob) error) error) []walkedBlob {
	t.Helper()
	src, err := source.Open(context.Background(), path, source.Options{AllowEmpty: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var out []walkedBlob
	err = walk(src, context.Background(), func(b fbc.Blob) error {
		d := json.NewDecoder(bytes.NewReader(b.Data))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("blob %s %q of %q does not decode: %v\n%s", b.Schema, b.Name, b.Package, err, b.Data)
		}
		out = append(out, walkedBlob{b.Schema, b.Package, b.Name, b.Loc, v})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
